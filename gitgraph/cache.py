"""Content-addressed store of extractions, keyed by (blob id, language, extractor digest).

Lives under `$(git rev-parse --git-common-dir)/gitgraph/`, so linked worktrees share it and it
is never committed. Entries live in pack files, one per write: a cold index of Django stores
~2,300 entries, and creating a file for each cost 0.15-2 s of kernel time on ext4, more than
half of what extracting them costs. A pack is written atomically (temp file + rename) and never
changed; it is not fsynced, because a lost or torn pack or entry is detected on read and simply
re-extracted. When packs pile up (one per hook run), the next write merges them into one.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
import shutil
import struct
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .model import Extraction, Import, Ref, Symbol

log = logging.getLogger("gitgraph")
# Layout of the cache; bump to orphan every entry.
#   1  a file per entry: marshal of (symbols, refs, imports, lines, status)
#   2  a file per entry: a 16-byte blake2b digest of the marshal bytes, then those bytes: marshal
#      is not safe against damaged data, so an entry is verified before it is unmarshalled
#   3  `<name>.pack` files: _MAGIC, the 16-byte blake2b of the table, the table's length
#      (8 bytes, little-endian), the table (marshal of {"<blob>.<lang>": (offset, length)},
#      offsets counted from the end of the table), then the entries, each laid out as in 2
_FORMAT = 3
_MAGIC = b"gitgraph-pack-3\n"
_CHECK = 16
_HEADER = len(_MAGIC) + _CHECK + 8
MAX_PACKS = 16  # a write that finds this many packs merges them into one

Location = tuple[bytes, int, int]  # pack contents, start, end of one entry


class Damaged(ValueError):
    """A cache entry or pack whose bytes are not what was written."""


def encode(extraction: Extraction) -> bytes:
    """An extraction as one cache entry (checksum + marshal): workers send these back."""
    body = marshal.dumps((
        tuple(map(tuple, extraction.symbols)),
        tuple(map(tuple, extraction.refs)),
        tuple(map(tuple, extraction.imports)),
        extraction.lines,
        extraction.status,
    ))
    return hashlib.blake2b(body, digest_size=_CHECK).digest() + body


def decode(entry: bytes | memoryview) -> Extraction:
    """The extraction an entry holds; raises Damaged when its checksum or shape is wrong."""
    check, body = entry[:_CHECK], entry[_CHECK:]
    if len(entry) < _CHECK or hashlib.blake2b(body, digest_size=_CHECK).digest() != check:
        raise Damaged("checksum mismatch")
    try:
        symbols, refs, imports, lines, status = marshal.loads(body)
        # tuple.__new__ fills a record without the per-instance Python call of Symbol(*s)
        return Extraction(
            tuple([tuple.__new__(Symbol, s) for s in symbols]),
            tuple([tuple.__new__(Ref, r) for r in refs]),
            tuple([tuple.__new__(Import, i) for i in imports]),
            lines,
            status,
        )
    except (ValueError, EOFError, TypeError) as exc:
        raise Damaged(str(exc)) from exc


class BlobCache:
    """Extractions for one extractor digest; older digests' directories are pruned on write."""

    def __init__(self, common_dir: Path, digest: str) -> None:
        self.top = common_dir / "gitgraph" / "cache"
        self.dir = self.top / f"{_FORMAT}-{digest}"
        self._pruned = False
        self._table: dict[str, list[Location]] | None = None  # read on first use
        self._packs: list[Path] = []  # the packs the table was read from
        self._damaged = False  # a pack or entry failed its check: merge on the next write

    def get(self, blob: str, lang: str) -> Extraction | None:
        """The cached extraction, or None when absent or unreadable (logged at -v)."""
        key = f"{blob}.{lang}"
        for data, start, end in self._entries().get(key, ()):
            try:
                return decode(memoryview(data)[start:end])
            except Damaged as exc:
                log.info("cache: corrupt entry %s (%s); re-extracting", key, exc)
                self._damaged = True
        return None

    def put(self, blob: str, lang: str, extraction: Extraction) -> None:
        """Store one extraction; failures to write are logged, never raised."""
        self.put_entries([(blob, lang, encode(extraction))])

    def put_entries(self, entries: Iterable[tuple[str, str, bytes]]) -> None:
        """Store encoded entries (see `encode`) as one new pack; failures are logged."""
        fresh = {f"{blob}.{lang}": entry for blob, lang, entry in entries}
        if not fresh:
            return
        if not self._pruned:
            self._prune()
        table = self._entries()
        merged = list(self._packs) if self._damaged or len(self._packs) >= MAX_PACKS else []
        if merged:  # every sound entry of the old packs moves into the new one
            for key, locations in table.items():
                if key not in fresh:
                    for data, start, end in locations:
                        entry = bytes(memoryview(data)[start:end])
                        try:
                            decode(entry)
                        except Damaged:
                            continue
                        fresh[key] = entry
                        break
        try:
            path, data, offsets = _write_pack(self.dir, fresh)
        except OSError as exc:
            log.info("cache: cannot write a pack in %s (%s)", self.dir, exc)
            return
        for old in merged:
            if old != path:
                try:
                    old.unlink()
                except OSError:
                    pass  # another process merged it away first
        if merged:
            self._table = table = {}
            self._packs, self._damaged = [], False
        for key, (start, end) in offsets.items():
            table.setdefault(key, []).insert(0, (data, start, end))  # newest first
        self._packs.append(path)

    def _entries(self) -> dict[str, list[Location]]:
        """Where each cached key's entries are, reading every pack once."""
        if self._table is not None:
            return self._table
        self._table = {}
        try:
            paths = sorted(self.dir.glob("*.pack"))
        except OSError:
            paths = []
        for path in paths:
            try:
                data = path.read_bytes()
            except FileNotFoundError:  # merged away by another process since the listing
                continue
            except OSError as exc:
                log.info("cache: cannot read %s (%s); re-extracting its entries", path.name, exc)
                continue
            self._packs.append(path)
            try:
                offsets = pack_table(data)
            except Damaged as exc:
                log.info("cache: corrupt pack %s (%s); re-extracting its entries", path.name, exc)
                self._damaged = True
                continue
            for key, (start, end) in offsets.items():
                self._table.setdefault(key, []).append((data, start, end))
        return self._table

    def _prune(self) -> None:
        """Drop directories of other extractor digests (a foreign-version cache)."""
        self._pruned = True
        if not self.top.is_dir():
            return
        for child in self.top.iterdir():
            if child != self.dir and child.is_dir():
                log.info("cache: discarding %s (other extractor version)", child.name)
                shutil.rmtree(child, ignore_errors=True)


