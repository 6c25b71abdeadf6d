"""Budgeted selection: which nodes, at which resolution, fit in N tokens of rendered output.

Changed symbols come first with their bodies (a diff hunk when the body is huge), shrinking to
signatures only when the budget forces it; then impacted nodes in rank order, each at the
richest resolution (body → signature → one line) that still fits. Costs are estimated per
node on the real renderer, and the final text is counted exactly: if it is over, nodes are
dropped from the end until it is not. `tokens_used <= budget`, always.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .errors import GitGraphError
from .model import Change, Impact, ImpactNode

BODY_SHARE = 0.5  # a changed body larger than this share of the budget is shown as a hunk
IMPACTED_BODY_SHARE = 0.2  # an impacted node's body may take at most this share
MAX_CANDIDATES = 300
# Impacted candidates come in rank order, so once this many in a row fit at no resolution
# the room left is smaller than what nodes need: the rest are not tried (each try renders
# the node and counts it) and count as omitted.
MAX_MISSES = 20

Render = Callable[[Impact], str]
Count = Callable[[str], int]


@dataclass(frozen=True)
class Sources:
    """Line access to both sides' files: new (head) and old (base) contents by path."""

    new: Mapping[str, list[str]]
    old: Mapping[str, list[str]]

    def body(self, node: Mapping[str, Any], old: bool = False) -> str:
        """The lines a node spans, from the head side (or the base side for removed nodes)."""
        lines = (self.old if old else self.new).get(node["path"], [])
        return "\n".join(lines[node["start_line"] - 1: node["end_line"]])


