"""Read and write graph.json (format `gitgraph/1`): NetworkX node-link shape, one record per
line, sorted, no timestamps, so it is byte-deterministic and merges cleanly in git.

Format history:
  gitgraph/1  first release: graph.{format, extractor, encoding, files[{path, blob, lang}]};
              nodes carry id/kind/name/path/start_line/end_line (+ signature, hash, doc, test,
              lang, status); links carry source/target/kind/weight.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from .errors import GitGraphError
from .graph import Graph
from .model import FileEntry

FORMAT = "gitgraph/1"
_CONFLICT_MARKERS = (b"<<<<<<< ", b"\n<<<<<<< ", b"\n=======\n", b"\n>>>>>>> ")


class CorruptGraph(GitGraphError):
    """graph.json exists but cannot be trusted (syntax, conflict markers, bad paths, format)."""


@dataclass(frozen=True)
class Stored:
    """A loaded graph.json."""

    extractor: str
    encoding: str
    files: tuple[FileEntry, ...]
    nodes: list[dict[str, Any]]
    links: list[dict[str, Any]]


_string = encode_basestring  # the C encoder json.dumps(ensure_ascii=False) uses for str
# One encoder for every record: json.dumps() with options builds a new encoder per call.
_dump = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def render(graph: Graph, files: list[FileEntry], extractor: str, encoding: str) -> bytes:
    """graph.json bytes for a graph; the same graph always gives the same bytes."""
    header = {"encoding": encoding, "extractor": extractor, "format": FORMAT}
    file_lines = [_dump({"blob": f.blob, "lang": f.lang, "path": f.path})
                  for f in sorted(files, key=lambda f: f.path)]
    node_lines = [_dump(graph.nodes[n]) for n in sorted(graph.nodes)]
    # Links are most of the file: formatted directly, byte-identical to _dump() of the record.
    link_lines = [
        f'{{"kind":{_string(kind)},"source":{_string(s)},"target":{_string(t)},'
        f'"weight":{float(round(w, 4))!r}}}'
        for (s, t), (kind, w) in sorted(graph.edges.items())
    ]
    head = _dump(header)[:-1]  # reopen the header object to append "files"
    parts = [
        '{"directed":true,"multigraph":false,"graph":' + head + ',"files":' + _array(file_lines)
        + "},",
        '"nodes":' + _array(node_lines) + ",",
        '"links":' + _array(link_lines),
        "}",
    ]
    return ("\n".join(parts) + "\n").encode("utf-8")


def _array(lines: list[str]) -> str:
    if not lines:
        return "[]"
    return "[\n" + ",\n".join(lines) + "\n]"


def write_atomic(path: Path, payload: bytes) -> None:
    """Replace `path` with `payload`: temp file in the same directory, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = str(path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies, as for git
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


@contextlib.contextmanager
def locked(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive lock across a read-modify-write of graph.json."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def has_conflict_markers(raw: bytes) -> bool:
    """True when a merge left `<<<<<<<`/`>>>>>>>` lines in the file."""
    return raw.startswith(b"<<<<<<< ") or any(m in raw for m in _CONFLICT_MARKERS[1:])


def load(path: Path) -> Stored | None:
    """Read graph.json; None when absent; CorruptGraph when it cannot be trusted."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CorruptGraph(f"cannot read {path.name}: {exc.strerror}") from None
    if has_conflict_markers(raw):
        raise CorruptGraph(f"{path.name} has merge conflict markers")
    gc.disable()  # the collector dominates loading many small dicts; nothing here is cyclic
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CorruptGraph(f"{path.name} is not valid JSON ({str(exc).splitlines()[0]})") from None
    finally:
        gc.enable()
    try:
        header = data["graph"]
        if header.get("format") != FORMAT:
            raise CorruptGraph(f"{path.name} has format {header.get('format')!r}, "
                               f"expected {FORMAT!r}")
        files = tuple(FileEntry(f["path"], f["blob"], f["lang"]) for f in header["files"])
        nodes, links = data["nodes"], data["links"]
        if not isinstance(nodes, list) or not isinstance(links, list):
            raise TypeError("nodes/links")
    except (KeyError, TypeError, AttributeError) as exc:
        raise CorruptGraph(f"{path.name} is missing {exc}") from None
    for entry in files:
        if not is_safe_path(entry.path) or not isinstance(entry.blob, str):
            raise CorruptGraph(f"{path.name} names an unsafe path {entry.path!r}")
    return Stored(str(header.get("extractor", "")), str(header.get("encoding", "")), files,
                  nodes, links)


def is_safe_path(path: object) -> bool:
    """A repo-relative POSIX path: not absolute, no `..`, no empty parts, no NUL."""
    if not isinstance(path, str) or not path or "\0" in path:
        return False
    return not path.startswith("/") and all(p not in ("", ".", "..") for p in path.split("/"))
