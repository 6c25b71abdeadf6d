"""Exact token counts of many similar texts: one report rendered again and again while nodes
are chosen. Each text is cut where tokenisation is independent, and only the parts not seen
before are encoded, optionally by a forked helper process that builds the tokenizer on
another core.
"""

from __future__ import annotations

import marshal
import os
import re
import select
import signal
import sys
import threading
import time

from . import log
from .tokens import check_name, encoding, prefetch

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
        check_name(name)
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
        encode = encoding(name).encode_ordinary
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
