"""The stored view plus overlays ranks exactly like a full build of the head tree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ONE_BY_ONE, Repo

from gitgraph import git
from gitgraph.changes import parse_sides
from gitgraph.compactview import CompactView
from gitgraph.config import Config
from gitgraph.impact import Analysis, analyse, impacted_tests
from gitgraph.index import build_tree_graph, snapshot
from gitgraph.view import MemoryView

LIB = """\
class Base:
    def run(self):
        return self.step()

    def step(self):
        return 1


class Child(Base):
    def step(self):
        return helper(2)


def helper(x):
    return x * 2


def unused():
    return helper(0)
"""

USER = """\
from pkg.lib import Child, helper


def use():
    return Child().run() + helper(1)
"""

TESTS = """\
from pkg.lib import Child, helper
from pkg.user import use


def test_use():
    assert use() == 8


def test_helper():
    assert helper(1) == 2
"""


def run(repo: Repo, *revisions: str, fresh: bool) -> Analysis:
    if fresh:  # forget the stored view: a full build of the head tree
        for stored in (git.common_dir(repo.path) / "gitgraph").glob("view-*.bin"):
            stored.unlink()
    return analyse(repo.path, parse_sides(repo.path, list(revisions), False), ONE_BY_ONE)


def shown(node: dict[str, Any] | None) -> dict[str, Any]:
    """The node fields that ranking and rendering use."""
    assert node is not None
    return {k: node.get(k) for k in ("id", "kind", "name", "path", "start_line", "end_line",
                                     "signature", "test", "removed")}


def same_ranking(a: Analysis, b: Analysis) -> None:
    assert a.changes == b.changes
    assert a.ranking.score.keys() == b.ranking.score.keys()
    for node, value in a.ranking.score.items():
        assert b.ranking.score[node] == pytest.approx(value, rel=1e-9)
    assert impacted_tests(a) == impacted_tests(b)
    for node in a.ranking.score:
        assert shown(a.view.node(node)) == shown(b.view.node(node))
        assert sorted(a.view.incoming(node)) == sorted(b.view.incoming(node))
        assert sorted(a.view.outgoing(node)) == sorted(b.view.outgoing(node))
        assert sorted(a.view.dependent_tests([node], 6)) == sorted(
            b.view.dependent_tests([node], 6))
    assert any(a.view.dependent_tests([node], 6) for node in a.ranking.score)
    for factors in (a.weights, {**a.weights, "imports": 0.0}):
        for view in (a.view, b.view):
            for node in a.ranking.score:
                for forward in (0.0, 0.15):
                    made = view.weighted(node, factors, forward)
                    assert view.arc_count(node, factors, forward) == sum(
                        1 for _, weight, _ in made if weight > 0), (node, forward)


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/lib.py", LIB)
    repo.write("pkg/user.py", USER)
    repo.write("tests/test_user.py", TESTS)
    repo.commit("base")
    run(repo, "HEAD", fresh=True)  # stores the view of this tree
    return repo


@pytest.mark.parametrize(("edit", "resolved"), [
    # the same names and references: the stored edges stand, records move (line numbers)
    (lambda text: "# a new first line\n" + text.replace("return x * 2", "return x * 3"), False),
    # a new call: resolved again (the name tables are read)
    (lambda text: text.replace("return x * 2", "return x * 2 + len(unused.__name__)"), True),
    (lambda text: text.replace("return helper(2)", "return helper(2) + abs(3)"), True),
    # a call made once more (the extractor records a reference once per scope)
    (lambda text: text.replace("return helper(2)", "return helper(2) + helper(3)"), False),
])
def test_body_edit_is_overlaid(project: Repo, edit: Callable[[str], str], resolved: bool
                               ) -> None:
    project.write("pkg/lib.py", edit(LIB))
    overlaid = run(project, "HEAD", fresh=False)
    assert isinstance(overlaid.view, CompactView)
    assert (overlaid.view._tables is not None) == resolved
    full = run(project, "HEAD", fresh=True)
    same_ranking(overlaid, full)
    assert "tests/test_user.py::test_helper" in impacted_tests(overlaid)


def test_removed_symbol_is_a_ghost_with_its_callers(project: Repo) -> None:
    project.write("pkg/lib.py", LIB.replace("def helper(x):\n    return x * 2\n", ""))
    overlaid = run(project, "HEAD", fresh=False)
    full = run(project, "HEAD", fresh=True)
    ghost = overlaid.view.node("pkg/lib.py::helper")
    assert ghost is not None and ghost["removed"] is True
    callers = {s for s, kind, _ in overlaid.view.incoming("pkg/lib.py::helper")}
    assert callers == {s for s, kind, _ in full.view.incoming("pkg/lib.py::helper")}
    assert {"pkg/user.py::use", "pkg/lib.py::Child.step", "pkg/lib.py::unused",
            "tests/test_user.py::test_helper", "pkg/user.py"} <= callers
    assert impacted_tests(overlaid) == impacted_tests(full)


def test_interface_change_is_overlaid_on_the_files_that_mention_it(project: Repo) -> None:
    project.write("pkg/shine.py", "def shine(thing):\n    return thing.polish()\n")
    project.commit("a call nothing answers yet")
    run(project, "HEAD", fresh=True)
    # `polish` appears in lib.py: shine.py, unchanged, now calls it
    project.write("pkg/lib.py", LIB.replace("    def step(self):\n        return 1\n",
                                            "    def step(self):\n        return 1\n\n"
                                            "    def polish(self):\n        return 2\n", 1))
    overlaid = run(project, "HEAD", fresh=False)
    assert isinstance(overlaid.view, CompactView)  # laid over the stored view, not rebuilt
    full = run(project, "HEAD", fresh=True)
    same_ranking(overlaid, full)
    assert ("pkg/shine.py::shine", "calls", 0.5) in overlaid.view.incoming(
        "pkg/lib.py::Base.polish")


def test_added_and_deleted_files_are_overlaid(project: Repo) -> None:
    project.write("pkg/shine.py", "def shine(thing):\n    return thing.polish()\n")
    project.commit("a call nothing answers yet")
    run(project, "HEAD", fresh=True)
    project.write("pkg/cloth.py", "class Cloth:\n    def polish(self):\n        return 1\n")
    project.git("add", "pkg/cloth.py")  # `git diff` shows untracked files no more than gitgraph
    (project.path / "pkg/user.py").unlink()  # its test still imports `use` from it
    overlaid = run(project, "HEAD", fresh=False)
    assert isinstance(overlaid.view, CompactView)
    full = run(project, "HEAD", fresh=True)
    same_ranking(overlaid, full)
    assert ("pkg/shine.py::shine", "calls", 0.5) in overlaid.view.incoming(
        "pkg/cloth.py::Cloth.polish")
    ghost = overlaid.view.node("pkg/user.py::use")
    assert ghost is not None and ghost["removed"] is True
    assert "tests/test_user.py::test_use" in impacted_tests(overlaid)


def test_base_class_change_rebuilds(project: Repo) -> None:
    project.write("pkg/lib.py", LIB.replace("class Child(Base):", "class Child:"))
    rebuilt = run(project, "HEAD", fresh=False)
    assert not isinstance(rebuilt.view, CompactView)
    same_ranking(rebuilt, run(project, "HEAD", fresh=True))


def test_stored_view_reads_back_the_graph(project: Repo, tmp_path: Path) -> None:
    built = build_tree_graph(project.path, snapshot(project.path, rev="HEAD"), Config())
    stored = tmp_path / "view.bin"
    CompactView.from_graph(built.graph, built.files, built.tables).save(stored)
    view = CompactView.load(stored)
    assert view is not None
    memory = MemoryView(built.graph)
    assert view.ids == sorted(built.graph.nodes) and view.files == tuple(built.files)
    for node in [*built.graph.nodes, "pkg/absent.py::nothing"]:
        assert shown(view.node(node) or {}) == shown(memory.node(node) or {})
        assert view.node(node) is view.node(node)  # decoded once
        assert sorted(view.incoming(node)) == sorted(memory.incoming(node))
        assert sorted(view.outgoing(node)) == sorted(memory.outgoing(node))
        assert sorted(view.dependent_tests([node], 3)) == sorted(memory.dependent_tests([node], 3))
        for forward in (0.0, 0.3):
            assert (sorted(view.weighted(node, {"calls": 1.0, "imports": 0.5}, forward))
                    == sorted(memory.weighted(node, {"calls": 1.0, "imports": 0.5}, forward)))
        assert view.is_test(node) == memory.is_test(node) == bool(shown(memory.node(node)
                                                                          or {})["test"])
    assert ("tests/test_user.py::test_helper", 1) in view.dependent_tests(["pkg/lib.py::helper"], 3)
    assert view.tables == (dict(built.tables.by_name), dict(built.tables.methods),
                           dict(built.tables.bases))


@pytest.mark.parametrize("damage", [
    lambda raw: raw[: len(raw) // 2],  # torn write
    lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]),  # the last section (name tables)
    lambda raw: raw[:40] + bytes([raw[40] ^ 1]) + raw[41:],  # the section table
    lambda raw: raw[: len(raw) // 2] + bytes([raw[len(raw) // 2] ^ 4]) + raw[len(raw) // 2 + 1:],
    lambda raw: b"gitgraph-view\n1\n" + raw[16:],  # another layout version
], ids=["truncated", "bit-flip-tables", "bit-flip-header", "bit-flip-middle", "old-format"])
def test_damaged_view_is_rebuilt(project: Repo, damage: Callable[[bytes], bytes]) -> None:
    (stored,) = (git.common_dir(project.path) / "gitgraph").glob("view-*.bin")
    project.write("pkg/lib.py", LIB.replace("return x * 2", "return x * 3"))
    expected = run(project, "HEAD", fresh=True)
    stored.write_bytes(damage(stored.read_bytes()))
    assert CompactView.load(stored) is None
    same_ranking(run(project, "HEAD", fresh=False), expected)
    assert CompactView.load(stored) is not None  # stored again by the full build


def test_a_symbol_that_becomes_a_test_is_resolved_again(repo: Repo) -> None:
    """`#[test]` changes no name and no reference, but the edges from the function become
    `tests` edges: it is no body edit whose stored edges can stand."""
    source = "pub fn helper() -> u32 {\n    2\n}\n\nfn check() {\n    helper();\n}\n"
    repo.write("src/lib.rs", source)
    repo.commit("base")
    run(repo, "HEAD", fresh=True)
    repo.write("src/lib.rs", source.replace("fn check", "#[test]\nfn check"))
    overlaid = run(repo, "HEAD", fresh=False)
    full = run(repo, "HEAD", fresh=True)
    assert ("src/lib.rs::check", "tests", 1.0) in full.view.incoming("src/lib.rs::helper")
    same_ranking(overlaid, full)
