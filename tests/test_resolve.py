"""Name resolution on small real Python packages, through the real extractor and git."""

from __future__ import annotations

import json
import posixpath
import shutil
from pathlib import Path
from textwrap import dedent
from typing import TYPE_CHECKING

from hypothesis import given, settings
from hypothesis import strategies as st

from gitgraph import config as config_mod
from gitgraph.graph import Graph
from gitgraph.index import build_tree_graph, snapshot
from gitgraph.tables import python_module_name, python_modules

if TYPE_CHECKING:
    from conftest import Repo

GRAPH = ".gitgraph/graph.json"
FLASK = Path(__file__).parent / "data" / "flask"

Edges = dict[tuple[str, str], tuple[str, float]]  # (source, target) -> (kind, weight)


def index(repo: Repo, files: dict[str, str]) -> Edges:
    """Commit `files`, index HEAD, return every edge but `contains`."""
    for path, text in files.items():
        repo.write(path, dedent(text))
    repo.commit("code")
    code, _, err = repo.run_cli("index", "--rev", "HEAD")
    assert code == 0, err
    graph = json.loads(repo.read(GRAPH))
    return {(link["source"], link["target"]): (link["kind"], link.get("weight", 1.0))
            for link in graph["links"] if link["kind"] != "contains"}


def out_of(edges: Edges, source: str, kind: str | None = None) -> dict[str, float]:
    """Targets of `source` (of one kind, or calls/tests) with their weights."""
    kinds = {kind} if kind else {"calls", "tests"}
    return {t: w for (s, t), (k, w) in edges.items() if s == source and k in kinds}


def graph_of(repo: Repo) -> Graph:
    return build_tree_graph(repo.path, snapshot(repo.path, rev="HEAD"),
                            config_mod.load(repo.path)).graph


F = "def f():\n    return 1\n"


# -- imports -----------------------------------------------------------------------------------


def test_import_dotted_module_then_call_through_it(repo: Repo) -> None:
    edges = index(repo, {
        "a/__init__.py": "",
        "a/b.py": F,
        "main.py": """\
            import a.b

            def g():
                return a.b.f()
            """,
    })
    assert out_of(edges, "main.py::g") == {"a/b.py::f": 1.0}
    assert edges[("main.py::g", "a/b.py::f")] == ("calls", 1.0)
    assert out_of(edges, "main.py", "imports") == {"a/__init__.py": 1.0}


def test_import_dotted_module_as_alias(repo: Repo) -> None:
    edges = index(repo, {
        "a/__init__.py": "",
        "a/b.py": F,
        "main.py": """\
            import a.b as x

            def g():
                return x.f()
            """,
    })
    assert out_of(edges, "main.py::g") == {"a/b.py::f": 1.0}
    assert out_of(edges, "main.py", "imports") == {"a/b.py": 1.0}


def test_relative_from_import_with_alias(repo: Repo) -> None:
    edges = index(repo, {
        "pkg/__init__.py": "",
        "pkg/m.py": F,
        "pkg/user.py": """\
            from .m import f as g

            def h():
                return g()
            """,
    })
    assert out_of(edges, "pkg/user.py::h") == {"pkg/m.py::f": 1.0}
    assert out_of(edges, "pkg/user.py", "imports") == {"pkg/m.py::f": 1.0}


def test_parent_relative_import_of_a_module(repo: Repo) -> None:
    edges = index(repo, {
        "pkg/__init__.py": "",
        "pkg/m.py": F,
        "pkg/sub/__init__.py": "",
        "pkg/sub/user.py": """\
            from .. import m

            def h():
                return m.f()
            """,
    })
    assert out_of(edges, "pkg/sub/user.py::h") == {"pkg/m.py::f": 1.0}
    assert out_of(edges, "pkg/sub/user.py", "imports") == {"pkg/m.py": 1.0}


def test_star_import(repo: Repo) -> None:
    edges = index(repo, {
        "pkg/__init__.py": "",
        "pkg/tools.py": F + "\n\ndef other():\n    return 2\n",
        "user.py": """\
            from pkg.tools import *

            def h():
                return f()
            """,
    })
    assert out_of(edges, "user.py::h") == {"pkg/tools.py::f": 1.0}
    assert out_of(edges, "user.py", "imports") == {"pkg/tools.py": 1.0}


