"""Read and write graph.json (format `gitgraph/1`): NetworkX node-link shape, one record per
line, sorted, no timestamps, so it is byte-deterministic and merges cleanly in git.

Layout: the header object's first line, then one record per line in three arrays (files,
nodes, links), each sorted as strings; records start with their sort key (path, id, source).

Format history:
  gitgraph/1  first release: graph.{format, extractor, encoding, files[{path, blob, lang}]};
              nodes carry id/kind/name/path/start_line/end_line (+ signature, hash, doc, test,
              lang, status); links carry source/target/kind/weight.
              Since GRAPH_VERSION 8 a link's weight is left out when it is 1 (three links
              in four: 4% of the file, which git hashes and deflates on every commit).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import mmap
import os
import time
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

from . import blake2b, sealed
from .config import Config
from .errors import GitGraphError
from .extract import extractor_digest
from .graph import Graph, graph_digest
from .model import FileEntry

FORMAT = "gitgraph/1"
_CONFLICT_MARKERS = (b"<<<<<<< ", b"\n<<<<<<< ", b"\n=======\n", b"\n>>>>>>> ")


class CorruptGraph(GitGraphError):
    """graph.json exists but cannot be trusted (syntax, conflict markers, bad paths, format)."""


@dataclass
class GraphLines:
    """graph.json as its records' lines, each kept with a trailing comma (so that reading and
    splicing copy no strings; `dumps` drops the last comma of each array). Records end in
    `}`, so no record is a prefix of another and the commas do not change the sort order."""

    header: dict[str, str]  # format, extractor, encoding
    files: list[str]
    nodes: list[str]
    links: list[str]

    @functools.cached_property
    def file_entries(self) -> tuple[FileEntry, ...]:
        """The file table, validated (paths must be safe repo-relative paths)."""
        return tuple(_file_entry(line) for line in self.files)


_string = encode_basestring  # the C encoder json.dumps(ensure_ascii=False) uses for str
# One encoder for every record: json.dumps() with options builds a new encoder per call.
_dump = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode
_OPEN = '{"directed":true,"multigraph":false,"graph":'
_CHUNK = 4096  # records encoded at a time


def file_line(entry: FileEntry) -> str:
    """A file-table record: path first, so sorted lines are sorted by path."""
    return (f'{{"path":{_string(entry.path)},"blob":{_string(entry.blob)},'
            f'"lang":{_string(entry.lang)}}},')


def node_line(node: dict[str, Any]) -> str:
    """A node record: id first, then the other keys sorted."""
    rest = _dump({k: v for k, v in node.items() if k != "id"})
    return f'{{"id":{_string(node["id"])},{rest[1:]},'


def link_line(source: str, target: str, kind: str, weight: float) -> str:
    """A link record: source and target first, so sorted lines are sorted by them; the
    weight only when it is not 1 (readers take 1 when it is absent)."""
    start = f'{{"source":{_string(source)},"target":{_string(target)},"kind":{_string(kind)}'
    weight = float(round(weight, 4))
    return f"{start}}}," if weight == 1.0 else f'{start},"weight":{weight!r}}},'


def record_field(line: str, key: str, start: int = 0) -> tuple[str, int]:
    """A string field of a record line (as the *_line functions write them) and where it
    ends; `start` skips the fields before it. A key's pattern cannot occur inside an
    earlier string value, where every quote is escaped."""
    value: str
    value, end = scanstring(line, line.index(f'"{key}":"', start) + len(key) + 4)
    return value, end


def id_prefixes(path: str) -> tuple[str, str]:
    """How a node id of `path` starts in a record: the file node exactly, or `path::...`."""
    exact = _string(path) + ","
    return exact, _string(path + "::")[:-1]


def header(config: Config) -> dict[str, str]:
    """The `graph` header fields this configuration and gitgraph version write."""
    return {"encoding": config.encoding,
            "extractor": graph_digest(extractor_digest(config.max_file_bytes)),
            "format": FORMAT}


def to_lines(graph: Graph, files: list[FileEntry], config: Config) -> GraphLines:
    """Sorted record lines of a graph (lines sort as strings: the order every writer uses)."""
    return assemble(files, config, graph_records(graph))


def graph_records(graph: Graph, leave_out: Container[str] = ()) -> tuple[list[str], list[str]]:
    """The node and link records of a graph, each list sorted; nodes in `leave_out` and the
    edges leaving them are left out (another process renders those)."""
    return (sorted(node_line(node) for node_id, node in graph.nodes.items()
                   if node_id not in leave_out),
            sorted(link_line(s, t, kind, w) for (s, t), (kind, w) in graph.edges.items()
                   if s not in leave_out))


def assemble(files: list[FileEntry], config: Config, *records: tuple[list[str], list[str]]
             ) -> GraphLines:
    """graph.json's lines from the file table and (node, link) records rendered in parts,
    each sorted (sorting their concatenation merges runs: linear time)."""
    return GraphLines(header(config), sorted(file_line(f) for f in files),
                      sorted([line for nodes, _ in records for line in nodes]),
                      sorted([line for _, links in records for line in links]))


def chunks(lines: GraphLines) -> Iterator[bytes]:
    """graph.json as encoded pieces: a node-link document, one record per line. Written
    piece by piece, a 30 MB graph never exists as one string and one bytes object at once."""
    head = _dump(lines.header)[:-1]  # reopen the header object to append "files"
    yield f'{_OPEN}{head},"files":[\n'.encode()
    for records, close in ((lines.files, ']},\n"nodes":[\n'), (lines.nodes, '],\n"links":[\n'),
                           (lines.links, "]}\n")):
        for start in range(0, len(records), _CHUNK):
            block = records[start:start + _CHUNK]
            if start + _CHUNK >= len(records):  # the last record has no comma
                block = [*block[:-1], block[-1][:-1]]
            yield ("\n".join(block) + "\n").encode()
        yield close.encode()


def dumps(lines: GraphLines) -> bytes:
    """graph.json bytes (see chunks)."""
    return b"".join(chunks(lines))


def render(graph: Graph, files: list[FileEntry], config: Config) -> bytes:
    """graph.json bytes for a graph; the same graph always gives the same bytes."""
    return dumps(to_lines(graph, files, config))


def write_atomic(path: Path, payload: bytes | Iterable[bytes | memoryview], *,
                 unless_equal: bool = False) -> bool:
    """Replace `path` with `payload`: temp file in the same directory, fsync, rename.

    With `unless_equal`, a payload identical to the file's bytes leaves the file untouched
    (not even its mtime); returns whether it was replaced.
    """
    sealed.remove_orphans(path)
    unless_equal = unless_equal and os.path.exists(path)  # (nothing to compare: no digest)
    tmp = str(path.parent / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies, as for git
    except OSError as exc:  # e.g. `-o` into a missing or read-only place: the user can fix it
        raise GitGraphError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        digest = blake2b()
        with os.fdopen(fd, "wb") as handle:
            for piece in [payload] if isinstance(payload, bytes) else payload:
                handle.write(piece)
                if unless_equal:
                    digest.update(piece)
            if unless_equal and _digest(path) == digest.digest():
                os.unlink(tmp)
                return False
            handle.flush()
            os.fsync(handle.fileno())
        # Dated two seconds back: written just before the commit writes git's index, it
        # would often share the index's timestamp, and git then re-reads and hashes all of
        # it (33 MB on Django) in every diff and status until the index is written again.
        stamp = time.time_ns() - 2_000_000_000
        os.utime(tmp, ns=(stamp, stamp))
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # a full disk, a directory in the way
            raise GitGraphError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return True


def _digest(path: Path) -> bytes | None:
    """blake2b of a file's bytes, read in blocks; None when it cannot be read."""
    digest = blake2b()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.digest()


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