def hunk(before: str, after: str) -> str:
    """A unified diff of one symbol's old and new text."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after",
                                lineterm="", n=2)
    return "\n".join(list(diff)[2:])


@dataclass(frozen=True)
class Candidate:
    """A node with its resolutions, richest first: [(resolution, text)]."""

    node: dict[str, Any]
    score: float
    change: Change | None
    options: tuple[tuple[str, str], ...]
    why: tuple[str, ...]
    parts: tuple[tuple[str, float], ...] = ()
    path_from_seed: tuple[str, ...] = ()


def to_impact_node(c: Candidate, resolution: str, text: str) -> ImpactNode:
    """The public record of a candidate at one resolution (tokens filled in later)."""
    node = c.node
    kind = "test" if node.get("test") and node["kind"] in ("function", "method") else node["kind"]
    return ImpactNode(
        id=node["id"], kind=kind, name=node["name"], path=node["path"],
        start_line=node["start_line"], end_line=node["end_line"], score=round(c.score, 6),
        changed=c.change is not None, change=c.change.kind if c.change else None, tokens=0,
        why=c.why, text=text, resolution=resolution, signature=node.get("signature", ""),
        test=bool(node.get("test")), parts=c.parts, path_from_seed=c.path_from_seed,
    )


def select(frame: Impact, changed: list[Candidate], impacted: list[Candidate],
           edges: Mapping[tuple[str, str], str], render: Render, count: Count,
           tests_share: float, max_tests: int) -> Impact:
    """Fill `frame` (header, seeds, tests) with nodes under `frame.budget` tokens.

    Changed symbols are placed first, then as many of the ranked tests as fit in
    `tests_share` of the budget (and what the changed symbols left), then impacted nodes.
    """
    budget = frame.budget
    base = replace(frame, tests=())
    empty_cost = count(render(base))
    if empty_cost > budget:
        raise GitGraphError(f"budget {budget} is too small for the report frame "
                            f"({empty_cost} tokens; use -b {empty_cost + 200} or more)")

    # A node's cost is measured on the real renderer in a bare frame (nothing but the node),
    # which keeps each count small; the final text is counted exactly in _exact().
    bare = replace(base, seeds=(), tests=(), changed_files=(), untested=())
    bare_cost = count(render(bare))
    costs: dict[tuple[str, str], int] = {}

    def cost(c: Candidate, resolution: str, text: str) -> int:
        key = (c.node["id"], resolution)
        if key not in costs:
            one = replace(bare, nodes=(to_impact_node(c, resolution, text),))
            costs[key] = count(render(one)) - bare_cost
        return costs[key]

    def fits(c: Candidate, resolution: str, text: str, room: int) -> int | None:
        """The cost when it fits in `room`."""
        # No token of cl100k/o200k is longer than a few dozen characters on source code, so
        # a text this long cannot fit: skip tokenising it at all.
        if len(text) > room * 40:
            return None
        need = cost(c, resolution, text)
        return need if need <= room else None

    chosen: list[tuple[Candidate, str, str, int]] = []
    used = empty_cost
    for c in changed:  # richest resolution that fits; the last one (a line) always goes in
        last = c.options[-1]
        for resolution, text in c.options:
            share = budget * BODY_SHARE if resolution == "body" else budget - used
            need = fits(c, resolution, text, int(min(share, budget - used)))
            if need is None and (resolution, text) == last:
                need = cost(c, resolution, text)
            if need is not None:
                chosen.append((c, resolution, text, need))
                used += need
                break
    room = min(empty_cost + int(budget * tests_share), budget - (used - empty_cost))
    base = _fit_tests(frame, render, count, room, max_tests)
    used += count(render(base)) - empty_cost
    omitted: list[Candidate] = []
    misses = 0  # candidates in a row placed at no resolution
    for c in impacted[:MAX_CANDIDATES]:
        placed = False
        for resolution, text in c.options if misses < MAX_MISSES else ():
            room = budget - used
            if resolution == "body":
                room = min(room, int(budget * IMPACTED_BODY_SHARE))
            need = fits(c, resolution, text, room) if room > 0 else None
            if need is not None:
                chosen.append((c, resolution, text, need))
                used += need
                placed = True
                break
        misses = 0 if placed else misses + 1
        if not placed:
            omitted.append(c)
    # an estimate: a node's line as measured (else as the lines measured cost on average),
    # plus about four characters a token for its richest text
    lines = [n for (_, resolution), n in costs.items() if resolution == "line"] or [0]
    typical = sum(lines) // len(lines)
    omitted_tokens = sum(costs.get((c.node["id"], "line"), typical) + len(c.options[0][1]) // 4
                         for c in omitted)
    omitted_nodes = len(omitted) + max(len(impacted) - MAX_CANDIDATES, 0)
    return _exact(base, chosen, edges, render, count, omitted_nodes, omitted_tokens)


def _fit_tests(frame: Impact, render: Render, count: Count, room: int, most: int) -> Impact:
    """The frame with the longest prefix of its tests (at most `most`) that keeps the frame
    within `room` tokens. Tests are ranked best first, so a prefix keeps the best ones."""
    tests = frame.tests[:most]
    if count(render(replace(frame, tests=tests))) <= room:
        return replace(frame, tests=tests)
    low, high = 0, len(tests)  # the frame fits with `low` tests and not with `high`
    while high - low > 1:
        middle = (low + high) // 2
        if count(render(replace(frame, tests=tests[:middle]))) <= room:
            low = middle
        else:
            high = middle
    return replace(frame, tests=tests[:low])


def _exact(base: Impact, chosen: list[tuple[Candidate, str, str, int]],
           edges: Mapping[tuple[str, str], str], render: Render, count: Count,
           omitted_nodes: int, omitted_tokens: int) -> Impact:
    """Render for real and drop from the end (impacted nodes, then tests, then changed ones)
    until within budget."""
    chosen = list(chosen)
    while True:
        nodes = tuple(replace(to_impact_node(c, r, t), tokens=n) for c, r, t, n in chosen)
        ids = {n.id for n in nodes}
        kept = tuple(sorted((s, t, k) for (s, t), k in edges.items() if s in ids and t in ids))
        impact = replace(base, nodes=nodes, edges=kept, omitted_nodes=omitted_nodes,
                         omitted_tokens=omitted_tokens)
        impact, used = _settle(impact, render, count)
        if used <= base.budget:
            return impact
        if base.tests and not any(c.change is None for c, *_ in chosen):
            base = replace(base, tests=base.tests[:-1])  # tests go before a changed symbol
            continue
        if not chosen:
            raise GitGraphError(f"budget {base.budget} is too small ({used} tokens needed)")
        dropped = _drop_index(chosen)
        c, r, t, n = chosen.pop(dropped)
        omitted_nodes += 1
        omitted_tokens += n


def _drop_index(chosen: list[tuple[Candidate, str, str, int]]) -> int:
    """The last impacted node, else the last changed one."""
    for i in range(len(chosen) - 1, -1, -1):
        if chosen[i][0].change is None:
            return i
    return len(chosen) - 1


def _settle(impact: Impact, render: Render, count: Count) -> tuple[Impact, int]:
    """Make `tokens_used` equal the count of the text that reports it (a fixed point)."""
    used = impact.tokens_used
    for _ in range(6):
        actual = count(render(replace(impact, tokens_used=used)))
        if actual == used:
            break
        used = max(actual, used if _ > 3 else 0)
    final = replace(impact, tokens_used=used)
    return final, max(used, count(render(final)))
