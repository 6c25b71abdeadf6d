"""Which test ids `gitgraph diff --tests` lists, and in which order, on real repositories."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from textwrap import dedent

import pytest
from conftest import ONE_BY_ONE_YML, Repo

from gitgraph.changes import parse_sides
from gitgraph.config import parse
from gitgraph.impact import analyse, impacted_tests
from gitgraph.rank import Ranking

CACHES = '''\
class LRU:
    def get(self, key):
        return key


class FIFO:
    def get(self, key):
        return key
'''

MIXIN = '''\
class CacheMixin:
    def test_get(self):
        assert self.Cache().get(1) == 1
'''

SPECS = '''\
import unittest

from caches import FIFO, LRU


class Spec:
    def __init__(self, cls):
        self.cls = cls

    def check(self):
        return self.cls().get(2) == 2


class SpecCase(unittest.TestCase):
    specs: list[Spec] = []

    def runTest(self):
        for spec in self.specs:
            assert spec.check()


class TestLRUSpecs(SpecCase):
    specs = [Spec(LRU)]


class TestFIFOSpecs(SpecCase):
    specs = [Spec(FIFO)]
'''


def write(repo: Repo) -> None:
    repo.write(".gitgraph.yml", ONE_BY_ONE_YML)  # these tests are about the order of single tests
    repo.write("caches.py", CACHES)
    repo.write("tests/__init__.py", MIXIN)
    for name in ("LRU", "FIFO"):
        repo.write(f"tests/test_{name.lower()}.py", dedent(f'''\
            import unittest

            from caches import {name}

            from . import CacheMixin


            class {name}Test(unittest.TestCase, CacheMixin):
                Cache = {name}
            '''))
    repo.write("tests/test_specs.py", SPECS)
    repo.commit("caches and their tests")
    repo.write("caches.py", CACHES.replace("return key", "return key  # lru", 1)
               .replace("return key  # lru", "return None", 1))
    repo.commit("break LRU.get")


def test_test_classes_reached_through_their_own_body_list_their_tests(repo: Repo) -> None:
    write(repo)
    code, out, err = repo.run_cli("diff", "HEAD~1", "--tests")
    assert code == 0, err
    ids = out.split()
    # unittest's runTest is a test, named on the subclass whose `specs` name LRU
    lru_specs = "tests/test_specs.py::TestLRUSpecs::runTest"
    assert lru_specs in ids[:2]
    assert ids.index(lru_specs) < ids.index("tests/test_specs.py::TestFIFOSpecs::runTest")
    # the mixin's test runs in both subclasses: the one whose Cache is LRU comes first
    lru, fifo = "tests/test_lru.py::LRUTest::test_get", "tests/test_fifo.py::FIFOTest::test_get"
    assert lru in ids and fifo in ids
    assert ids.index(lru) < ids.index(fifo)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids],
                         cwd=repo.path, capture_output=True, text=True, check=False)
    assert "failed" in ran.stdout and "no tests ran" not in ran.stdout, ran.stdout
    failed = {line.split()[1] for line in ran.stdout.splitlines() if line.startswith("FAILED")}
    assert failed == {lru, "tests/test_specs.py::TestLRUSpecs::runTest"}, ran.stdout


def test_tests_named_after_the_change_come_first(repo: Repo) -> None:
    repo.write("store.py", "def clear(items):\n    items.clear()\n\n\ndef size(items):\n"
                           "    return len(items)\n")
    repo.write(".gitgraph.yml", ONE_BY_ONE_YML)
    repo.write("tests/test_store.py", dedent('''\
        from store import clear, size


        def test_a_size_after_emptying():
            items = [1]
            clear(items)
            assert size(items) == 0


        def test_clear_empties():
            items = [1]
            clear(items)
            assert size(items) == 0
        '''))
    repo.commit("store")
    repo.write("store.py", "def clear(items):\n    del items[:]\n\n\ndef size(items):\n"
                           "    return len(items)\n")
    code, out, err = repo.run_cli("diff", "--tests")
    assert code == 0, err
    # both call clear() the same way: the one named after it comes first
    assert out.split() == ["tests/test_store.py::test_clear_empties",
                           "tests/test_store.py::test_a_size_after_emptying"]


@pytest.mark.parametrize("group_share", [2.0, 0.9])
def test_a_limit_gives_the_first_ids_of_the_full_list(repo: Repo, group_share: float) -> None:
    # tests at several depths from the change, some reached through a class body and
    # inherited (ranked by their class's share), some only reachable; named one by one, or
    # (0.9) each file of them by one id
    write(repo)
    chain = "".join(f"def step{i}(key):\n    return step{i - 1}(key)\n\n\n" for i in range(1, 5))
    repo.write("chain.py", "from caches import LRU\n\n\ndef step0(key):\n"
                           "    return LRU().get(key)\n\n\n" + chain)
    for i in range(5):
        repo.write(f"tests/test_step{i}.py", dedent(f'''\
            import unittest

            from chain import step{i}

            from . import CacheMixin


            class Step{i}Test(unittest.TestCase, CacheMixin):
                def test_a(self):
                    assert step{i}(1) == 1

                def test_b(self):
                    assert step{i}(2) == 2


            def test_step{i}():
                assert step{i}(3) == 3
            '''))
    # named after the changed `get`, at the far end of the chain: it ranks before nearer
    # tests that are only reachable, so a limit must not cut it off by depth
    repo.write("tests/test_far.py", "from chain import step3\n\n\ndef test_get_far_away():\n"
                                    "    assert step3(5) == 5\n")
    repo.commit("a chain of callers and their tests")
    repo.write("caches.py", CACHES.replace("return key", "return key + 0", 1))
    config = parse({"weights": {"test_group_share": group_share}})
    analysis = analyse(repo.path, parse_sides(repo.path, ["HEAD"], False), config)
    everything = impacted_tests(analysis)
    assert len(everything) > (15 if group_share > 1 else 5)
    assert ("tests/test_step4.py" in everything) is (group_share <= 1)
    far = everything.index("tests/test_far.py::test_get_far_away")
    assert all("get" not in t for t in everything[far + 1:])
    assert everything[far + 1:] or group_share <= 1  # (grouped, the files come before it)
    for limit in range(len(everything) + 2):
        assert impacted_tests(analysis, limit) == everything[:limit], limit
    # with no score beyond the seeds every test is only reachable: ordered by depth, except
    # the one named after `get`, which leads wherever it is
    seeds_only = replace(analysis, ranking=Ranking({c.node: 1.0 for c in analysis.changes},
                                                   {}, {}))
    everything = impacted_tests(seeds_only)
    named = [t for t in everything if "get" in t.rpartition("::")[2]]
    assert "tests/test_far.py::test_get_far_away" in named
    if group_share > 1:  # (grouped, a file of tests named after `get` takes their place)
        assert everything[:len(named)] == named
    for limit in range(len(everything) + 2):
        assert impacted_tests(seeds_only, limit) == everything[:limit], limit


GROUPED = '''\
import unittest

from shapes import area, perimeter


class Checks:  # a mixin: its test runs in each test class that inherits it
    def test_area_positive(self):
        assert area(2) > 0


class TestArea(unittest.TestCase, Checks):
    def test_one(self):
        assert area(1) == 1

    def test_two(self):
        assert area(2) == 4


class TestMixed(unittest.TestCase):
    def test_area(self):
        assert area(3) == 9

    def test_perimeter(self):
        assert perimeter(3) == 12


def test_area_zero():
    assert area(0) == 0
'''


def pytest_selects(repo: Repo, ids: list[str]) -> set[str]:
    """The tests pytest collects for these ids."""
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only",
                          "-p", "no:cacheprovider", *ids],
                         cwd=repo.path, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return {line for line in ran.stdout.splitlines() if "::" in line}


ALONE_IDS = ["tests/test_shapes.py::TestArea::test_area_positive",
             "tests/test_shapes.py::TestArea::test_one", "tests/test_shapes.py::TestArea::test_two",
             "tests/test_shapes.py::TestMixed::test_area", "tests/test_shapes.py::test_area_zero"]


@pytest.mark.parametrize(("group_share", "expected"), [
    (2.0, ALONE_IDS),
    # TestArea's tests (one inherited) are all impacted, TestMixed's half, the file's 5 of 6
    (1.0, ["tests/test_shapes.py::TestArea", "tests/test_shapes.py::TestMixed::test_area",
           "tests/test_shapes.py::test_area_zero"]),
    (0.8, ["tests/test_shapes.py"]),
])
def test_a_test_class_or_file_enough_of_whose_tests_are_impacted_is_named_once(
        repo: Repo, group_share: float, expected: list[str]) -> None:
    repo.write("shapes.py", "def area(side):\n    return side * side\n\n\n"
                            "def perimeter(side):\n    return 4 * side\n")
    repo.write("tests/__init__.py", "")
    repo.write("tests/test_shapes.py", GROUPED)
    repo.commit("shapes and their tests")
    repo.write("shapes.py", "def area(side):\n    return side ** 2\n\n\n"
                            "def perimeter(side):\n    return 4 * side\n")
    config = parse({"weights": {"test_group_share": group_share}})
    analysis = analyse(repo.path, parse_sides(repo.path, [], False), config)
    # impacted: the tests that depend on area(), not test_perimeter (in a graph this small
    # the ranking gives every test some score: keep the seeds' alone)
    analysis = replace(analysis, ranking=Ranking({c.node: 1.0 for c in analysis.changes}, {}, {}))
    ids = impacted_tests(analysis)
    assert sorted(ids) == sorted(expected)
    selected = pytest_selects(repo, ids)
    assert len(selected) == (6 if group_share < 1 else 5)
    # a share of 1 only shortens the list: pytest runs exactly the tests named one by one
    if group_share == 1.0:
        assert selected == pytest_selects(repo, ALONE_IDS)
