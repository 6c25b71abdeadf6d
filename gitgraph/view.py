"""The graph as `gitgraph diff` reads it: node records and edges in both directions.

`View` is what ranking, test discovery and selection ask of a graph. `MemoryView` wraps a
freshly built Graph; `compactview.CompactView` is the same graph stored compactly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, Protocol

from .graph import Graph

Edge = tuple[str, str, float]  # (other node, kind, weight)
Arc = tuple[str, float, str]  # (other node, weighted weight, reason)
KINDS = ("contains", "calls", "imports", "inherits", "tests")
USES = tuple("uses:" + kind for kind in KINDS)


class View(Protocol):
    """What ranking and selection need from a graph."""

    def node(self, node_id: str) -> dict[str, Any] | None:
        """The node record, or None when there is no such node."""

    def incoming(self, node_id: str) -> list[Edge]:
        """Edges (source, kind, weight) into a node: who depends on it."""

    def outgoing(self, node_id: str) -> list[Edge]:
        """Edges (target, kind, weight) out of a node: what it depends on."""

    def dependent_tests(self, seeds: list[str], depth: int) -> list[tuple[str, int]]:
        """Test nodes from which a path of at most `depth` edges (through any nodes) leads
        to a seed, each with the length of the shortest: nearest first, in no particular
        order within a length."""

    def weighted(self, node_id: str, factors: Mapping[str, float], forward: float
                 ) -> list[Arc]:
        """Edges into a node as (source, factors[kind] × weight, kind) and, when `forward`
        is positive, edges out of it as (target, factors[kind] × weight × forward,
        "uses:" + kind); a kind without a factor has 0. In no particular order."""

    def arc_count(self, node_id: str, factors: Mapping[str, float], forward: float) -> int:
        """How many of `weighted`'s arcs have a positive weight (edge weights are positive),
        without making them."""

    def is_test(self, node_id: str) -> bool:
        """Whether the node exists and is a test (cheaper than `node()`)."""


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

    def dependent_tests(self, seeds: list[str], depth: int) -> list[tuple[str, int]]:
        seen = set(seeds)
        level = list(seeds)
        found: list[tuple[str, int]] = []
        for distance in range(1, depth + 1):
            reached = []
            for node in level:
                for source, _, _ in self._in.get(node, ()):
                    if source not in seen:
                        seen.add(source)
                        reached.append(source)
            found += [(node, distance) for node in reached if self.is_test(node)]
            level = reached
        return found

    def weighted(self, node_id: str, factors: Mapping[str, float], forward: float
                 ) -> list[Arc]:
        arcs = [(source, factors.get(kind, 0.0) * weight, kind)
                for source, kind, weight in self.incoming(node_id)]
        if forward > 0:
            arcs += [(target, factors.get(kind, 0.0) * weight * forward, "uses:" + kind)
                     for target, kind, weight in self.outgoing(node_id)]
        return arcs

    def arc_count(self, node_id: str, factors: Mapping[str, float], forward: float) -> int:
        return sum(1 for _, weight, _ in self.weighted(node_id, factors, forward) if weight > 0)

    def is_test(self, node_id: str) -> bool:
        return bool(self.graph.nodes.get(node_id, {}).get("test"))
