"""The graph as `gitgraph diff` reads it: node records and edges in both directions.

`MemoryView` wraps a freshly built Graph. `CompactView` is the same graph stored compactly
(integer ids, CSR arrays) in the blob cache's directory, so the next diff loads it in tens of
milliseconds instead of resolving the whole tree again; files that changed since (without
changing their interface) are re-resolved and laid over it.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from . import sealed
from .graph import Graph
from .model import FileEntry
from .tables import Tables

Edge = tuple[str, str, float]  # (other node, kind, weight)
KINDS = ("contains", "calls", "imports", "inherits", "tests")
_ATTRS = ("kind", "name", "path", "start_line", "end_line", "signature", "test")
_FORMAT = 1


class View(Protocol):
    """What ranking and selection need from a graph."""

    def node(self, node_id: str) -> dict[str, Any] | None:
        """The node record, or None when there is no such node."""

    def incoming(self, node_id: str) -> list[Edge]:
        """Edges (source, kind, weight) into a node: who depends on it."""

    def outgoing(self, node_id: str) -> list[Edge]:
        """Edges (target, kind, weight) out of a node: what it depends on."""


class MemoryView:
    """A View over a Graph built in this process."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self._in: dict[str, list[Edge]] = defaultdict(list)
        self._out: dict[str, list[Edge]] = defaultdict(list)
        for (source, target), (kind, weight) in graph.edges.items():
            self._in[target].append((source, kind, weight))
            self._out[source].append((target, kind, weight))

    def node(self, node_id: str) -> dict[str, Any] | None:
        return self.graph.nodes.get(node_id)

    def incoming(self, node_id: str) -> list[Edge]:
        return self._in.get(node_id, [])

    def outgoing(self, node_id: str) -> list[Edge]:
        return self._out.get(node_id, [])


