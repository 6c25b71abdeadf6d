"""Impacted test nodes → runnable test ids, best first.

pytest node ids (`path::Class::test`), Go `-run` patterns with their package, Rust test
names, JUnit `Class#method`, and test files for JavaScript/TypeScript. A Python test method
defined on a base class or mixin runs in every test subclass, so it is named there too.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections import deque
from typing import Any

from .languages import language_of as _language_of
from .rank import Ranking
from .view import View

# asked of the same few test files thousands of times per diff
language_of = functools.lru_cache(maxsize=4096)(_language_of)
# an id's rank, smallest first: minus its score, minus its class's share, depth, test node
Rank = tuple[float, float, int, str]
REACH_DEPTH = 6  # beyond the ranking's mass, tests this many dependency hops away still count
_JS = ("javascript", "typescript", "tsx")


def impacted_tests(view: View, ranking: Ranking, seeds: list[str],
                   class_weight: float = 0.0, name_weight: float = 0.0,
                   group_share: float = 2.0, limit: int | None = None) -> list[str]:
    """Runnable ids: tests the ranking reached by score, then tests only reachable, nearest first
    (the first `limit` of them: the same ids, found without naming every reachable test).

    A Python test file or class of which at least `group_share` of the tests are impacted is
    named once, at its best test's place, instead of test by test (`tests/test_x.py::TestY`
    runs all of TestY): a change that breaks hundreds of tests fits a few ids, and pytest runs
    at most 1 - `group_share` of each group's tests beyond the impacted ones. A share above 1
    names every test alone.
    """
    reached = _reachable(view, seeds)
    classes = Classes(view)  # class members, asked for by the ranked ids and by the groups

    def ranked(wanted: int | None) -> list[str]:
        return _ranked_ids(view, ranking, seeds, reached, classes, class_weight, name_weight,
                           wanted)

    if group_share > 1.0:
        return ranked(limit)
    groups = _Groups(view, classes, set(ranking.score).union(n for n, _ in reached),
                     group_share)
    if limit is None:
        return groups.apply(ranked(None))
    wanted = 2 * limit  # most ids a group stands for are near
    while True:  # grouping shortens the list: ask for more ids until `limit` entries remain
        ids = ranked(wanted)
        grouped = groups.apply(ids)
        if len(grouped) >= limit or len(ids) < wanted:
            return grouped[:limit]
        wanted *= 2


def _ranked_ids(view: View, ranking: Ranking, seeds: list[str],
                reached: list[tuple[str, int]], classes: Classes, class_weight: float,
                name_weight: float, limit: int | None) -> list[str]:
    """Every impacted test's ids, best first (the first `limit` of them).

    Reachability follows dependents (callers, tests, subclasses, importers, containers)
    from the changed symbols, so `pytest $(gitgraph diff --tests)` misses fewer tests
    than the ranking's cut-off alone would. A test class reached through its own body (a
    class attribute naming the changed code: `Cache = LRUCache`, data-driven `tests = [...]`)
    lists every test it runs, inherited ones included, at `class_weight` times that share of
    its score. A test named after a changed symbol (`test_decorator_repr` for `__repr__`,
    `test_lru_clear` for `clear`) has its score raised by `name_weight` times.
    """
    order: dict[str, Rank] = {}
    for node_id, value in ranking.score.items():
        if not view.is_test(node_id):  # most nodes reached are not: skip building their record
            continue
        _add(order, view, ranking, node_id, -value, 0)
        own = _own_share(ranking, node_id) * value * class_weight
        node = view.node(node_id) if own > 0 else None
        if node is not None and node["kind"] == "class":
            # within the class, tests with evidence of their own come first
            for key, method in class_tests(node, classes):
                _put(order, key, (-own, -ranking.score.get(method, 0.0), 0, method))
    names = [w for w in map(_seed_words, seeds) if w] if name_weight else []
    if limit is None or name_weight <= -1.0:  # (a factor <= 0: ranked ids no longer come first)
        for node_id, depth in reached:
            _add(order, view, ranking, node_id, 0.0, depth)
    else:
        _add_nearest(order, view, ranking, reached, limit, names)
    named: set[str] = set()  # also orders tests only reached (no score to raise) among equals
    if names:
        for key, (value, by_class, depth, test) in order.items():
            if _named(key.rpartition("::")[2], names):
                order[key] = (value * (1.0 + name_weight), by_class, depth, test)
                named.add(key)
    return [k for k, _ in sorted(order.items(),
                                 key=lambda kv: (kv[1][0], kv[0] not in named, kv[1], kv[0]))
            ][:limit]


class _Groups:
    """Python test files and classes named by one id when enough of their tests are impacted."""

    def __init__(self, view: View, classes: Classes, impacted: set[str], share: float) -> None:
        self.view = view
        self.classes = classes
        self.impacted = impacted  # test nodes (defining methods and functions)
        self.share = share
        self.whole: dict[str, bool] = {}  # group id → whether it stands for its tests

    def apply(self, ids: list[str]) -> list[str]:
        """`ids` with each id of a whole group replaced by the group's id at its first place
        (a file before its classes)."""
        result: list[str] = []
        named: set[str] = set()
        for test_id in ids:
            path, _, rest = test_id.partition("::")
            group = test_id
            if rest and language_of(path) == "python":
                owner = test_id.rpartition("::")[0]  # its class, or its file
                group = next((g for g in (path, owner) if self._is_whole(g)), test_id)
            if group not in named:
                named.add(group)
                result.append(group)
        return result

    def _is_whole(self, group: str) -> bool:
        if group not in self.whole:
            members = self._members(group)
            impacted = sum(method in self.impacted for method in members)
            self.whole[group] = len(members) > 1 and impacted >= self.share * len(members)
        return self.whole[group]

    def _members(self, group: str) -> list[str]:
        """The test node behind each test a group runs."""
        path, _, classes = group.partition("::")
        view = self.view
        if classes:
            node = view.node(f"{path}::{classes.replace('::', '.')}")
            if node is None or node["kind"] != "class":
                return []
            return [m for _, m in class_tests(node, self.classes)]
        members: list[str] = []
        for target, kind, _ in view.outgoing(path):
            node = view.node(target) if kind == "contains" and view.is_test(target) else None
            if node is None:
                continue
            if node["kind"] == "class":
                members.extend(m for _, m in class_tests(node, self.classes))
            elif node["kind"] == "function":
                members.append(target)
        return members


def _add_nearest(order: dict[str, Rank], view: View, ranking: Ranking,
                 reached: list[tuple[str, int]], limit: int, names: list[list[str]]) -> None:
    """The reached tests whose ids can be among the first `limit`.

    Reached ids rank after the ranked ones: first those named after a changed symbol, then
    those of a class with a share of the ranking's mass (by that share), then the others by
    depth, then by test node. An id's class is its test's own class or, for an inherited
    Python method, a subclass of it: only tests whose class is (a base of) a class with a
    share, or that are named after a changed symbol, can have ids of the first two kinds.
    Those are listed in full; of the others, at each depth only the nodes first in order
    until `order` holds `limit` ids (`reached` is in depth order: no deeper id of the third
    kind comes before those).
    """
    owners = _bases_of(view, [n for n in ranking.score
                              if _own_share(ranking, n) * ranking.score[n]])
    start = 0
    while start < len(reached):
        depth = reached[start][1]
        end = start
        while end < len(reached) and reached[end][1] == depth:
            end += 1
        plain = []
        for node_id, _ in reached[start:end]:
            if (_may_share(node_id, owners)
                    or _named(node_id.rpartition("::")[2].rpartition(".")[2], names)):
                _add(order, view, ranking, node_id, 0.0, depth)
            else:
                plain.append(node_id)
        for node_id in sorted(plain):
            if len(order) >= limit:
                break
            _add(order, view, ranking, node_id, 0.0, depth)
        start = end


def _named(test_name: str, names: list[list[str]]) -> bool:
    """Whether a test's own name (the last part of its ids) contains a changed symbol's."""
    lower = test_name.lower()  # each word is in it: most names are ruled out without a split
    if not any(all(word in lower for word in name) for name in names):
        return False
    words = _words(test_name)
    return any(_contains(words, name) for name in names)


def _bases_of(view: View, classes: list[str]) -> set[str]:
    """`classes` and every class they inherit from, directly or not."""
    found = set(classes)
    queue = deque(classes)
    while queue:
        for base, kind, _ in view.outgoing(queue.popleft()):
            if kind == "inherits" and base not in found:
                found.add(base)
                queue.append(base)
    return found


def _may_share(node_id: str, owners: set[str]) -> bool:
    """Whether a test node may name a class in `owners` in its ids (see `runnable`): a Python
    test's ids name its own class or (inherited methods) subclasses of it."""
    path, _, qual = node_id.rpartition("::")  # a qualified name holds no "::"
    if "::" in path or language_of(path) != "python":
        return True  # ids not made from the node's class: decided by `_add` itself
    return f"{path}::{qual.rpartition('.')[0]}" in owners


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_GENERIC = frozenset({"init", "new", "call", "main", "run", "setup", "test"})


