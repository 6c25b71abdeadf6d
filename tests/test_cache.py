"""The blob cache on its own: packs, merges, damage (no git involved)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from gitgraph.cache import MAX_PACKS, ORPHAN_SECONDS, BlobCache, encode
from gitgraph.model import Extraction, Import, Ref, Symbol


def extraction(n: int) -> Extraction:
    symbol = Symbol(f"f{n}", "function", n, n + 1, f"def f{n}():", f"{n:016x}", "", False)
    return Extraction((symbol,), (Ref("call", "g", f"f{n}", n),), (Import("os", "", "", 1),),
                      n + 2, "")


def blob(n: int) -> str:
    return f"{n:040x}"


def put_many(common: Path, numbers: range) -> None:
    """One write of many entries, as a full index makes."""
    BlobCache(common, "d").put_entries((blob(n), "python", encode(extraction(n))) for n in numbers)


def packs(common: Path) -> list[Path]:
    return sorted(common.rglob("*.pack"))


def test_entries_round_trip_through_a_fresh_cache_object(tmp_path: Path) -> None:
    put_many(tmp_path, range(50))
    cache = BlobCache(tmp_path, "d")
    assert [cache.get(blob(n), "python") for n in range(50)] == [extraction(n) for n in range(50)]
    assert cache.get(blob(50), "python") is None and cache.get(blob(1), "go") is None
    assert len(packs(tmp_path)) == 1


def test_small_packs_are_merged_without_rewriting_the_big_one(tmp_path: Path) -> None:
    put_many(tmp_path, range(200))
    [big] = packs(tmp_path)
    for n in range(200, 200 + 3 * MAX_PACKS):  # hook runs: one small pack each
        BlobCache(tmp_path, "d").put(blob(n), "python", extraction(n))
        assert len(packs(tmp_path)) < MAX_PACKS
    assert big in packs(tmp_path)
    cache = BlobCache(tmp_path, "d")
    assert all(cache.get(blob(n), "python") == extraction(n) for n in range(200 + 3 * MAX_PACKS))


def test_a_pack_cut_short_loses_only_the_entries_past_the_cut(tmp_path: Path) -> None:
    put_many(tmp_path, range(20))
    [pack] = packs(tmp_path)
    pack.write_bytes(pack.read_bytes()[:-40])
    cache = BlobCache(tmp_path, "d")
    found = [cache.get(blob(n), "python") for n in range(20)]
    assert found[:19] == [extraction(n) for n in range(19)] and found[19] is None
    cache.put(blob(19), "python", extraction(19))  # this write merges the damaged pack away
    assert pack not in packs(tmp_path) and len(packs(tmp_path)) == 1
    cache = BlobCache(tmp_path, "d")
    assert [cache.get(blob(n), "python") for n in range(20)] == [extraction(n) for n in range(20)]


def test_temp_files_of_killed_writers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    put_many(tmp_path, range(3))
    [directory] = {p.parent for p in packs(tmp_path)}
    orphan, live = directory / ".tmp-killed", directory / ".tmp-writing"
    orphan.write_bytes(b"half a pack")
    live.write_bytes(b"being written")
    old = time.time() - ORPHAN_SECONDS - 60
    os.utime(orphan, (old, old))
    put_many(tmp_path, range(3, 6))
    assert not orphan.exists() and live.exists()
    assert BlobCache(tmp_path, "d").get(blob(4), "python") == extraction(4)