class CompactView:
    """A stored graph of one tree, plus overlays for files re-resolved since."""

    def __init__(self, files: tuple[FileEntry, ...], ids: list[str], attrs: list[tuple[Any, ...]],
                 incoming: tuple[array[int], array[int], array[int], array[float]],
                 outgoing: tuple[array[int], array[int], array[int], array[float]],
                 tables: tuple[dict[Any, list[str]], dict[Any, list[str]], dict[str, list[str]]]
                 ) -> None:
        self.files = files
        self.ids = ids
        self.index = {node: i for i, node in enumerate(ids)}
        self.attrs = attrs
        self._in = incoming
        self._out = outgoing
        self.tables = tables  # by_name, methods, bases: what resolution needs globally
        self._nodes: dict[str, dict[str, Any]] = {}  # overlay: replaced or added nodes
        self._dropped: set[int] = set()  # nodes whose outgoing edges were recomputed
        self._extra_in: dict[str, list[Edge]] = defaultdict(list)
        self._extra_out: dict[str, list[Edge]] = defaultdict(list)

    # -- View ----------------------------------------------------------------------------------

    def node(self, node_id: str) -> dict[str, Any] | None:
        found = self._nodes.get(node_id)
        if found is not None:
            return found
        i = self.index.get(node_id)
        if i is None or i in self._dropped:  # its file was laid over, and it is gone
            return None
        record = dict(zip(_ATTRS, self.attrs[i], strict=True))
        record["id"] = node_id
        for key in ("test", "signature"):  # absent in a fresh graph's record when empty
            if not record[key]:
                del record[key]
        return record

    def incoming(self, node_id: str) -> list[Edge]:
        edges = list(self._extra_in.get(node_id, ()))
        i = self.index.get(node_id)
        if i is not None:
            edges += [e for e, source in self._edges(self._in, i) if source not in self._dropped]
        return edges

    def outgoing(self, node_id: str) -> list[Edge]:
        edges = list(self._extra_out.get(node_id, ()))
        i = self.index.get(node_id)
        if i is not None and i not in self._dropped:
            edges += [e for e, _ in self._edges(self._out, i)]
        return edges

    def _edges(self, csr: tuple[array[int], array[int], array[int], array[float]], i: int
               ) -> Iterable[tuple[Edge, int]]:
        offsets, others, kinds, weights = csr
        for j in range(offsets[i], offsets[i + 1]):
            other = others[j]
            yield (self.ids[other], KINDS[kinds[j]], weights[j]), other

    # -- overlays ------------------------------------------------------------------------------

    def nodes_of(self, path: str) -> list[str]:
        """Stored node ids of one file (the file node and `path::...`)."""
        found = [path] if path in self.index else []
        prefix = path + "::"
        start = bisect_left(self.ids, prefix)
        for node in self.ids[start:]:
            if not node.startswith(prefix):
                break
            found.append(node)
        return found

    def overlay(self, part: Graph, paths: Iterable[str]) -> None:
        """Replace the nodes and outgoing edges of `paths` by those of `part`."""
        for path in paths:
            for node in self.nodes_of(path):
                self._dropped.add(self.index[node])
        self._nodes.update(part.nodes)
        self.add_edges(part)

    def add_edges(self, part: Graph) -> None:
        """Lay extra edges over the stored ones."""
        for (source, target), (kind, weight) in part.edges.items():
            self._extra_out[source].append((target, kind, weight))
            self._extra_in[target].append((source, kind, weight))

    def add_node(self, node: dict[str, Any]) -> None:
        """Add or replace one node record (e.g. a removed symbol's ghost)."""
        self._nodes[node["id"]] = node

    # -- storage -------------------------------------------------------------------------------

    @classmethod
    def from_graph(cls, graph: Graph, files: list[FileEntry], tables: Tables) -> CompactView:
        """The compact form of a freshly built graph."""
        ids = sorted(graph.nodes)
        index = {node: i for i, node in enumerate(ids)}
        attrs = [tuple(graph.nodes[n].get(a, False if a == "test" else "") for a in _ATTRS)
                 for n in ids]
        by_target: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
        by_source: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
        for (source, target), (kind, weight) in graph.edges.items():
            s, t, k = index[source], index[target], KINDS.index(kind)
            by_target[t].append((s, k, weight))
            by_source[s].append((t, k, weight))
        return cls(tuple(files), ids, attrs, _csr(by_target, len(ids)),
                   _csr(by_source, len(ids)),
                   (dict(tables.by_name), dict(tables.methods), dict(tables.bases)))

    def save(self, path: Path) -> None:
        """Store in the cache directory (a failure is logged, never raised)."""
        sealed.dump(path, (
            _FORMAT, tuple(tuple(f) for f in self.files), self.ids, self.attrs,
            tuple(a.tobytes() for a in self._in), tuple(a.tobytes() for a in self._out),
            self.tables))

    @classmethod
    def load(cls, path: Path) -> CompactView | None:
        """The stored view, or None when absent, corrupt or of another format."""
        stored = sealed.load(path)
        if not isinstance(stored, tuple) or len(stored) != 7 or stored[0] != _FORMAT:
            return None
        _, files, ids, attrs, incoming, outgoing, tables = stored
        return cls(tuple(FileEntry(*f) for f in files), ids, attrs, _arrays(incoming),
                   _arrays(outgoing), tables)


def _csr(rows: dict[int, list[tuple[int, int, float]]], size: int
         ) -> tuple[array[int], array[int], array[int], array[float]]:
    offsets, others, kinds, weights = array("l", [0]), array("l"), array("b"), array("d")
    for i in range(size):
        for other, kind, weight in sorted(rows.get(i, ())):
            others.append(other)
            kinds.append(kind)
            weights.append(weight)
        offsets.append(len(others))
    return offsets, others, kinds, weights


def _arrays(raw: tuple[bytes, bytes, bytes, bytes]
            ) -> tuple[array[int], array[int], array[int], array[float]]:
    offsets, others, kinds, weights = array("l"), array("l"), array("b"), array("d")
    offsets.frombytes(raw[0])
    others.frombytes(raw[1])
    kinds.frombytes(raw[2])
    weights.frombytes(raw[3])
    return offsets, others, kinds, weights
