"""Checksummed marshal files: the caches gitgraph keeps beside the blob cache (views, tables).

Written atomically (temp file + rename), not fsynced: a torn, damaged or foreign file reads as
absent and the caller recomputes it. marshal is not safe against damaged data, so the bytes
are verified before they are unmarshalled.
"""

from __future__ import annotations

import contextlib
import glob
import marshal
import os
import zlib
from pathlib import Path
from typing import Any

from . import gc_paused, log

_CHECK = 4  # bytes of CRC-32: a cheap check (these files are hot) that catches damage; the
# caches sit in the git dir, so they need no protection against a forger


def dump(path: Path, value: Any) -> None:
    """Store `value` (marshal-able); a failure is logged, never raised."""
    remove_orphans(path)
    payload = marshal.dumps(value)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(zlib.crc32(payload).to_bytes(_CHECK, "big") + payload)
        os.replace(tmp, path)
    except OSError as exc:
        log.info("cache: cannot write %s (%s)", path, exc)


def load(path: Path) -> Any | None:
    """The stored value, or None when absent or damaged (logged at -v)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    payload = memoryview(raw)[_CHECK:]
    if len(raw) < _CHECK or zlib.crc32(payload).to_bytes(_CHECK, "big") != raw[:_CHECK]:
        log.info("cache: %s is corrupt; rebuilding it", path.name)
        return None
    try:
        with gc_paused():  # for library callers too: unmarshalling builds many containers
            return marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None


def remove_orphans(path: Path) -> None:
    """Temp files `.NAME.PID.*tmp` beside `path` left by writers that were killed (their pid
    is gone)."""
    try:
        candidates = list(path.parent.glob(f".{glob.escape(path.name)}.*.tmp"))
    except OSError:
        return
    for tmp in candidates:
        pid = tmp.name[len(path.name) + 2:].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