def _words(name: str) -> list[str]:
    """`test_lru_clear` → [test, lru, clear]; `LRUCacheTest` → [lru, cache, test]."""
    return [w.lower() for w in _WORD.findall(name)]


def _seed_words(node_id: str) -> list[str]:
    """The words of a changed symbol's own name, or none when it says too little to match
    test names on (`__init__`, `run`, a file)."""
    if "::" not in node_id:
        return []
    words = _words(node_id.rpartition("::")[2].rpartition(".")[2])
    if not words or "".join(words) in _GENERIC or len("".join(words)) < 3:
        return []
    return words


def _contains(words: list[str], part: list[str]) -> bool:
    """Whether `part` occurs in `words` as a contiguous run."""
    n = len(part)
    return any(words[i:i + n] == part for i in range(len(words) - n + 1))


def _add(order: dict[str, Rank], view: View, ranking: Ranking, node_id: str, value: float,
         depth: int) -> None:
    """A test node's ids at its rank; ids of one inherited method are ordered by the score the
    class that runs each got through its own body (`Cache = LRUCache` in one subclass,
    `Cache = FIFOCache` in another)."""
    if not view.is_test(node_id):  # most nodes reached are not: skip building their record
        return
    node = view.node(node_id)
    if node is None or not node.get("test"):
        return
    for key in runnable(view, node):
        path, _, qual = key.partition("::")
        cls = f"{path}::{qual.rpartition('::')[0].replace('::', '.')}"
        share = -ranking.score.get(cls, 0.0) * _own_share(ranking, cls)
        _put(order, key, (value, share, depth, node_id))