def has_conflict_markers(raw: bytes | mmap.mmap) -> bool:
    """True when a merge left `<<<<<<<`/`>>>>>>>` lines in the file."""
    return raw[:8] == b"<<<<<<< " or any(raw.find(m) >= 0 for m in _CONFLICT_MARKERS[1:])


Stat = tuple[int, int, int, int, int]  # device, inode, size, mtime and ctime (ns)


@dataclass(frozen=True)
class GraphFile:
    """graph.json as read: its bytes (mapped, not copied), header, file table, and where each
    array's records lie (`[start, end)` byte spans of whole lines, each ending in "\\n")."""

    raw: mmap.mmap
    stat: Stat  # of the file read
    header: dict[str, str]
    files: tuple[FileEntry, ...]
    spans: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]  # files, nodes, links

    def lines(self) -> GraphLines:
        """The records as lines (the layout merges and line-level edits work on)."""
        arrays = [self.raw[a:b].decode("utf-8").split("\n")[:-1] for a, b in self.spans]
        return GraphLines(self.header, *(_commas(lines) for lines in arrays))


_FILES_END = b'\n]},\n"nodes":[\n'
_NODES_END = b'\n],\n"links":[\n'
_LINKS_END = b"\n]}\n"


def stat_of(path: Path) -> Stat | None:
    """What tells one version of a file from another without reading it (as git's index does)."""
    try:
        return _stat(os.stat(path))
    except OSError:
        return None