def pack_table(data: bytes) -> dict[str, tuple[int, int]]:
    """Key → (start, end) of its entry in a pack's bytes; raises Damaged on a bad header."""
    if len(data) < _HEADER or not data.startswith(_MAGIC):
        raise Damaged("not a pack")
    check = data[len(_MAGIC):len(_MAGIC) + _CHECK]
    (size,) = struct.unpack_from("<Q", data, len(_MAGIC) + _CHECK)
    raw = data[_HEADER:_HEADER + size]
    if len(raw) != size or hashlib.blake2b(raw, digest_size=_CHECK).digest() != check:
        raise Damaged("table checksum mismatch")
    try:
        table = marshal.loads(raw)
        base = _HEADER + size
        return {key: (base + offset, base + offset + length)
                for key, (offset, length) in table.items()}
    except (ValueError, EOFError, TypeError) as exc:
        raise Damaged(str(exc)) from exc


def _write_pack(directory: Path, entries: dict[str, bytes]
                ) -> tuple[Path, bytes, dict[str, tuple[int, int]]]:
    """Write one pack atomically, named by its content; its path, bytes and entry offsets."""
    table, offset = {}, 0
    for key, entry in entries.items():
        table[key] = (offset, len(entry))
        offset += len(entry)
    raw = marshal.dumps(table)
    data = b"".join([_MAGIC, hashlib.blake2b(raw, digest_size=_CHECK).digest(),
                     struct.pack("<Q", len(raw)), raw, *entries.values()])
    name = hashlib.blake2b(data, digest_size=10).hexdigest()
    path = directory / f"{name}.pack"
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        raise
    base = _HEADER + len(raw)
    return path, data, {key: (base + start, base + start + length)
                        for key, (start, length) in table.items()}
