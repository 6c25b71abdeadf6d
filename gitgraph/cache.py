"""Content-addressed store of extractions, keyed by (blob id, language, extractor digest).

Lives under `$(git rev-parse --git-common-dir)/gitgraph/`, so linked worktrees share it and it
is never committed. Entries live in pack files, one per write: a cold index of Django stores
~2,300 entries, and creating a file for each cost 0.15-2 s of kernel time on ext4, more than
half of what extracting them costs. A pack is written atomically (temp file + rename) and never
changed; it is not fsynced, because a lost or torn pack or entry is detected on read and simply
re-extracted. Reading a pack reads its table; an entry is read when asked for, so a hook run
that needs three entries does not read the 11 MB a full index wrote. When packs pile up (one
per hook run), a write merges the small ones.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import struct
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from . import blake2b, log
from .model import Extraction, Import, RawExtraction, Ref, Symbol

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
ORPHAN_SECONDS = 3600  # a pack's temp file this old belongs to a writer that was killed

class Damaged(ValueError):
    """A cache entry or pack whose bytes are not what was written."""


def encode(extraction: Extraction | RawExtraction) -> bytes:
    """An extraction as one cache entry (checksum + marshal): workers send these back."""
    body = marshal.dumps((
        tuple(map(tuple, extraction.symbols)),
        tuple(map(tuple, extraction.refs)),
        tuple(map(tuple, extraction.imports)),
        extraction.lines,
        extraction.status,
    ))
    return blake2b(body, digest_size=_CHECK).digest() + body


def decode(entry: bytes | memoryview) -> Extraction:
    """The extraction an entry holds; raises Damaged when its checksum or shape is wrong."""
    check, body = entry[:_CHECK], entry[_CHECK:]
    if len(entry) < _CHECK or blake2b(body, digest_size=_CHECK).digest() != check:
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


class _Pack(NamedTuple):
    """A pack file whose table has been read; an entry is read when it is asked for."""

    path: Path
    size: int
    offsets: dict[str, tuple[int, int]]  # key → (start, end) in the file

    def entry(self, start: int, end: int) -> bytes:
        with open(self.path, "rb", buffering=0) as handle:
            handle.seek(start)
            return handle.read(end - start)  # short when the file was cut: fails its check


# Packs never change once written, so a process reads each table once however many BlobCache
# objects (the hook makes several) look at it; the stat key notices a file replaced by hand.
_TABLES: dict[Path, tuple[tuple[int, int, int], _Pack]] = {}


class BlobCache:
    """Extractions for one extractor digest; older digests' directories are pruned on write."""

    def __init__(self, common_dir: Path, digest: str) -> None:
        self.top = common_dir / "gitgraph" / "cache"
        self.dir = self.top / f"{_FORMAT}-{digest}"
        self._pruned = False
        self._packs: list[_Pack] | None = None  # read on first use
        self._damaged: set[Path] = set()  # packs that failed a check: merged by the next write

    def get(self, blob: str, lang: str) -> Extraction | None:
        """The cached extraction, or None when absent or unreadable (logged at -v)."""
        key = f"{blob}.{lang}"
        for pack in self._load():
            span = pack.offsets.get(key)
            if span is None:
                continue
            try:
                return decode(pack.entry(*span))
            except Damaged as exc:
                log.info("cache: corrupt entry %s (%s); re-extracting", key, exc)
                self._damaged.add(pack.path)
            except OSError as exc:  # merged away by another process since it was listed
                log.info("cache: cannot read %s (%s); re-extracting", pack.path.name, exc)
        return None

    def has(self, blob: str, lang: str) -> bool:
        """Whether an entry is stored (not whether it is sound: `get` checks that)."""
        key = f"{blob}.{lang}"
        return any(key in pack.offsets for pack in self._load())

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
        packs = self._load()
        merged = self._to_merge(packs)
        for pack in packs:  # the sound entries of merged packs move into the new one
            if pack.path in merged:
                try:
                    data = pack.path.read_bytes()
                except OSError:
                    continue  # another process merged it first
                for key, (start, end) in pack.offsets.items():
                    if key not in fresh and _sound(data[start:end]):
                        fresh[key] = data[start:end]
        try:
            path = _write_pack(self.dir, fresh)
            written = _open(path)
        except (OSError, Damaged) as exc:
            log.info("cache: cannot write a pack in %s (%s)", self.dir, exc)
            return
        for old in merged - {path}:
            _TABLES.pop(old, None)
            try:
                old.unlink()
            except OSError:
                pass  # another process merged it away first
        self._damaged -= merged
        kept = [pack for pack in packs if pack.path not in merged and pack.path != path]
        self._packs = [written, *kept] if written else kept

    def _to_merge(self, packs: list[_Pack]) -> set[Path]:
        """The packs the next write folds in: damaged ones, and when packs pile up, the small
        ones (all of them once together they outgrow the largest), so that the big pack of a
        full index is rewritten about as rarely as it doubles, not on every 16th hook run."""
        merged = set(self._damaged)
        if len(packs) + 1 >= MAX_PACKS:
            by_size = sorted(packs, key=lambda pack: pack.size)
            small = by_size[:-1]
            if sum(pack.size for pack in small) >= by_size[-1].size:
                small = by_size
            merged |= {pack.path for pack in small}
        return merged

    def _load(self) -> list[_Pack]:
        """Every readable pack of the directory (each opened once per process)."""
        if self._packs is not None:
            return self._packs
        try:
            paths = sorted(self.dir.glob("*.pack"))
        except OSError:
            paths = []
        packs = []
        for path in paths:
            try:
                pack = _open(path)
            except Damaged as exc:
                log.info("cache: corrupt pack %s (%s); re-extracting its entries", path.name, exc)
                self._damaged.add(path)
                continue
            except OSError as exc:
                log.info("cache: cannot read %s (%s); re-extracting its entries", path.name, exc)
                continue
            if pack is not None:
                packs.append(pack)
        self._packs = packs
        return packs

    def _prune(self) -> None:
        """Drop directories of other extractor digests (a foreign-version cache), and the
        temp files of writers killed mid-write (a live one renames its file within seconds)."""
        self._pruned = True
        if not self.top.is_dir():
            return
        import shutil  # rarely needed: not on the hook's path

        for child in self.top.iterdir():
            if child != self.dir and child.is_dir():
                log.info("cache: discarding %s (other extractor version)", child.name)
                shutil.rmtree(child, ignore_errors=True)
        stale = time.time() - ORPHAN_SECONDS
        for tmp in self.dir.glob(".tmp-*"):
            with contextlib.suppress(OSError):
                if tmp.stat().st_mtime < stale:
                    tmp.unlink()