def _stat(st: os.stat_result) -> Stat:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def open_graph(path: Path, checked: Stat | None = None) -> GraphFile | None:
    """graph.json mapped and checked; None when absent; CorruptGraph when untrustworthy.

    Its whole bytes are scanned (merge conflict markers, UTF-8) unless its stat is `checked`:
    the file gitgraph itself wrote last, untouched since, is not read beyond what is used.
    """
    try:
        with path.open("rb") as handle:
            st = os.fstat(handle.fileno())
            raw = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if st.st_size else None
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CorruptGraph(f"cannot read {path.name}: {exc.strerror}") from None
    if raw is None:
        raise CorruptGraph(f"{path.name} is empty")
    if _stat(st) != checked:
        if has_conflict_markers(raw):
            raise CorruptGraph(f"{path.name} has merge conflict markers")
        try:
            raw[:].decode("utf-8")
        except UnicodeDecodeError:
            raise CorruptGraph(f"{path.name} is not UTF-8") from None
    first = raw.find(b"\n") + 1
    header = _header(raw[:first].decode("utf-8", "replace").rstrip("\n"), path)
    files_end = raw.find(_FILES_END, first - 1)
    nodes_end = raw.find(_NODES_END, files_end)
    if files_end < 0 or nodes_end < 0 or raw[-len(_LINKS_END):] != _LINKS_END:
        raise CorruptGraph(f"{path.name} is not in gitgraph's layout (truncated?)")
    spans = ((first, files_end + 1), (files_end + len(_FILES_END), nodes_end + 1),
             (nodes_end + len(_NODES_END), len(raw) - len(_LINKS_END) + 1))
    if any(a > b for a, b in spans):
        raise CorruptGraph(f"{path.name} is not in gitgraph's layout")
    return GraphFile(raw, _stat(st), header, _file_table(raw[spans[0][0]:spans[0][1]]), spans)


def read_lines(path: Path) -> GraphLines | None:
    """graph.json split into record lines; None when absent; CorruptGraph when untrustworthy."""
    graph = open_graph(path)
    return None if graph is None else graph.lines()


def _file_table(section: bytes) -> tuple[FileEntry, ...]:
    """The file table's records (one JSON array parse), validated."""
    try:
        records = json.loads(b"[" + section.replace(b"\n", b"") + b"]")
    except (ValueError, UnicodeDecodeError):
        for line in section.decode("utf-8", "replace").split("\n")[:-1]:
            _file_entry(line if line.endswith(",") else line + ",")  # names the bad line
        raise CorruptGraph("graph.json has a malformed file table") from None
    return tuple(_entry(record, str(record)[:80]) for record in records)


def _header(first: str, path: Path) -> dict[str, str]:
    if first.startswith("<<<<<<<"):
        raise CorruptGraph(f"{path.name} has merge conflict markers")
    if not first.startswith(_OPEN) or not first.endswith(',"files":['):
        raise CorruptGraph(f"{path.name} is not a gitgraph graph (unexpected first line)")
    try:
        header = json.loads(first[len(_OPEN):-len(',"files":[')] + "}")
    except ValueError:
        raise CorruptGraph(f"{path.name} has an unreadable header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        found = header.get("format") if isinstance(header, dict) else None
        raise CorruptGraph(f"{path.name} has format {found!r}, expected {FORMAT!r}")
    return {k: str(v) for k, v in header.items()}


def _commas(lines: list[str]) -> list[str]:
    """Records as read, the last one given the comma the others carry."""
    if lines and not lines[-1].endswith(","):
        lines[-1] += ","
    return lines


def _file_entry(line: str) -> FileEntry:
    try:
        record = json.loads(line[:-1])
    except ValueError:
        raise CorruptGraph(f"graph.json has a bad file record: {line[:80]}") from None
    return _entry(record, line[:80])


def _entry(record: Any, shown: str) -> FileEntry:
    try:
        entry = FileEntry(record["path"], record["blob"], record["lang"])
    except (KeyError, TypeError):
        raise CorruptGraph(f"graph.json has a bad file record: {shown}") from None
    if not is_safe_path(entry.path) or not isinstance(entry.blob, str):
        raise CorruptGraph(f"graph.json names an unsafe path {entry.path!r}")
    return entry


def is_safe_path(path: object) -> bool:
    """A repo-relative POSIX path: not absolute, no `..`, no empty parts, no NUL."""
    if not isinstance(path, str) or not path or "\0" in path:
        return False
    return not path.startswith("/") and all(p not in ("", ".", "..") for p in path.split("/"))
