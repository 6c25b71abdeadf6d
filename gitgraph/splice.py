"""graph.json edited in place at the byte level: the records of a few files replaced.

Each array of graph.json holds sorted lines that start with their sort key, so the records of
one file lie in a few contiguous blocks (its file record; the nodes `path` and `path::...`;
the links leaving them), found by binary search. The new file is the old bytes around those
blocks plus the new records: a 30 MB graph is neither split into lines nor re-encoded to
change one file. The result is the same bytes `store.chunks` writes for the same records.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]

from .store import GraphFile, id_prefixes

Piece = bytes | memoryview
_KEYS = ('{"path":', '{"id":', '{"source":')  # how records start in files, nodes, links


def splice(graph: GraphFile, paths: Sequence[str], new: Sequence[Sequence[str]]
           ) -> list[Piece] | None:
    """graph.json's bytes with every record of `paths` replaced by `new` (the new file, node
    and link records of those paths, each a line ending with a comma); None when a record
    cannot be placed (a path holding `::` makes node ids ambiguous)."""
    if any("::" in f.path for f in graph.files) or any("::" in p for p in paths):
        return None
    raw = graph.raw
    view = memoryview(raw)
    pieces: list[Piece] = []
    at = 0
    for key, (start, end), records in zip(_KEYS, graph.spans, new, strict=True):
        by_prefix = _by_prefix(key, records)
        blocks = []
        for path in paths:
            exact, nested = id_prefixes(path)
            for prefix in (key + exact, key + nested) if key != _KEYS[0] else (key + exact,):
                lines = by_prefix.pop(prefix, [])
                blocks.append((*_block(raw, start, end, prefix.encode()), prefix, lines))
        if by_prefix:  # a record of none of `paths`
            return None
        # The old last record has no comma; unless a block replaces it, it is copied with
        # one (like every other record), and the array's new last record then loses its own.
        last = raw.rfind(b"\n", start, end - 1) + 1 or start
        if end > start and not any(s <= last and e == end for s, e, _, _ in blocks):
            line = raw[last:end - 1].decode("utf-8")
            blocks.append((last, end, line, [line + ","]))
        # Blocks placed at one spot (none of their records exist yet) go in prefix order.
        blocks.sort(key=lambda b: b[:3])
        array: list[Piece] = []
        cursor = start
        for block_start, block_end, _, lines in blocks:
            array.append(view[cursor:block_start])
            if lines:
                array.append(("\n".join(lines) + "\n").encode())
            cursor = block_end
        array.append(view[cursor:end])
        pieces.append(view[at:start])
        pieces.extend(_last_without_comma(array))
        at = end
    pieces.append(view[at:])
    return pieces


def _by_prefix(key: str, records: Sequence[str]) -> dict[str, list[str]]:
    """Records grouped by the prefix that places them (see store.id_prefixes), in order."""
    found: dict[str, list[str]] = {}
    for line in records:
        first, _ = scanstring(line, len(key) + 1)
        owner, colons, _ = first.partition("::")
        exact, nested = id_prefixes(owner)
        found.setdefault(key + (nested if colons else exact), []).append(line)
    return found


def _block(raw: mmap.mmap, start: int, end: int, prefix: bytes) -> tuple[int, int]:
    """The byte span of the lines in `raw[start:end]` (whole sorted lines) that begin with
    `prefix`; empty, at the place such lines would go, when there are none."""
    lo, hi = start, end
    while lo < hi:  # the first line that is not below the prefix
        mid = (lo + hi) // 2
        line = raw.rfind(b"\n", lo, mid) + 1 or lo
        after = raw.find(b"\n", line) + 1
        if raw[line:after] < prefix:
            lo = after
        else:
            hi = line
    stop = lo
    while stop < end and raw[stop:stop + len(prefix)] == prefix:
        stop = raw.find(b"\n", stop) + 1
    return lo, stop


def _last_without_comma(array: list[Piece]) -> list[Piece]:
    """An array's pieces with its last record's comma dropped (every other record keeps one)."""
    for i in range(len(array) - 1, -1, -1):
        if len(array[i]):
            if bytes(array[i][-2:]) == b",\n":
                array[i] = bytes(array[i][:-2]) + b"\n"
            break
    return array