def _sound(entry: bytes) -> bool:
    return blake2b(entry[_CHECK:], digest_size=_CHECK).digest() == entry[:_CHECK]


def _open(path: Path) -> _Pack | None:
    """The pack at `path`, None when it is gone; raises Damaged when its table is bad."""
    try:
        with open(path, "rb", buffering=0) as handle:
            stat = os.fstat(handle.fileno())
            key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
            known = _TABLES.get(path)
            if known is not None and known[0] == key:
                return known[1]
            head = handle.read(_HEADER)
            size = struct.unpack_from("<Q", head, len(_MAGIC) + _CHECK)[0] \
                if len(head) == _HEADER else 0
            table = head + handle.read(size)
    except FileNotFoundError:  # merged away by another process since the listing
        return None
    pack = _Pack(path, stat.st_size, pack_table(table))
    _TABLES[path] = (key, pack)
    return pack


def pack_table(data: bytes) -> dict[str, tuple[int, int]]:
    """Key → (start, end) of its entry in a pack's bytes (the header and table suffice);
    raises Damaged when they are not a pack's."""
    if len(data) < _HEADER or not data.startswith(_MAGIC):
        raise Damaged("not a pack")
    check = data[len(_MAGIC):len(_MAGIC) + _CHECK]
    (size,) = struct.unpack_from("<Q", data, len(_MAGIC) + _CHECK)
    raw = data[_HEADER:_HEADER + size]
    if len(raw) != size or blake2b(raw, digest_size=_CHECK).digest() != check:
        raise Damaged("table checksum mismatch")
    try:
        table = marshal.loads(raw)
        base = _HEADER + size
        return {key: (base + offset, base + offset + length)
                for key, (offset, length) in table.items()}
    except (ValueError, EOFError, TypeError) as exc:
        raise Damaged(str(exc)) from exc


def _write_pack(directory: Path, entries: dict[str, bytes]) -> Path:
    """Write one pack atomically, named by its content; its path."""
    table, offset = {}, 0
    for key, entry in entries.items():
        table[key] = (offset, len(entry))
        offset += len(entry)
    raw = marshal.dumps(table)
    data = b"".join([_MAGIC, blake2b(raw, digest_size=_CHECK).digest(),
                     struct.pack("<Q", len(raw)), raw, *entries.values()])
    path = directory / f"{blake2b(data, digest_size=10).hexdigest()}.pack"
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".tmp-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        with open(tmp, "xb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    return path