def test_reexport_through_package_init(repo: Repo) -> None:
    edges = index(repo, {
        "pkg/__init__.py": "from .impl import f\n",
        "pkg/impl.py": F,
        "user.py": """\
            import pkg

            def h():
                return pkg.f()
            """,
    })
    assert out_of(edges, "user.py::h") == {"pkg/impl.py::f": 1.0}
    assert out_of(edges, "pkg/__init__.py", "imports") == {"pkg/impl.py::f": 1.0}


def test_package_init_importing_its_own_submodule(repo: Repo) -> None:
    # `from . import keys` in pkg/__init__.py leads back to pkg/__init__.py: the submodule
    edges = index(repo, {
        "pkg/__init__.py": "from . import keys\n",
        "pkg/keys.py": F,
        "pkg/func.py": """\
            from . import keys

            def g():
                return keys.f()
            """,
    })
    assert out_of(edges, "pkg/func.py::g") == {"pkg/keys.py::f": 1.0}


# -- values ------------------------------------------------------------------------------------


def test_functions_used_as_values(repo: Repo) -> None:
    edges = index(repo, {
        "pkg/__init__.py": "",
        "pkg/keys.py": F + "\n\ndef typed():\n    return 2\n",
        "pkg/use.py": """\
            import re
            from pkg import keys


            def decorate(func):
                return func


            class Engine:
                def unitsub(self, match):
                    return "x"

                def enword(self, text):
                    return re.sub("[0-9]", self.unitsub, text)


            def chooser(typed):
                key = keys.typed if typed else keys.f
                return key


            def defaults(key=keys.f):
                return key()


            @decorate
            def decorated():
                return 1


            def variables(f, typed):
                return sorted([f, typed], key=len)
            """,
    })
    value = config_mod.VALUE_WEIGHT
    assert out_of(edges, "pkg/use.py::Engine.enword") == {"pkg/use.py::Engine.unitsub": value}
    assert out_of(edges, "pkg/use.py::chooser") == {"pkg/keys.py::typed": value,
                                                   "pkg/keys.py::f": value}
    assert out_of(edges, "pkg/use.py::defaults") == {"pkg/keys.py::f": value}
    assert out_of(edges, "pkg/use.py::decorated") == {"pkg/use.py::decorate": value}
    # plain variables named like functions elsewhere are not guessed to be them
    assert out_of(edges, "pkg/use.py::variables") == {}


def test_properties_read_through_self(repo: Repo) -> None:
    edges = index(repo, {
        "engine.py": """\
            class Engine:
                @property
                def args(self):
                    return self._args

                @args.setter
                def args(self, value):
                    self._args = value

                def helper(self):
                    return 1

                def words(self, n):
                    self.args = {}
                    return self.args.get(n) or self.helper()
            """,
    })
    # a property read or set is a (weaker) call; a called method stays one call
    assert out_of(edges, "engine.py::Engine.words") == {
        "engine.py::Engine.args": 2 * config_mod.VALUE_WEIGHT, "engine.py::Engine.helper": 1.0}


# -- classes -----------------------------------------------------------------------------------


BASE = """\
class Base:
    def inherited(self):
        return 1

    def hook(self):
        return 2
"""
CHILD = """\
from base import Base


class Child(Base):
    def own(self):
        return 3

    def run(self):
        return self.own() + self.inherited()

    @classmethod
    def make(cls):
        return cls.build()

    @classmethod
    def build(cls):
        return cls()

    def hook(self):
        return super().hook()
"""


def test_self_cls_and_super_calls(repo: Repo) -> None:
    edges = index(repo, {"base.py": BASE, "child.py": CHILD})
    assert edges[("child.py::Child", "base.py::Base")] == ("inherits", 1.0)
    assert out_of(edges, "child.py::Child.run") == {"child.py::Child.own": 1.0,
                                                    "base.py::Base.inherited": 1.0}
    assert out_of(edges, "child.py::Child.make") == {"child.py::Child.build": 1.0}
    assert out_of(edges, "child.py::Child.hook") == {"base.py::Base.hook": 1.0}


def test_inherited_method_through_two_modules_and_aliased_base(repo: Repo) -> None:
    edges = index(repo, {
        "lib/__init__.py": "",
        "lib/base.py": BASE,
        "lib/middle.py": "from lib import base as b\n\n\nclass Middle(b.Base):\n    pass\n",
        "app.py": """\
            from lib.middle import Middle

            class Leaf(Middle):
                def go(self):
                    return self.inherited()
            """,
    })
    assert edges[("lib/middle.py::Middle", "lib/base.py::Base")] == ("inherits", 1.0)
    assert edges[("app.py::Leaf", "lib/middle.py::Middle")] == ("inherits", 1.0)
    assert out_of(edges, "app.py::Leaf.go") == {"lib/base.py::Base.inherited": 1.0}


