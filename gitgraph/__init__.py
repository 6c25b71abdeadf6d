"""gitgraph: a code graph of a git repository, kept current from git, sliced by change impact."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

try:  # the C modules behind hashlib's: hashlib itself also loads OpenSSL (~3 ms a process)
    from _blake2 import blake2b
    from _sha1 import sha1  # type: ignore[import-not-found]  # (no stub)
except ImportError:  # pragma: no cover - another interpreter
    from hashlib import blake2b, sha1

__all__ = ["blake2b", "gc_paused", "sha1"]

__version__ = "0.1.0"


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Run without the cyclic garbage collector, restoring it after. gitgraph builds large
    structures that hold no cycles (extractions, tables, graph lines); the collector would
    only rescan them as they pile up (~20% of a warm Django index's CPU, same peak RSS)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
