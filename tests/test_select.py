"""Budgeted selection on hand-made candidates, counted on the real JSON renderer."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gitgraph import tokens
from gitgraph.model import Change, Impact
from gitgraph.render.json_format import render_json
from gitgraph.select import MAX_CANDIDATES, MAX_MISSES, Candidate, select

BODY = "def changed(x):\n" + "".join(f"    x = x + {i}  # step {i}\n" for i in range(25))


def node(node_id: str, lines: int = 3) -> dict[str, Any]:
    path, _, name = node_id.rpartition("::")
    return {"id": node_id, "kind": "function", "name": name, "path": path, "start_line": 1,
            "end_line": lines, "signature": f"def {name}(x):"}


def frame(budget: int, tests: int) -> Impact:
    return Impact(base="a" * 40, head="b" * 40, budget=budget, encoding="cl100k_base",
                  seeds=("lib.py::changed",), nodes=(), edges=(),
                  tests=tuple(f"tests/test_lib.py::test_case_number_{i}" for i in range(tests)))


def changed() -> Candidate:
    return Candidate(node("lib.py::changed", 26), 0.5, Change("lib.py::changed", "body"),
                     (("body", BODY), ("signature", "def changed(x):"), ("line", "")),
                     ("changed: body",))


def impacted(count: int) -> list[Candidate]:
    return [Candidate(node(f"lib.py::caller_{i}"), 0.1 / (i + 1), None,
                      (("body", f"def caller_{i}(x):\n    return changed(x)"), ("line", "")),
                      ("calls lib.py::changed",)) for i in range(count)]


def test_tests_take_their_share_after_the_changed_body() -> None:
    budget = 1000
    impact = select(frame(budget, 200), [changed()], impacted(30), {}, render_json,
                    tokens.count, tests_share=0.9, max_tests=200)
    text = render_json(impact)
    assert tokens.count(text) <= budget
    assert impact.nodes[0].resolution == "body"  # the tests never push the body out
    assert 0 < len(impact.tests) < 200
    # the longest prefix that fits: one more test id would go over the budget
    more = replace(impact, tests=frame(budget, 200).tests[: len(impact.tests) + 1])
    assert tokens.count(render_json(more)) > budget


def test_tests_share_bounds_the_list() -> None:
    small = select(frame(2000, 200), [changed()], impacted(30), {}, render_json,
                   tokens.count, tests_share=0.2, max_tests=200)
    large = select(frame(2000, 200), [changed()], impacted(30), {}, render_json,
                   tokens.count, tests_share=0.6, max_tests=200)
    assert 0 < len(small.tests) < len(large.tests)
    bare = tokens.count(render_json(replace(small, tests=(), nodes=(), edges=())))
    with_tests = tokens.count(render_json(replace(small, nodes=(), edges=())))
    assert with_tests - bare <= 0.2 * 2000
    assert len(large.nodes) < len(small.nodes)  # the tests' room came from impacted nodes
    capped = select(frame(2000, 200), [changed()], [], {}, render_json, tokens.count,
                    tests_share=0.6, max_tests=7)
    assert len(capped.tests) == 7


def test_a_full_budget_stops_trying_candidates_and_still_counts_them_omitted() -> None:
    """Once MAX_MISSES candidates in a row fit nowhere, the rest are not rendered and counted
    (each try costs both), yet every one of them is reported as omitted."""
    counted: list[str] = []

    def count(text: str) -> int:
        counted.append(text)
        return tokens.count(text)

    many = impacted(MAX_CANDIDATES)
    impact = select(frame(1000, 200), [changed()], many, {}, render_json, count,
                    tests_share=0.9, max_tests=200)
    placed = len(impact.nodes) - 1
    assert impact.omitted_nodes == MAX_CANDIDATES - placed
    # a line costs well over a token a character of its id: a sane estimate, never zero
    assert impact.omitted_tokens >= impact.omitted_nodes * 20
    tried = {text for text in counted if "caller_" in text}
    assert placed + MAX_MISSES <= len(tried) < placed + 3 * MAX_MISSES