# -- names without an import -------------------------------------------------------------------


def test_global_names_without_import(repo: Repo) -> None:
    edges = index(repo, {
        "one.py": "def unique():\n    return 1\n\n\ndef twice():\n    return 1\n",
        "two.py": "def twice():\n    return 2\n",
        "c1.py": "def crowded():\n    return 1\n",
        "c2.py": "def crowded():\n    return 1\n",
        "c3.py": "def crowded():\n    return 1\n",
        "c4.py": "def crowded():\n    return 1\n",
        "caller.py": """\
            def uses_unique():
                return unique()

            def uses_twice():
                return twice()

            def uses_builtin():
                return len([])

            def uses_crowded():
                return crowded()
            """,
        "local.py": "def crowded():\n    return 3\n\n\ndef mine():\n    return crowded()\n",
    })
    assert out_of(edges, "caller.py::uses_unique") == {"one.py::unique": 1.0}
    assert out_of(edges, "caller.py::uses_twice") == {"one.py::twice": 0.5, "two.py::twice": 0.5}
    assert out_of(edges, "caller.py::uses_builtin") == {}
    assert out_of(edges, "caller.py::uses_crowded") == {}  # 4 candidates: no evidence
    assert out_of(edges, "local.py::mine") == {"local.py::crowded": 1.0}  # own module first

    counts = graph_of(repo).counts
    assert counts["calls"] == 5  # 4 in caller.py, 1 in local.py
    assert (counts["calls_resolved"], counts["calls_external"], counts["calls_unresolved"]) == (
        3, 1, 1)


# -- tests -------------------------------------------------------------------------------------


def test_test_recognition_and_tests_edges(repo: Repo) -> None:
    edges = index(repo, {
        "lib.py": F + "\n\ndef helper_target():\n    return 2\n",
        "tests/test_lib.py": """\
            import unittest

            from lib import f, helper_target

            def test_plain():
                assert f() == 1

            def helper():
                return helper_target()

            class TestGroup:
                def test_method(self):
                    assert f() == 1

            class LibCase(unittest.TestCase):
                def test_case(self):
                    self.assertEqual(f(), 1)

                def setUp(self):
                    helper_target()
            """,
        "src/checks.py": "from lib import f\n\n\ndef test_like():\n    return f()\n",
    })
    graph = json.loads(repo.read(GRAPH))
    tests = sorted(n["id"] for n in graph["nodes"] if n.get("test") and n["kind"] != "file")
    assert tests == ["tests/test_lib.py::LibCase", "tests/test_lib.py::LibCase.test_case",
                     "tests/test_lib.py::TestGroup", "tests/test_lib.py::TestGroup.test_method",
                     "tests/test_lib.py::test_plain"]
    for test in ("test_plain", "TestGroup.test_method", "LibCase.test_case"):
        assert edges[(f"tests/test_lib.py::{test}", "lib.py::f")] == ("tests", 1.0)
    assert edges[("tests/test_lib.py::helper", "lib.py::helper_target")] == ("calls", 1.0)
    assert edges[("tests/test_lib.py::LibCase.setUp", "lib.py::helper_target")] == (
        "calls", 1.0)
    assert edges[("src/checks.py::test_like", "lib.py::f")] == ("calls", 1.0)


# -- real code: flask 3.1.0 --------------------------------------------------------------------


def test_flask_url_for_calls_resolve_through_the_reexport(repo: Repo) -> None:
    shutil.copytree(FLASK, repo.path, dirs_exist_ok=True)
    edges = index(repo, {})
    url_for = "src/flask/helpers.py::url_for"
    init = "src/flask/__init__.py"

    assert edges[(init, url_for)] == ("imports", 1.0)  # from .helpers import url_for as url_for
    assert edges[("tests/test_helpers.py", init)] == ("imports", 1.0)  # import flask
    callers = {s: kind_weight for (s, t), kind_weight in edges.items() if t == url_for
               and s != init}
    # every test method that calls flask.url_for(...), once per call
    assert callers == {
        "tests/test_helpers.py::TestUrlFor.test_url_for_with_anchor": ("tests", 1.0),
        "tests/test_helpers.py::TestUrlFor.test_url_for_with_scheme": ("tests", 1.0),
        "tests/test_helpers.py::TestUrlFor.test_url_for_with_scheme_not_external": (
            "tests", 2.0),
        "tests/test_helpers.py::TestUrlFor.test_url_for_with_alternating_schemes": (
            "tests", 3.0),
        "tests/test_helpers.py::TestUrlFor.test_url_with_method": ("tests", 3.0),
        "tests/test_helpers.py::TestUrlFor.test_url_for_with_self": ("tests", 1.0),
    }
    graph = json.loads(repo.read(GRAPH))
    node = {n["id"]: n for n in graph["nodes"]}[url_for]
    assert node["kind"] == "function" and node["start_line"] == 188


