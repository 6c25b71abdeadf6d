"""Content-addressed store of extractions, keyed by (blob id, language, extractor digest).

Lives under `$(git rev-parse --git-common-dir)/gitgraph/`, so linked worktrees share it and it
is never committed. Entries are written atomically (temp file + rename); they are not fsynced,
because a lost or torn entry is detected on read and simply re-extracted.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
import shutil
import tempfile
from pathlib import Path

from .model import Extraction, Import, Ref, Symbol

log = logging.getLogger("gitgraph")
# Layout of one entry; bump to orphan every entry.
#   1  marshal of (symbols, refs, imports, lines, status)
#   2  a 16-byte blake2b digest of the marshal bytes, then those bytes: marshal is not safe
#      against damaged data, so an entry is verified before it is unmarshalled
_FORMAT = 2
_CHECK = 16


class BlobCache:
    """Extractions for one extractor digest; older digests' directories are pruned on write."""

    def __init__(self, common_dir: Path, digest: str) -> None:
        self.top = common_dir / "gitgraph" / "cache"
        self.dir = self.top / f"{_FORMAT}-{digest}"
        self._pruned = False

    def _path(self, blob: str, lang: str) -> Path:
        return self.dir / blob[:2] / f"{blob[2:]}.{lang}"

    def get(self, blob: str, lang: str) -> Extraction | None:
        """The cached extraction, or None when absent or unreadable (logged at -v)."""
        path = self._path(blob, lang)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.info("cache: cannot read %s (%s); re-extracting", path.name, exc)
            return None
        check, body = raw[:_CHECK], raw[_CHECK:]
        if hashlib.blake2b(body, digest_size=_CHECK).digest() != check:
            log.info("cache: corrupt entry %s (checksum mismatch); re-extracting", path.name)
            return None
        try:
            symbols, refs, imports, lines, status = marshal.loads(body)
            return Extraction(
                tuple(Symbol(*s) for s in symbols),
                tuple(Ref(*r) for r in refs),
                tuple(Import(*i) for i in imports),
                lines,
                status,
            )
        except (ValueError, EOFError, TypeError) as exc:
            log.info("cache: corrupt entry %s (%s); re-extracting", path.name, exc)
            return None

    def put(self, blob: str, lang: str, extraction: Extraction) -> None:
        """Store an extraction; failures to write are logged, never raised."""
        if not self._pruned:
            self._prune()
        path = self._path(blob, lang)
        body = marshal.dumps((
            tuple(tuple(s) for s in extraction.symbols),
            tuple(tuple(r) for r in extraction.refs),
            tuple(tuple(i) for i in extraction.imports),
            extraction.lines,
            extraction.status,
        ))
        payload = hashlib.blake2b(body, digest_size=_CHECK).digest() + body
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
            os.replace(tmp, path)
        except OSError as exc:
            log.info("cache: cannot write %s (%s)", path, exc)

    def _prune(self) -> None:
        """Drop directories of other extractor digests (a foreign-version cache)."""
        self._pruned = True
        if not self.top.is_dir():
            return
        for child in self.top.iterdir():
            if child != self.dir and child.is_dir():
                log.info("cache: discarding %s (other extractor version)", child.name)
                shutil.rmtree(child, ignore_errors=True)
