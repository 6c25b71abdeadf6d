"""Extractions of a tree → the symbol graph: nodes, and contains/inherits/imports/calls/tests edges.

Pure: no git, no I/O. The same inputs always give the same graph (sorted, rounded weights).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Collection, Container, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import blake2b
from .config import VALUE_WEIGHT
from .model import Extraction, FileEntry, Symbol
from .resolve import EXTERNAL, Resolver
from .tables import Tables

# Bump when graph building changes its output for the same extractions: graph.json's
# header and the stored view carry it (see graph_digest), so old ones are rebuilt.
GRAPH_VERSION = "8"

# When two kinds of edge join the same pair, the record keeps the most telling one.
EDGE_PRIORITY = ("inherits", "tests", "calls", "imports", "contains")
_CALLABLE_KINDS = frozenset({"function", "method", "class"})
_TEST_PREFIXES = {
    "python": ("test",),
    "go": ("Test", "Benchmark", "Example", "Fuzz"),
}


@dataclass
class Graph:
    """Nodes by id, edges by (source, target) → (kind, weight), and resolution counters."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[tuple[str, str], tuple[str, float]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)

    def add_edge(self, source: str, target: str, kind: str, weight: float) -> None:
        """Add or merge an edge; weights add up, the higher-priority kind wins."""
        if source == target:
            return
        old = self.edges.get((source, target))
        if old is not None:
            if EDGE_PRIORITY.index(old[0]) < EDGE_PRIORITY.index(kind):
                kind = old[0]
            weight += old[1]
        self.edges[(source, target)] = (kind, weight)


def graph_digest(extractor: str) -> str:
    """What graph.json's `extractor` field records: extraction and graph building versions."""
    return blake2b(f"{extractor}.{GRAPH_VERSION}".encode(), digest_size=8).hexdigest()


def is_test_file(path: str, lang: str) -> bool:
    """Whether a path is a test file by its language's conventions."""
    base = posixpath.basename(path)
    parts = path.split("/")[:-1]
    if lang == "python":
        return (base.startswith("test_") or base.endswith("_test.py") or base == "tests.py"
                or bool({"tests", "test"} & set(parts))) and base != "conftest.py"
    if lang == "go":
        return base.endswith("_test.go")
    if lang in ("javascript", "typescript", "tsx"):
        return ".test." in base or ".spec." in base or "__tests__" in parts
    if lang == "rust":
        return "tests" in parts
    if lang == "java":
        return "src/test/" in path or base.endswith(("Test.java", "Tests.java"))
    return False


def _is_test_symbol(symbol: Symbol, lang: str, test_file: bool, test_classes: set[str]) -> bool:
    if symbol.test:
        return True
    if not test_file:
        return False
    name = symbol.qualname.rpartition(".")[2]
    if symbol.kind == "class":
        return name.startswith("Test") or symbol.qualname in test_classes
    prefixes = _TEST_PREFIXES.get(lang)
    # unittest runs `runTest` as the test of a TestCase that defines no test* method
    runs = lang == "python" and symbol.kind == "method" and name == "runTest"
    if prefixes is None or not (name.startswith(prefixes) or runs):
        return False
    if symbol.kind == "function":
        return "." not in symbol.qualname  # a helper nested in a test is not collected
    # A test method of any class: pytest collects Test* classes and TestCase subclasses, and
    # unittest mixins hold test methods that their TestCase subclasses run.
    return symbol.kind == "method" and "." not in symbol.qualname.rpartition(".")[0]


def build(files: list[FileEntry], extractions: dict[str, Extraction]) -> Graph:
    """The whole symbol graph of one tree (files sorted by path; extractions keyed by path)."""
    tables = Tables.build(files, extractions)
    return build_part(tables, files, extractions, record_bases=True)


def build_part(tables: Tables, files: list[FileEntry], extractions: dict[str, Extraction],
               record_bases: bool = False, links_of: Collection[str] | None = None) -> Graph:
    """Nodes of `files` and every edge leaving them, resolved against the whole tree's tables.

    With `record_bases`, the base classes found are added to `tables.bases` (a full build);
    otherwise `tables.bases` must already be complete (an incremental update). With
    `links_of`, only those paths' import and call edges are resolved (another process
    resolves the rest).
    """
    graph = Graph()
    tests: dict[str, bool] = {}
    for entry in files:
        _add_nodes(graph, entry, extractions[entry.path], tests)
    plain = Resolver(tables, use_bases=False)
    for entry in files:
        for ref in extractions[entry.path].refs:
            if ref.kind == "inherit":
                source = source_node(entry.path, ref.scope, graph.nodes)
                found = plain.resolve(entry.path, "", ref.name)
                bases = [t.key for t, _ in found if t.kind == "symbol" and t.key != source]
                if record_bases and bases:
                    tables.bases[source] = sorted(set(tables.bases.get(source, [])) | set(bases))
                for base in bases:
                    graph.add_edge(source, base, "inherits", 1.0)
    resolver = Resolver(tables)
    for entry in files:
        if links_of is None or entry.path in links_of:
            _add_links(graph, resolver, entry, extractions[entry.path], tests)
    return graph


def split_by_refs(files: list[FileEntry], extractions: dict[str, Extraction]
                  ) -> tuple[list[FileEntry], list[FileEntry]]:
    """`files` in two runs with about as many references to resolve each."""
    total = sum(len(extractions[f.path].refs) for f in files)
    seen = 0
    for i, entry in enumerate(files):
        seen += len(extractions[entry.path].refs)
        if seen * 2 >= total:
            return files[:i + 1], files[i + 1:]
    return files, []