# -- attributes that hold classes ---------------------------------------------------------------


def test_attributes_holding_classes(repo: Repo) -> None:
    edges = index(repo, {
        "pkg/__init__.py": "",
        "pkg/src.py": """\
            class Source:
                def mark(self):
                    return 1


            class Parser:
                kind = Source

                def __init__(self):
                    self._src = Source()

                def run(self):
                    return self._src.mark()

                def again(self):
                    return self.kind().mark()
            """,
        "tests/__init__.py": """\
            class Mixin:
                def test_make(self):
                    assert self.Made()
            """,
        "tests/test_made.py": """\
            import unittest
            from pkg.src import Parser
            from . import Mixin


            class ParserTest(unittest.TestCase, Mixin):
                Made = Parser
            """,
    })
    assert out_of(edges, "pkg/src.py::Parser.run") == {"pkg/src.py::Source.mark": 1.0}
    assert "pkg/src.py::Source" in out_of(edges, "pkg/src.py::Parser.again")
    # the mixin's self.Made() is the class each TestCase subclass sets
    assert out_of(edges, "tests/__init__.py::Mixin.test_make") == {"pkg/src.py::Parser": 1.0}


def test_attributes_naming_functions(repo: Repo) -> None:
    # a class attribute that is a function itself (not what calling it returned)
    edges = index(repo, {
        "keys.py": "def hashkey(x):\n    return x\n\n\ndef lru(n):\n    return n\n",
        "tests/__init__.py": "",
        "tests/test_keys.py": """\
            import keys
            from keys import hashkey


            class Mixin:
                def test_decorate(self):
                    assert self.DECORATOR(1)

                def test_key(self):
                    assert self.key(1)


            class TestLRU(Mixin):
                DECORATOR = staticmethod(keys.lru)
                key = hashkey
                made = hashkey(2)

                def test_made(self):
                    return self.made.real
            """,
    })
    assert out_of(edges, "tests/test_keys.py::Mixin.test_decorate") == {"keys.py::lru": 1.0}
    assert out_of(edges, "tests/test_keys.py::Mixin.test_key") == {"keys.py::hashkey": 1.0}
    # what a function returned is unknown: no edge from its attributes
    assert out_of(edges, "tests/test_keys.py::TestLRU.test_made") == {}


def test_attributes_naming_each_other_do_not_loop(repo: Repo) -> None:
    # A.x holds what B.y holds, which holds what A.x holds: Django has such class attributes
    edges = index(repo, {
        "loop.py": """\
            class A:
                x = B.y

                def go(self):
                    return self.x.go()


            class B:
                y = A.x
                z = B
            """,
    })
    assert "loop.py::A.go" not in {s for s, _ in edges}  # nothing to resolve to, and no crash


_SEGMENTS = st.sampled_from(["a", "b", "pkg", "sub"])
_NAMES = st.sampled_from(["__init__.py", "mod.py", "mod.pyi", "__init__.pyi", "x.py"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(_SEGMENTS, max_size=4), _NAMES), max_size=25))
def test_python_modules_names_each_file_as_python_module_name_does(
        files: list[tuple[list[str], str]]) -> None:
    """The per-directory memo of python_modules gives the names of a plain walk up the
    `__init__.py` chain of each path (python_module_name, one path, agrees)."""
    paths = sorted({"/".join([*dirs, name]) for dirs, name in files})
    expected: dict[str, str] = {}
    for path in paths:
        name = _walked_module_name(path, set(paths))
        assert python_module_name(path, set(paths)) == name
        if name:
            expected.setdefault(name, path)
    assert python_modules(paths) == expected


def _walked_module_name(path: str, present: set[str]) -> str:
    """The reference rule: a file's dotted name takes in each directory above it for as
    long as that directory holds an `__init__.py`."""
    parts = path[: -len(posixpath.splitext(path)[1])].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    start = len(parts) - 1
    while start > 0 and "/".join(parts[:start]) + "/__init__.py" in present:
        start -= 1
    return ".".join(parts[start:]) if parts else ""
