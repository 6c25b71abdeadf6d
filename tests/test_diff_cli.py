"""`gitgraph diff` end to end: revision arguments, formats, budgets, tests to run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from conftest import ONE_BY_ONE_YML, Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitgraph import tokens

LIB = '''\
"""Shapes and their areas."""


class Shape:
    """Something with an area."""

    def area(self) -> float:
        return 0.0

    def describe(self) -> str:
        return f"{type(self).__name__} of area {self.area()}"


class Square(Shape):
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


def total(shapes: list[Shape]) -> float:
    """Sum of the areas."""
    return sum(s.area() for s in shapes)
'''

TESTS = '''\
from shapes.lib import Square, total


def test_square():
    assert Square(2).area() == 4


def test_total():
    assert total([Square(1), Square(2)]) == 5


def test_describe():
    assert Square(1).describe() == "Square of area 1"
'''


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("shapes/__init__.py", "")
    repo.write("shapes/lib.py", LIB)
    repo.write("tests/test_lib.py", TESTS)
    repo.write(".gitgraph.yml", ONE_BY_ONE_YML)  # each test's place in the list is checked
    repo.commit("base")
    repo.write("shapes/lib.py", LIB.replace("return self.side * self.side",
                                            "return self.side ** 2"))
    repo.commit("square area")
    return repo


def test_json_contract(project: Repo) -> None:
    code, out, err = project.run_cli("diff", "HEAD~1", "-f", "json")
    assert code == 0, err
    impact = json.loads(out)
    assert list(impact)[:12] == ["schema", "base", "head", "budget", "tokens_used", "encoding",
                                 "seeds", "nodes", "edges", "tests", "omitted", "changed_files"]
    assert impact["schema"] == "gitgraph.impact/1"
    assert impact["head"] == "WORKTREE"
    assert impact["seeds"] == ["shapes/lib.py::Square.area"]
    assert impact["tokens_used"] == tokens.count(out.rstrip("\n") + "\n") <= impact["budget"]
    first = impact["nodes"][0]
    assert (first["id"], first["changed"], first["change"]) == (
        "shapes/lib.py::Square.area", True, "body")
    assert "self.side ** 2" in first["code"]
    ids = [n["id"] for n in impact["nodes"]]
    assert "tests/test_lib.py::test_square" in ids
    # the tests that call Square.area directly rank above the one that reaches it via describe
    assert set(impact["tests"][:2]) == {"tests/test_lib.py::test_square",
                                        "tests/test_lib.py::test_total"}
    assert impact["tests"][2:] == ["tests/test_lib.py::test_describe"]
    for node in impact["nodes"][1:]:
        assert node["changed"] is False and node["why"], node


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=150, max_value=3000),
       fmt=st.sampled_from(["json", "markdown", "yaml", "text", "claude-md"]))
def test_budget_is_never_exceeded(project: Repo, budget: int, fmt: str) -> None:
    code, out, err = project.run_cli("diff", "HEAD~1", "-f", fmt, "-b", str(budget))
    if code == 1:  # a budget below the frame's own size is refused, in one line
        assert "too small" in err and "Traceback" not in err
        return
    assert code == 0, err
    used = tokens.count(out)
    assert used <= budget, (fmt, budget, used)


def test_yaml_equals_json(project: Repo) -> None:
    # a budget that holds everything: yaml spends more tokens than json on the same nodes
    as_json = json.loads(project.run_cli("diff", "HEAD~1", "-f", "json", "-b", "9000")[1])
    as_yaml = yaml.safe_load(project.run_cli("diff", "HEAD~1", "-f", "yaml", "-b", "9000")[1])
    as_json.pop("tokens_used")
    as_yaml.pop("tokens_used")
    assert as_json.pop("budget") == as_yaml.pop("budget") == 9000
    for node in as_json["nodes"] + as_yaml["nodes"]:
        node.pop("tokens")
    assert as_json == as_yaml


def test_tests_are_runnable_by_pytest(project: Repo) -> None:
    code, out, _ = project.run_cli("diff", "HEAD~1", "--tests")
    assert code == 0
    ids = out.split()
    assert set(ids) == {"tests/test_lib.py::test_square", "tests/test_lib.py::test_total",
                        "tests/test_lib.py::test_describe"}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids],
                         cwd=project.path, capture_output=True, text=True, check=False)
    assert "3 passed" in ran.stdout, ran.stdout + ran.stderr


def test_explain_and_no_code(project: Repo) -> None:
    out = project.run_cli("diff", "HEAD~1", "-f", "json", "--explain", "--no-code")[1]
    impact = json.loads(out)
    assert all("code" not in node for node in impact["nodes"])
    test = next(n for n in impact["nodes"] if n["id"] == "tests/test_lib.py::test_square")
    assert test["explain"]["path"][0] == "shapes/lib.py::Square.area"
    assert test["explain"]["path"][-1] == "tests/test_lib.py::test_square"
    assert test["explain"]["parts"]


def test_no_changes(project: Repo) -> None:
    code, out, err = project.run_cli("diff")
    assert (code, out) == (0, "") and "no changes" in err
    code, out, err = project.run_cli("diff", "HEAD", "-f", "json")
    assert code == 0 and json.loads(out)["nodes"] == []


def test_binary_and_unsupported_files_are_changed_files(project: Repo) -> None:
    project.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x01")
    project.write("notes.txt", "hello\n")
    project.commit("assets")
    impact = json.loads(project.run_cli("diff", "HEAD~1", "-f", "json")[1])
    assert impact["changed_files"] == ["logo.png", "notes.txt"]
    assert impact["seeds"] == [] and impact["nodes"] == []


@pytest.mark.parametrize("args, message", [
    (["nope"], "unknown revision 'nope'"),
    (["HEAD", "HEAD", "HEAD"], "too many revisions"),
    (["-b", "0"], "budget must be positive"),
])
def test_bad_arguments_are_one_line(project: Repo, args: list[str], message: str) -> None:
    code, _, err = project.run_cli("diff", *args)
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_shallow_clone_missing_base(project: Repo) -> None:
    clone = project.path.parent / "shallow"
    project.git("clone", "-q", "--depth", "1", f"file://{project.path}", str(clone))
    code, out, err = project.gitgraph("diff", "HEAD~1", cwd=clone)
    assert code == 1 and "shallow" in err and "Traceback" not in err
