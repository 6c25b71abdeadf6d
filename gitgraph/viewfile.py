"""The stored view's file layout: checked, aligned sections; node attributes by column;
edges as CSR arrays read in place from the mapped file (see compactview.CompactView)."""

from __future__ import annotations

import marshal
import mmap
import struct
import zlib
from array import array
from collections.abc import Sequence
from typing import Any, cast

# Stored view: magic (with the layout version), the section sizes and their CRC-32, the CRC-32
# of each section, then the sections, each at a multiple of 8 bytes: files, node ids, node
# attribute columns, the incoming and the outgoing CSR arrays (offsets, others, kinds,
# weights), the name tables.
# Version 1 was one checksummed marshal tuple (sealed.py); decoding all of it cost ~0.1 s.
# Version 2 marshalled each node's attributes on its own (slower to read than columns);
# version 3 did not align sections (arrays were copied out of the file).
MAGIC = b"gitgraph-view\n4\n"
SECTIONS = 12

MAP_READ: dict[str, int] = (
    {"prot": mmap.PROT_READ, "flags": mmap.MAP_SHARED | mmap.MAP_POPULATE}
    if hasattr(mmap, "MAP_POPULATE") else {"access": mmap.ACCESS_READ})

# CSR arrays: offsets (n + 1), others, kinds, weights; arrays when built, memoryviews of the
# mapped file when loaded
Csr = tuple[Sequence[int], Sequence[int], Sequence[int], Sequence[float]]


class Records:
    """Node attributes stored by column (kind, name, path, lines, signature, test flag) in
    one marshalled section, decoded on the first record asked for (~5 ms on Django)."""

    def __init__(self, raw: bytes | memoryview) -> None:
        self.raw = raw
        self._columns: tuple[Any, ...] | None = None

    def _decoded(self) -> tuple[Any, ...]:
        if self._columns is None:
            kinds, kind, name, path, start, end, signature, test = marshal.loads(self.raw)
            self._columns = (kinds, kind, name, path, _array("l", memoryview(start)),
                             _array("l", memoryview(end)), signature, test)
        return self._columns

    def tests(self) -> bytes:
        """The test flags of every node, by number (1 for a test)."""
        test: bytes = self._decoded()[7]
        return test

    def is_test(self, i: int) -> bool:
        """The test flag of node `i`."""
        return bool(self._decoded()[7][i])

    def record(self, i: int, node_id: str) -> dict[str, Any]:
        """The node record of node `i` (no signature or test key when empty or false)."""
        kinds, kind, name, path, start, end, signature, test = self._decoded()
        found = {"kind": kinds[kind[i]], "name": name[i], "path": path[i],
                 "start_line": start[i], "end_line": end[i]}
        if signature[i]:
            found["signature"] = signature[i]
        if test[i]:
            found["test"] = True
        found["id"] = node_id
        return found

    @classmethod
    def encode(cls, nodes: list[dict[str, Any]]) -> Records:
        """The columns of `nodes` (records of a freshly built graph, in id order)."""
        kinds = tuple(sorted({n["kind"] for n in nodes}))
        paths: dict[str, str] = {}  # one object per path: marshal stores the others as refs
        return cls(marshal.dumps((
            kinds, bytes(kinds.index(n["kind"]) for n in nodes), [n["name"] for n in nodes],
            [paths.setdefault(n["path"], n["path"]) for n in nodes],
            array("l", [n["start_line"] for n in nodes]).tobytes(),
            array("l", [n["end_line"] for n in nodes]).tobytes(),
            [n.get("signature", "") for n in nodes], bytes(bool(n.get("test")) for n in nodes),
        )))


def checked_sections(raw: mmap.mmap) -> list[memoryview] | None:
    """The checked sections of a stored view (every checksum verified: marshal is not safe
    against damaged data), or None."""
    start = len(MAGIC)
    if raw[:start] != MAGIC or len(raw) < start + SECTIONS * 12 + 4:
        return None
    table = raw[start:start + SECTIONS * 8]
    (check,) = struct.unpack_from("<I", raw, start + SECTIONS * 8)
    if zlib.crc32(table) != check:
        return None
    sizes = struct.unpack(f"<{SECTIONS}Q", table)
    checks = struct.unpack_from(f"<{SECTIONS}I", raw, start + SECTIONS * 8 + 4)
    pos = start + SECTIONS * 12 + 4
    view = memoryview(raw)
    sections = []
    for size, check in zip(sizes, checks, strict=True):
        pos = aligned(pos)
        section = view[pos:pos + size]
        if len(section) != size or zlib.crc32(section) != check:
            return None
        sections.append(section)
        pos += size
    return sections if pos == len(raw) else None


def aligned(pos: int) -> int:
    return (pos + 7) & ~7


def csr(rows: dict[int, list[tuple[int, int, float]]], size: int) -> Csr:
    offsets, others, kinds, weights = array("l", [0]), array("l"), array("b"), array("d")
    for i in range(size):
        for other, kind, weight in sorted(rows.get(i, ())):
            others.append(other)
            kinds.append(kind)
            weights.append(weight)
        offsets.append(len(others))
    return offsets, others, kinds, weights


def _array(code: str, raw: memoryview) -> array[Any]:
    found = array(code)
    if len(raw) % found.itemsize:
        raise ValueError("truncated array")
    found.frombytes(raw)
    return found


def as_bytes(values: Sequence[int] | Sequence[float]) -> bytes:
    assert isinstance(values, (array, memoryview))
    return values.tobytes()


def csr_of(raw: list[memoryview]) -> Csr:
    """CSR arrays read in place from the mapped file (a cast, not a copy; TypeError when a
    length is not a multiple of the item size)."""
    weights: Sequence[float] = cast(Sequence[float], raw[3].cast("d"))
    return raw[0].cast("l"), raw[1].cast("l"), raw[2].cast("b"), weights
