"""What `-v` shows: one line per cache or fallback decision on stderr, "gitgraph: " first.

Not the logging module: importing it costs ~5 ms, on every command and every commit's hook.
"""

from __future__ import annotations

import sys

verbose = False  # set from -v by the command line


def info(message: str, *args: object) -> None:
    """`message % args` on stderr, when -v is on."""
    if verbose:
        print(f"gitgraph: {message % args if args else message}", file=sys.stderr)


def crash(exc: BaseException) -> None:
    """The traceback of an unexpected exception, when -v is on."""
    if verbose:
        import traceback

        traceback.print_exception(exc)