def _put(order: dict[str, Rank], key: str, rank: Rank) -> None:
    if key not in order or rank < order[key]:
        order[key] = rank


_OWN_REASONS = ("calls", "tests")


def _own_share(ranking: Ranking, node_id: str) -> float:
    """The share of a node's incoming mass that came through its own references (not from
    its members, bases or subclasses)."""
    parts = ranking.parts.get(node_id)
    if not parts:
        return 0.0
    total = sum(parts.values())
    return sum(parts.get(k, 0.0) for k in _OWN_REASONS) / total if total > 0 else 0.0


class Classes:
    """Python classes' own attributes and bases, and whether they or their bases hold a test
    (kept across calls: test classes share their bases)."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.parts: dict[str, tuple[list[tuple[str, str, bool]], list[str]]] = {}
        self.tested: dict[str, bool] = {}

    def own(self, cls: str) -> tuple[list[tuple[str, str, bool]], list[str]]:
        """(name, node, whether a test method) of each attribute, sorted; the bases, sorted."""
        if cls not in self.parts:
            view = self.view
            members = sorted(t for t, kind, _ in view.outgoing(cls) if kind == "contains")
            self.parts[cls] = (
                [(m.rpartition(".")[2], m,
                  view.is_test(m) and (view.node(m) or {}).get("kind") == "method")
                 for m in members],
                sorted(base for base, kind, _ in view.outgoing(cls) if kind == "inherits"))
        return self.parts[cls]

    def has_tests(self, cls: str) -> bool:
        """Whether the class or a base of it defines a test method."""
        if cls not in self.tested:
            self.tested[cls] = False  # (an inheritance cycle ends here)
            members, bases = self.own(cls)
            self.tested[cls] = (any(test for _, _, test in members)
                                or any(self.has_tests(base) for base in bases))
        return self.tested[cls]


def class_tests(node: dict[str, Any], classes: Classes) -> list[tuple[str, str]]:
    """(runnable id, defining method) of every test method a Python test class runs: its own
    and those it inherits from its bases (the nearest definition of each name wins)."""
    if language_of(node["path"]) != "python":
        return []
    cls_path, _, cls_qual = node["id"].rpartition("::")
    prefix = f"{cls_path}::{cls_qual.replace('.', '::')}::"
    seen_names: set[str] = set()
    ids = []
    queue = deque([node["id"]])
    visited = {node["id"]}
    while queue:
        members, bases = classes.own(queue.popleft())
        for name, member, test in members:
            if name not in seen_names:  # any attribute of that name hides the bases' test
                seen_names.add(name)
                if test:
                    ids.append((prefix + name, member))
        for base in bases:  # (a base with no test anywhere above it adds no id)
            if base not in visited and classes.has_tests(base):
                visited.add(base)
                queue.append(base)
    return ids


def _reachable(view: View, seeds: list[str]) -> list[tuple[str, int]]:
    """Tests within REACH_DEPTH arcs of a seed with their distance, nearest first (the order
    within one distance does not matter: each id keeps its best rank)."""
    return view.dependent_tests(seeds, REACH_DEPTH)


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
