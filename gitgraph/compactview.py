"""A graph stored compactly (integer ids, CSR arrays) in the blob cache's directory, so the
next diff loads it in tens of milliseconds instead of resolving the whole tree again (its file
layout is in viewfile.py); files that changed since (without changing their interface) are
re-resolved and laid over it.
"""

from __future__ import annotations

import marshal
import mmap
import os
import struct
import zlib
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from . import log, viewfile
from .graph import Graph
from .model import FileEntry
from .tables import Tables
from .view import KINDS, USES, Arc, Edge
from .viewfile import Csr, Records

_UNKNOWN: Any = object()  # node() memo: not asked yet (None is a valid answer)

TableDicts = tuple[dict[Any, list[str]], dict[Any, list[str]], dict[str, list[str]]]


class CompactView:
    """A stored graph of one tree, plus overlays for files re-resolved since.

    Only what a diff needs is decoded eagerly (file list, node ids, edge arrays); a node's
    attributes are unmarshalled when the node is first asked for, and the global name tables
    only when an overlay re-resolves files. Edge lists are built once per node.
    """

    def __init__(self, files: tuple[FileEntry, ...], ids: list[str], attrs: Records,
                 incoming: Csr, outgoing: Csr, tables: Callable[[], TableDicts]) -> None:
        self.files = files
        self.ids = ids
        self.index = {node: i for i, node in enumerate(ids)}
        self.attrs = attrs
        self._in = incoming
        self._out = outgoing
        self._load_tables = tables
        self._tables: TableDicts | None = None
        self._nodes: dict[str, dict[str, Any]] = {}  # overlay: replaced or added nodes
        self._dropped: set[int] = set()  # nodes whose outgoing edges were recomputed
        self._dropped_in: dict[int, int] = {}  # node → its stored in-rows from dropped nodes
        self._extra_in: dict[str, list[Edge]] = defaultdict(list)
        self._extra_out: dict[str, list[Edge]] = defaultdict(list)
        # Memos: ranking, test discovery and selection ask for the same nodes many times.
        self._records: dict[str, dict[str, Any] | None] = {}
        self._incoming: dict[str, list[Edge]] = {}
        self._outgoing: dict[str, list[Edge]] = {}

    @property
    def tables(self) -> TableDicts:
        """by_name, methods, bases: what resolution needs globally (decoded on first use)."""
        if self._tables is None:
            self._tables = self._load_tables()
        return self._tables

    # -- View ----------------------------------------------------------------------------------

    def node(self, node_id: str) -> dict[str, Any] | None:
        known = self._records.get(node_id, _UNKNOWN)
        if known is not _UNKNOWN:
            return known  # type: ignore[no-any-return]
        found = self._nodes.get(node_id)
        if found is None:
            i = self.index.get(node_id)
            if i is not None and i not in self._dropped:  # dropped: laid over, and gone
                found = self.attrs.record(i, node_id)
        self._records[node_id] = found
        return found

    def incoming(self, node_id: str) -> list[Edge]:
        edges = self._incoming.get(node_id)
        if edges is None:
            edges = self._incoming[node_id] = self._edges(
                self._in, node_id, self._extra_in, self._dropped)
        return edges

    def outgoing(self, node_id: str) -> list[Edge]:
        edges = self._outgoing.get(node_id)
        if edges is None:
            edges = self._outgoing[node_id] = self._edges(
                self._out, node_id, self._extra_out, None)
        return edges

    def dependent_tests(self, seeds: list[str], depth: int) -> list[tuple[str, int]]:
        # MemoryView's walk, over node numbers: a diff of a widely used function reaches
        # half the graph, and naming only the nodes reached (not every edge looked at)
        # halves the time; stored nodes are tested by their number. Overlaid edges name
        # their nodes; stored ones from dropped nodes are gone (see _edges).
        index, ids, dropped, extra = self.index, self.ids, self._dropped, self._extra_in
        offsets, others, _, _ = self._in
        overlaid, is_test, test = self._nodes, self.is_test, self.attrs.tests()
        stored = bytearray(len(ids))  # stored nodes seen, by number
        unstored: set[str] = set()  # nodes only in the overlay seen
        for seed in seeds:
            i = index.get(seed)
            if i is None:
                unstored.add(seed)
            else:
                stored[i] = 1
        level = list(seeds)
        found: list[tuple[str, int]] = []
        for distance in range(1, depth + 1):
            reached = []
            for node in level:
                for source, _, _ in extra.get(node, ()):
                    i = index.get(source)
                    if i is None:
                        if source not in unstored:
                            unstored.add(source)
                            reached.append(source)
                            if is_test(source):
                                found.append((source, distance))
                    elif not stored[i]:
                        stored[i] = 1
                        reached.append(source)
                        if test[i] if source not in overlaid else is_test(source):
                            found.append((source, distance))
                i = index.get(node)
                if i is None:
                    continue
                for o in others[offsets[i]:offsets[i + 1]]:
                    if not stored[o] and o not in dropped:
                        stored[o] = 1
                        source = ids[o]
                        reached.append(source)
                        if test[o] if source not in overlaid else is_test(source):
                            found.append((source, distance))
            level = reached
        return found

    def weighted(self, node_id: str, factors: Mapping[str, float], forward: float
                 ) -> list[Arc]:
        # MemoryView's arcs, from the stored rows without making their edges first (the
        # ranking asks for those of every node it pushes through, tens of thousands):
        # the rows of incoming(node_id) and outgoing(node_id), see _edges.
        arcs = [(source, factors.get(kind, 0.0) * weight, kind)
                for source, kind, weight in self._extra_in.get(node_id, ())]
        if forward > 0:
            arcs += [(target, factors.get(kind, 0.0) * weight * forward, "uses:" + kind)
                     for target, kind, weight in self._extra_out.get(node_id, ())]
        i = self.index.get(node_id)
        if i is None:
            return arcs
        ids, dropped = self.ids, self._dropped
        by_kind = [factors.get(kind, 0.0) for kind in KINDS]
        offsets, others, kinds, weights = self._in
        start, end = offsets[i], offsets[i + 1]
        rows = zip(others[start:end], kinds[start:end], weights[start:end], strict=True)
        arcs += [(ids[o], by_kind[k] * weight, KINDS[k]) for o, k, weight in rows
                 if o not in dropped]
        if forward > 0 and i not in dropped:
            offsets, others, kinds, weights = self._out
            start, end = offsets[i], offsets[i + 1]
            rows = zip(others[start:end], kinds[start:end], weights[start:end], strict=True)
            arcs += [(ids[o], by_kind[k] * weight * forward, USES[k]) for o, k, weight in rows]
        return arcs

    def arc_count(self, node_id: str, factors: Mapping[str, float], forward: float) -> int:
        # weighted()'s rows counted: stored ones from the offsets, less those from dropped
        # nodes (counted when they were dropped)
        if not all(factors.get(kind, 0.0) > 0 for kind in KINDS):  # rows that would not count
            made = self.weighted(node_id, factors, forward)
            return sum(1 for _, weight, _ in made if weight > 0)
        count = len(self._extra_in.get(node_id, ()))
        if forward > 0:
            count += len(self._extra_out.get(node_id, ()))
        i = self.index.get(node_id)
        if i is None:
            return count
        offsets = self._in[0]
        count += offsets[i + 1] - offsets[i] - self._dropped_in.get(i, 0)
        if forward > 0 and i not in self._dropped:
            offsets = self._out[0]
            count += offsets[i + 1] - offsets[i]
        return count

    def is_test(self, node_id: str) -> bool:
        found = self._nodes.get(node_id)
        if found is not None:
            return bool(found.get("test"))
        i = self.index.get(node_id)
        return i is not None and i not in self._dropped and self.attrs.is_test(i)

    def _edges(self, csr: Csr, node_id: str, extra: dict[str, list[Edge]],
               dropped: set[int] | None) -> list[Edge]:
        """Overlaid edges first, then the stored ones (without those of `dropped` nodes;
        with dropped None, none at all when the node itself was dropped)."""
        edges = list(extra.get(node_id, ()))
        i = self.index.get(node_id)
        if i is None or (dropped is None and i in self._dropped):
            return edges
        offsets, others, kinds, weights = csr
        start, end = offsets[i], offsets[i + 1]
        ids = self.ids
        rows = zip(others[start:end], kinds[start:end], weights[start:end], strict=True)
        if dropped:
            edges += [(ids[o], KINDS[k], w) for o, k, w in rows if o not in dropped]
        else:
            edges += [(ids[o], KINDS[k], w) for o, k, w in rows]
        return edges

    # -- overlays ------------------------------------------------------------------------------

    def nodes_of(self, path: str) -> list[str]:
        """Stored node ids of one file (the file node and `path::...`)."""
        found = [path] if path in self.index else []
        prefix = path + "::"
        ids = self.ids
        i = bisect_left(ids, prefix)
        while i < len(ids) and ids[i].startswith(prefix):
            found.append(ids[i])
            i += 1
        return found

    def overlay(self, part: Graph, paths: Iterable[str]) -> None:
        """Replace the nodes and outgoing edges of `paths` by those of `part`."""
        offsets, others, _, _ = self._out
        for path in paths:
            for node in self.nodes_of(path):
                i = self.index[node]
                if i not in self._dropped:
                    self._dropped.add(i)
                    for o in others[offsets[i]:offsets[i + 1]]:  # rows that no longer count
                        self._dropped_in[o] = self._dropped_in.get(o, 0) + 1
        self._nodes.update(part.nodes)
        self.add_edges(part)

    def add_edges(self, part: Graph) -> None:
        """Lay extra edges over the stored ones."""
        for (source, target), (kind, weight) in part.edges.items():
            self._extra_out[source].append((target, kind, weight))
            self._extra_in[target].append((source, kind, weight))
        self._forget()

    def add_node(self, node: dict[str, Any]) -> None:
        """Add or replace one node record (e.g. a removed symbol's ghost)."""
        self._nodes[node["id"]] = node
        self._forget()

    def _forget(self) -> None:
        """Drop the memos after an overlay changed what they were computed from."""
        self._records.clear()
        self._incoming.clear()
        self._outgoing.clear()

    # -- storage -------------------------------------------------------------------------------

    @classmethod
    def from_graph(cls, graph: Graph, files: list[FileEntry], tables: Tables) -> CompactView:
        """The compact form of a freshly built graph."""
        ids = sorted(graph.nodes)
        index = {node: i for i, node in enumerate(ids)}
        attrs = Records.encode([graph.nodes[n] for n in ids])
        by_target: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
        by_source: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
        for (source, target), (kind, weight) in graph.edges.items():
            s, t, k = index[source], index[target], KINDS.index(kind)
            by_target[t].append((s, k, weight))
            by_source[s].append((t, k, weight))
        names = (dict(tables.by_name), dict(tables.methods), dict(tables.bases))
        return cls(tuple(files), ids, attrs, viewfile.csr(by_target, len(ids)),
                   viewfile.csr(by_source, len(ids)), lambda: names)

    def save(self, path: Path) -> None:
        """Store in the cache directory (atomic; a failure is logged, never raised)."""
        sections = [
            marshal.dumps(tuple(tuple(f) for f in self.files)),
            "\0".join(self.ids).encode("utf-8", "surrogatepass"),
            self.attrs.raw,
            *map(viewfile.as_bytes, self._in), *map(viewfile.as_bytes, self._out),
            marshal.dumps(self.tables),
        ]
        table = struct.pack(f"<{len(sections)}Q", *map(len, sections))
        header = viewfile.MAGIC + table + struct.pack("<I", zlib.crc32(table))
        checks = struct.pack(f"<{len(sections)}I", *(zlib.crc32(s) for s in sections))
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as out:
                pos = out.write(header + checks)
                for section in sections:  # each at a multiple of 8: arrays are read in place
                    pos += out.write(bytes(viewfile.aligned(pos) - pos))
                    pos += out.write(section)
            os.replace(tmp, path)
        except OSError as exc:
            log.info("cache: cannot write %s (%s)", path, exc)

    @classmethod
    def load(cls, path: Path) -> CompactView | None:
        """The stored view, or None when absent, damaged or of another format."""
        try:  # mapped, not read: no copy, and the pages arrive in one call (MAP_POPULATE)
            with open(path, "rb") as file:
                raw = mmap.mmap(file.fileno(), 0, **viewfile.MAP_READ)
        except (OSError, ValueError):  # absent, unreadable or empty
            return None
        sections = viewfile.checked_sections(raw)
        if sections is None:
            log.info("cache: %s is damaged or of another format; rebuilding it", path.name)
            return None
        files, ids, records, *edges, tables = sections
        try:
            entries = tuple(FileEntry(*f) for f in marshal.loads(files))
            return cls(entries, str(ids, "utf-8", "surrogatepass").split("\0"),
                       Records(records),
                       viewfile.csr_of(edges[:4]), viewfile.csr_of(edges[4:]),
                       lambda: marshal.loads(tables))
        except (ValueError, EOFError, TypeError):
            return None
