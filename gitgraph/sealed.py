"""Checksummed marshal files: the caches gitgraph keeps beside the blob cache (views, tables).

Written atomically (temp file + rename), not fsynced: a torn, damaged or foreign file reads as
absent and the caller recomputes it. marshal is not safe against damaged data, so the bytes
are verified before they are unmarshalled.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
from pathlib import Path
from typing import Any

from . import gc_paused

log = logging.getLogger("gitgraph")
_CHECK = 16


def dump(path: Path, value: Any) -> None:
    """Store `value` (marshal-able); a failure is logged, never raised."""
    payload = marshal.dumps(value)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(hashlib.blake2b(payload, digest_size=_CHECK).digest() + payload)
        os.replace(tmp, path)
    except OSError as exc:
        log.info("cache: cannot write %s (%s)", path, exc)


def load(path: Path) -> Any | None:
    """The stored value, or None when absent or damaged (logged at -v)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    check, payload = raw[:_CHECK], raw[_CHECK:]
    if hashlib.blake2b(payload, digest_size=_CHECK).digest() != check:
        log.info("cache: %s is corrupt; rebuilding it", path.name)
        return None
    try:
        with gc_paused():  # for library callers too: unmarshalling builds many containers
            return marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
