"""Impacted test nodes → runnable test ids, best first.

pytest node ids (`path::Class::test`), Go `-run` patterns with their package, Rust test
names, JUnit `Class#method`, and test files for JavaScript/TypeScript. A Python test method
defined on a base class or mixin runs in every test subclass, so it is named there too.
"""

from __future__ import annotations

import posixpath
from collections import deque
from typing import Any

from .languages import language_of
from .rank import Ranking
from .view import View

REACH_DEPTH = 6  # beyond the ranking's mass, tests this many dependency hops away still count
_JS = ("javascript", "typescript", "tsx")


def impacted_tests(view: View, ranking: Ranking, seeds: list[str]) -> list[str]:
    """Runnable ids: tests the ranking reached by score, then tests only reachable, nearest first.

    Reachability follows dependents (callers, tests, subclasses, importers, containers)
    from the changed symbols, so `pytest $(gitgraph diff --tests)` misses fewer tests
    than the ranking's cut-off alone would.
    """
    order: dict[str, tuple[float, int]] = {}
    for node_id, value in ranking.score.items():
        _add(order, view, node_id, (-value, 0))
    for node_id, depth in _reachable(view, seeds):
        _add(order, view, node_id, (0.0, depth))
    return [k for k, _ in sorted(order.items(), key=lambda kv: (kv[1], kv[0]))]


def _add(order: dict[str, tuple[float, int]], view: View, node_id: str,
         rank: tuple[float, int]) -> None:
    if not view.is_test(node_id):  # most nodes reached are not: skip building their record
        return
    node = view.node(node_id)
    if node is None or not node.get("test"):
        return
    for key in runnable(view, node):
        if key not in order or rank < order[key]:
            order[key] = rank


def _reachable(view: View, seeds: list[str]) -> list[tuple[str, int]]:
    seen = set(seeds)
    queue = deque((seed, 0) for seed in sorted(seeds))
    found = []
    while queue:
        node, depth = queue.popleft()
        if depth >= REACH_DEPTH:
            continue
        for source in sorted(view.sources(node)):  # the order of sorted incoming edges
            if source not in seen:
                seen.add(source)
                found.append((source, depth + 1))
                queue.append((source, depth + 1))
    return found


def runnable(view: View, node: dict[str, Any]) -> list[str]:
    """The ids that run a test node (several for an inherited Python test method)."""
    path = node["path"]
    lang = language_of(path)
    qual = node["id"].rpartition("::")[2]
    if lang in _JS:
        return [str(path)]
    if node["kind"] == "file" or lang is None:
        return [] if lang == "python" else [str(path)]  # a Python file alone is too coarse
    if lang == "python":
        if node["kind"] == "class":
            return []  # its methods are named one by one
        if node["kind"] == "method" and qual.count(".") == 1:
            return _inherited(view, node, qual)
        return [f"{path}::{qual.replace('.', '::')}"]
    if lang == "go":
        return [f"./{posixpath.dirname(path) or '.'} -run '^{node['name']}$'"]
    if lang == "rust":
        return [str(node["name"])]
    if lang == "java":
        return [qual.replace(".", "#", 1)]
    return [str(path)]


def _inherited(view: View, node: dict[str, Any], qual: str) -> list[str]:
    """`Class::method` for the defining class and each test subclass that does not override."""
    owner, method = qual.split(".")
    start = f"{node['path']}::{owner}"
    ids = []
    seen = {start}
    queue = deque([start])
    while queue:
        cls = queue.popleft()
        cls_node = view.node(cls)
        overridden = cls != start and view.node(f"{cls}.{method}") is not None
        if cls_node is not None and cls_node.get("test") and not overridden:
            cls_path, _, cls_qual = cls.rpartition("::")
            ids.append(f"{cls_path}::{cls_qual.replace('.', '::')}::{method}")
        if overridden:
            continue
        for sub, kind, _ in view.incoming(cls):
            if kind == "inherits" and sub not in seen:
                seen.add(sub)
                queue.append(sub)
    return ids
