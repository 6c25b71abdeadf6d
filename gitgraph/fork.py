"""Work on the other core: a forked child computes a marshal-able value while the parent
goes on. tree-sitter and resolution hold the GIL, so threads would not overlap them. A fork
starts in ~1 ms and shares the parent's memory copy on write, but every page either side
then touches is copied (Python's reference counts write to every object read): fork before
the heap grows, as index.build_tree_records does, not after.
"""

from __future__ import annotations

import functools
import marshal
import os
from collections.abc import Callable
from typing import Any


def forked(work: Callable[[], Any]) -> Callable[[], Any | None]:
    """Start `work()` in a forked child now. The returned function waits for it and gives
    its value, or None when the child failed or no fork is available (the caller then does
    the work itself); calling it again gives the same answer."""
    if not hasattr(os, "fork"):
        return lambda: None
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: silent (a pipe held open would keep a hook's caller waiting)
        code = 1
        try:
            os.close(read_fd)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            payload = marshal.dumps(work())
            with os.fdopen(write_fd, "wb") as out:
                out.write(payload)
            code = 0
        finally:
            os._exit(code)  # no atexit handlers, no flushing of the parent's buffers
    os.close(write_fd)

    @functools.cache
    def result() -> Any | None:
        with os.fdopen(read_fd, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(pid, 0)
        if status != 0:
            return None
        try:
            return marshal.loads(payload)
        except (EOFError, ValueError, TypeError):
            return None

    return result
