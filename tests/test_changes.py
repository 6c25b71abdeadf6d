"""Changed symbols from real git diffs: matched by name and hash, not by hunk lines."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import ONE_BY_ONE, Repo

from gitgraph import git
from gitgraph.changes import parse_sides
from gitgraph.config import Config
from gitgraph.errors import GitGraphError
from gitgraph.git import TreeEntry
from gitgraph.impact import analyse, impacted_tests
from gitgraph.index import snapshot

LIB = '''\
def helper(x):
    return x + 1


def compute(x):
    """Add one, twice."""
    return helper(helper(x))


class Shape:
    def area(self):
        return 0

    def describe(self):
        return f"area {self.area()}"
'''

TESTS = '''\
from pkg.lib import compute, Shape


def test_compute():
    assert compute(1) == 3


def test_shape():
    assert Shape().describe() == "area 0"
'''


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/lib.py", LIB)
    repo.write("pkg/user.py", "from .lib import compute\n\n\ndef use():\n    return compute(2)\n")
    repo.write("tests/test_lib.py", TESTS)
    repo.commit("base")
    return repo


def changes_of(repo: Repo, *revisions: str, staged: bool = False) -> dict[str, tuple[str, bool]]:
    analysis = analyse(repo.path, parse_sides(repo.path, list(revisions), staged), Config())
    return {c.node: (c.kind, c.cosmetic) for c in analysis.changes}


def test_line_shift_is_not_a_change(project: Repo) -> None:
    text = LIB.replace("def helper(x):\n    return x + 1\n",
                       "import os\n\n\ndef helper(x):\n    return x + 2\n")
    project.write("pkg/lib.py", text)
    found = changes_of(project, "HEAD")
    # helper's body changed; compute and Shape moved down three lines but did not change
    assert found == {"pkg/lib.py::helper": ("body", False), "pkg/lib.py": ("body", False)}


def test_kinds_signature_body_added_removed(project: Repo) -> None:
    text = (LIB.replace("def compute(x):", "def compute(x, y=0):")
            .replace("        return 0\n", "        return 1\n")
            .replace("    def describe(self):\n        return f\"area {self.area()}\"\n",
                     "    def perimeter(self):\n        return 4\n"))
    project.write("pkg/lib.py", text)
    found = changes_of(project, "HEAD")
    assert found == {
        "pkg/lib.py::compute": ("signature", False),
        "pkg/lib.py::Shape.area": ("body", False),
        "pkg/lib.py::Shape.describe": ("removed", False),
        "pkg/lib.py::Shape.perimeter": ("added", False),
    }


SHARED = '''\
from typing import overload


@overload
def item(value: int) -> int: ...


@overload
def item(value: str) -> str: ...


def item(value):
    return value


class Engine:
    @property
    def number(self):
        return self._n

    @number.setter
    def number(self, value):
        self._n = value

    def other(self):
        return 1
'''


def test_overloads_and_property_setters_are_one_symbol(project: Repo) -> None:
    project.write("pkg/shared.py", SHARED)
    project.commit("shared names")
    project.write("pkg/shared.py", SHARED.replace("        self._n = value\n",
                                                  "        self._n = int(value)\n")
                  .replace("    return value\n", "    return [value]\n"))
    assert changes_of(project, "HEAD") == {"pkg/shared.py::item": ("body", False),
                                           "pkg/shared.py::Engine.number": ("body", False)}
    code, out, err = project.run_cli("diff", "HEAD", "-f", "json")
    assert code == 0, err
    nodes = {n["id"]: n for n in json.loads(out)["nodes"]}
    # each body shown spans every definition of its name, the changed one included
    assert "self._n = int(value)" in nodes["pkg/shared.py::Engine.number"]["code"]
    assert "return [value]" in nodes["pkg/shared.py::item"]["code"]
    assert (nodes["pkg/shared.py::item"]["start_line"],
            nodes["pkg/shared.py::item"]["end_line"]) == (4, 13)


def test_comment_only_change_is_cosmetic(project: Repo) -> None:
    project.write("pkg/lib.py", LIB.replace("    return x + 1\n",
                                            "    # one more\n    return x  +  1\n"))
    assert changes_of(project, "HEAD") == {"pkg/lib.py::helper": ("body", True)}


def test_removed_symbol_keeps_its_callers(project: Repo) -> None:
    project.write("pkg/lib.py", LIB.replace('def compute(x):\n    """Add one, twice."""\n'
                                            "    return helper(helper(x))\n", ""))
    analysis = analyse(project.path, parse_sides(project.path, ["HEAD"], False), ONE_BY_ONE)
    assert {c.node: c.kind for c in analysis.changes} == {"pkg/lib.py::compute": "removed"}
    ghost = analysis.view.node("pkg/lib.py::compute")
    assert ghost is not None
    assert ghost.get("removed") is True
    # the callers of the removed function are found, and broken
    assert analysis.ranking.score.get("pkg/user.py::use", 0) > 0
    assert "tests/test_lib.py::test_compute" in impacted_tests(analysis)


def test_rename_matches_symbols_across_paths(project: Repo) -> None:
    project.git("mv", "pkg/user.py", "pkg/consumer.py")
    project.commit("rename")
    found = changes_of(project, "HEAD~1", "HEAD")
    assert found == {"pkg/consumer.py": ("signature", False)}


def test_revision_semantics(project: Repo) -> None:
    base = project.git("rev-parse", "HEAD").strip()
    project.write("pkg/lib.py", LIB.replace("return 0", "return 2"))
    project.git("add", "pkg/lib.py")
    project.write("pkg/lib.py", LIB.replace("return 0", "return 3").replace("x + 1", "x + 9"))
    area = {"pkg/lib.py::Shape.area": ("body", False)}
    both = {**area, "pkg/lib.py::helper": ("body", False)}
    assert changes_of(project) == both  # worktree vs index: both lines differ from staged
    assert changes_of(project, staged=True) == area  # index vs HEAD
    assert changes_of(project, "HEAD") == both  # worktree vs HEAD
    project.git("commit", "-q", "-m", "area")
    head = project.git("rev-parse", "HEAD").strip()
    assert changes_of(project, base, head) == area
    assert changes_of(project, f"{base}..{head}") == area
    project.git("checkout", "--", "pkg/lib.py")
    project.git("checkout", "-q", "-b", "side", base)
    project.write("pkg/user.py", "def use():\n    return 0\n")
    project.commit("side")
    # A...B: from the merge base, so main's change to area does not show up
    assert changes_of(project, "main...side") == {"pkg/user.py::use": ("body", False),
                                                    "pkg/user.py": ("body", False)}
    assert changes_of(project, "side...main") == area


def test_tests_of_a_change_are_ranked(project: Repo) -> None:
    project.write("pkg/lib.py", LIB.replace("return 0", "return 7"))
    analysis = analyse(project.path, parse_sides(project.path, ["HEAD"], False), ONE_BY_ONE)
    assert impacted_tests(analysis)[0] == "tests/test_lib.py::test_shape"


def test_unknown_revision_is_one_line(project: Repo, tmp_path: Path) -> None:
    with pytest.raises(GitGraphError, match="unknown revision 'nope'"):
        parse_sides(project.path, ["nope"], False)
    with pytest.raises(GitGraphError, match="too many revisions"):
        parse_sides(project.path, ["HEAD", "HEAD", "HEAD"], False)


def _regular(entries: tuple[TreeEntry, ...]) -> list[TreeEntry]:
    return [e for e in entries if e.mode in ("100644", "100755")]


def test_a_revision_against_the_work_tree_sees_the_files_a_second_walk_sees(
        project: Repo) -> None:
    """The head tree of `diff REV` (REV's tree with the diff laid over it) has the entries
    of the work tree as the index and a second walk give them, in every state a work tree
    can be in: edited, staged then edited again, back to REV's text, deleted, renamed,
    added with intent to add, executable, conflicted."""
    project.write("pkg/gone.py", "def gone():\n    return 1\n")
    project.write("pkg/moved.py", "def moved():\n    return 1\n" * 20)
    project.commit("more")
    project.write("pkg/user.py", "def use():\n    return 3\n")
    project.commit("user")
    project.write("pkg/lib.py", LIB.replace("return 0", "return 5"))  # edited, unstaged
    project.write("pkg/user.py", "def use():\n    return 4\n")
    project.git("add", "pkg/user.py")
    project.write("pkg/user.py", "def use():\n    return 3\n")  # staged, then back to HEAD's
    (project.path / "pkg/gone.py").unlink()  # deleted, unstaged
    project.git("mv", "pkg/moved.py", "pkg/renamed.py")  # renamed, staged
    project.write("pkg/new.py", "def new():\n    return 1\n")
    project.git("add", "-N", "pkg/new.py")  # intent to add
    project.write("run.py", "print(1)\n")
    (project.path / "run.py").chmod(0o755)
    project.git("add", "run.py")
    for revision in ("HEAD", "HEAD~1", "HEAD~2"):
        head = parse_sides(project.path, [revision], False).head_tree.entries
        assert _regular(head) == _regular(snapshot(project.path).entries), revision
    assert ("100755", "run.py") in {(e.mode, e.path) for e in head}
    project.commit("all of it")  # then a conflicted path: its text, markers included
    project.git("checkout", "-q", "-b", "other", "HEAD~1")
    project.write("pkg/user.py", "def use():\n    return 'other'\n")
    project.commit("other")
    project.git("checkout", "-q", "main")
    project.write("pkg/user.py", "def use():\n    return 'main'\n")
    project.commit("main")
    project.git("merge", "-q", "other", check=False)
    assert "<<<<<<<" in project.read("pkg/user.py").decode()
    for revision in ("HEAD", "HEAD~1"):
        head = parse_sides(project.path, [revision], False).head_tree.entries
        assert _regular(head) == _regular(snapshot(project.path).entries), revision


def test_only_changed_source_files_are_read(project: Repo, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    """A changed data file (graph.json changes in every commit the hook makes) is listed as
    changed and never read: reading both sides of a 33 MB graph.json took 0.35 s."""
    project.write("data/big.json", '{"a": 1}\n' * 1000)
    project.commit("data")
    project.write("data/big.json", '{"a": 2}\n' * 1000)
    project.write("pkg/lib.py", LIB.replace("return 0", "return 4"))
    project.commit("both")
    read: list[str] = []
    real = git.read_blobs

    def spy(root: Path, blobs: Iterable[str]) -> dict[str, bytes]:
        blobs = list(blobs)
        read.extend(blobs)
        return real(root, blobs)

    monkeypatch.setattr(git, "read_blobs", spy)
    analysis = analyse(project.path, parse_sides(project.path, ["HEAD~1", "HEAD"], False),
                       Config())
    assert "data/big.json" in analysis.changed_paths
    assert {c.node for c in analysis.changes} == {"pkg/lib.py::Shape.area"}
    big = {project.git("rev-parse", f"{rev}:data/big.json").strip() for rev in ("HEAD~1", "HEAD")}
    assert read and not big & set(read)