def nodes_of(files: Iterable[FileEntry], extractions: dict[str, Extraction]) -> set[str]:
    """The ids of the nodes of `files` (the sources of every edge their build adds)."""
    return set().union(*(node_ids(f.path, extractions[f.path]) for f in files))


def node_ids(path: str, extraction: Extraction) -> set[str]:
    """The ids of one file's nodes: the file's and its symbols'."""
    return {path, *(f"{path}::{s.qualname}" for s in extraction.symbols)}


def _add_links(graph: Graph, resolver: Resolver, entry: FileEntry, extraction: Extraction,
               tests: dict[str, bool]) -> None:
    """Import and call edges leaving one file's nodes."""
    for name, imports in sorted(resolver.bindings(entry.path).items()):
        if name == "*":
            continue
        for target, weight in resolver.follow(entry.path, imports, 0):
            if target.kind in ("file", "symbol"):
                graph.add_edge(entry.path, target.key, "imports", weight)
    for imp in resolver.bindings(entry.path).get("*", ()):
        module = resolver.modules.find(entry.path, imp.module)
        if module is not None and module.kind == "file":
            graph.add_edge(entry.path, module.key, "imports", 1.0)
    # `self.m(...)` is a call of self.m, and its `self.m` also reads as a value: count it once
    calls = {(scope, name, line) for kind, name, scope, line in extraction.refs if kind == "call"}
    sources: dict[str, tuple[str, str]] = {}  # scope → its source node and the edge kind
    external = unresolved = resolved = 0
    for kind, name, scope, line in extraction.refs:
        if kind != "call" and kind != "value":
            continue
        origin = sources.get(scope)
        if origin is None:
            source = source_node(entry.path, scope, graph.nodes)
            origin = sources[scope] = (source, "tests" if tests.get(source) else "calls")
        if kind == "value":
            if (scope, name, line) not in calls:
                _add_value(graph, resolver, entry.path, scope, name, *origin)
            continue
        found = resolver.resolve(entry.path, scope, name)
        if found == EXTERNAL:
            external += 1
            continue
        if not found:
            unresolved += 1
            continue
        resolved += 1
        source, edge = origin
        for target, weight in found:
            if target.kind in ("file", "symbol"):
                graph.add_edge(source, target.key, edge, weight)
    graph.counts += Counter({"calls": external + unresolved + resolved, "calls_external": external,
                             "calls_unresolved": unresolved, "calls_resolved": resolved})


def _add_value(graph: Graph, resolver: Resolver, path: str, scope: str, name: str,
               source: str, edge: str) -> None:
    """A function or class used as a value (a callback, a chosen implementation, a decorator)
    in `source`: whoever holds it may call it, so it counts as a weaker call (of kind
    `edge`). Only names that scopes, imports or attribute chains resolve count: most values
    are plain variables."""
    for target, weight in resolver.resolve(path, scope, name, guess=False):
        if target.kind != "symbol":
            continue
        owner, _, qual = target.key.rpartition("::")
        symbol = resolver.symbols[owner].get(qual)
        # the name must denote the definition itself: `self._src` holding a Source instance
        # is no use of the class Source
        if qual.rpartition(".")[2] != name.rpartition(".")[2]:
            continue
        if symbol is not None and symbol.kind in _CALLABLE_KINDS:
            graph.add_edge(source, target.key, edge, weight * VALUE_WEIGHT)


def file_node(path: str, lang: str, lines: int, status: str = "") -> dict[str, Any]:
    """The node record of a file."""
    node: dict[str, Any] = {"id": path, "kind": "file", "name": posixpath.basename(path),
                            "path": path, "start_line": 1, "end_line": lines, "lang": lang}
    if status:
        node["status"] = status
    if is_test_file(path, lang):
        node["test"] = True
    return node


def _add_nodes(graph: Graph, entry: FileEntry, extraction: Extraction,
               tests: dict[str, bool]) -> None:
    record = graph.nodes[entry.path] = file_node(entry.path, entry.lang, extraction.lines,
                                                 extraction.status)
    if extraction.status:
        graph.counts["status_" + extraction.status] += 1
    test_file = tests[entry.path] = bool(record.get("test"))
    test_classes = {r.scope for r in extraction.refs
                    if r.kind == "inherit" and r.name.endswith("TestCase")}
    for symbol in extraction.symbols:
        node_id = f"{entry.path}::{symbol.qualname}"
        parent, _, name = symbol.qualname.rpartition(".")
        node: dict[str, Any] = {
            "id": node_id, "kind": symbol.kind, "name": name, "path": entry.path,
            "start_line": symbol.start_line, "end_line": symbol.end_line,
            "signature": symbol.signature, "hash": symbol.hash,
        }
        if symbol.doc:
            node["doc"] = symbol.doc
        is_test = _is_test_symbol(symbol, entry.lang, test_file, test_classes)
        if is_test:
            node["test"] = True
        tests[node_id] = is_test
        graph.nodes[node_id] = node
        owner = f"{entry.path}::{parent}" if parent else entry.path
        graph.add_edge(owner if owner in graph.nodes else entry.path, node_id, "contains", 1.0)


def node_records(entry: FileEntry, extraction: Extraction) -> list[dict[str, Any]]:
    """The node records of one file: its own and its symbols'."""
    graph = Graph()
    _add_nodes(graph, entry, extraction, {})
    return list(graph.nodes.values())


def source_node(path: str, scope: str, nodes: Container[str]) -> str:
    """The node a reference belongs to: its innermost enclosing symbol among `nodes`, else
    the file."""
    while scope:
        node_id = f"{path}::{scope}"
        if node_id in nodes:
            return node_id
        scope = scope.rpartition(".")[0]
    return path
