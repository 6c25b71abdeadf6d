"""Indexing real git repositories: determinism, incremental == full, cache, config, merges."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gitgraph.extract
import gitgraph.index
from gitgraph import config as config_mod
from gitgraph import git, store
from gitgraph.cache import MAX_PACKS, pack_table
from gitgraph.extract import extract
from gitgraph.graph import build
from gitgraph.index import (
    CHUNK_MIN_BYTES,
    Report,
    _chunks,
    load_extractions,
    snapshot,
    source_files,
)

if TYPE_CHECKING:
    from conftest import Repo

GITGRAPH = shutil.which("gitgraph", path=str(Path(sys.executable).parent)) or "gitgraph"

GRAPH = ".gitgraph/graph.json"

LIB = """\
def helper(x):
    return x + 1


def unused():
    return 0
"""
APP = """\
from lib import helper


class App:
    def run(self):
        return helper(1)
"""
TEST_APP = """\
from app import App


def test_run():
    assert App().run() == 2
"""


def small_project(repo: Repo) -> None:
    repo.write("lib.py", LIB)
    repo.write("app.py", APP)
    repo.write("tests/test_app.py", TEST_APP)
    repo.write("README.md", "not source\n")
    repo.write(".gitignore", ".gitgraph/\n")  # graph.json stays out of these histories


def load_graph(repo: Repo, path: str = GRAPH) -> dict:
    return json.loads(repo.read(path))


def links(graph: dict) -> set[tuple[str, str, str]]:
    return {(link["kind"], link["source"], link["target"]) for link in graph["links"]}


class ParseCounter:
    """Counts blobs parsed in this process (every extraction passes through skip_reason)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = gitgraph.extract.skip_reason

        def counting(source: bytes, max_bytes: int) -> str:
            self.count += 1
            return real(source, max_bytes)

        monkeypatch.setattr(gitgraph.extract, "skip_reason", counting)

    def take(self) -> int:
        """Parses since the last call."""
        count, self.count = self.count, 0
        return count


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> ParseCounter:
    return ParseCounter(monkeypatch)


def cold_build(root: Path, staged: bool = True) -> bytes:
    """graph.json bytes of the index (or work tree), every blob extracted: no cache involved."""
    config = config_mod.load(root)
    tree = snapshot(root, staged=staged)
    files = source_files(tree, config, Report())
    blobs = git.read_blobs(root, [f.blob for f in files])
    extractions = {f.path: extract(blobs[f.blob], f.lang, config.max_file_bytes) for f in files}
    return store.render(build(files, extractions), files, config)


def cache_report(repo: Repo) -> Report:
    """What loading the work tree's extractions costs now (parsed vs cached)."""
    config = config_mod.load(repo.path)
    tree = snapshot(repo.path)
    report = Report()
    files = source_files(tree, config, report)
    load_extractions(repo.path, tree, files, config, report)
    return report


# -- determinism -------------------------------------------------------------------------------


def test_reindexing_gives_identical_bytes_and_parses_nothing(repo: Repo, tmp_path: Path) -> None:
    small_project(repo)
    repo.commit("init")

    code, _, err = repo.run_cli("index")
    assert code == 0
    assert "3 files (3 parsed, 0 cached)" in err
    first = repo.read(GRAPH)

    code, _, err = repo.run_cli("index")
    assert code == 0
    assert "3 files (0 parsed, 3 cached)" in err
    assert repo.read(GRAPH) == first
    report = cache_report(repo)
    assert (report.extracted, report.cached, report.files) == (0, 3, 3)

    # a cold cache and another checkout location give the same bytes
    shutil.rmtree(repo.path / ".git" / "gitgraph" / "cache")
    code, _, err = repo.run_cli("index")
    assert "(3 parsed, 0 cached)" in err
    assert repo.read(GRAPH) == first
    clone = tmp_path / "elsewhere"
    repo.git("clone", "-q", str(repo.path), str(clone))
    assert repo.at(clone).run_cli("index")[0] == 0
    assert (clone / GRAPH).read_bytes() == first


def test_graph_json_shape_one_sorted_record_per_line(repo: Repo) -> None:
    small_project(repo)
    repo.commit("init")
    repo.run_cli("index")
    raw = repo.read(GRAPH).decode("utf-8")
    graph = json.loads(raw)

    assert graph["directed"] is True and graph["multigraph"] is False
    assert set(graph["graph"]) == {"encoding", "extractor", "files", "format"}
    assert graph["graph"]["format"] == "gitgraph/1"
    assert [f["path"] for f in graph["graph"]["files"]] == ["app.py", "lib.py",
                                                           "tests/test_app.py"]
    ids = [n["id"] for n in graph["nodes"]]
    assert ids == sorted(ids)
    assert "app.py::App.run" in ids and "lib.py::helper" in ids
    pairs = [(link["source"], link["target"]) for link in graph["links"]]
    assert pairs == sorted(pairs)
    assert ("tests", "tests/test_app.py::test_run", "app.py::App.run") in links(graph)
    assert ("calls", "app.py::App.run", "lib.py::helper") in links(graph)

    # one record per line: every file, node and link record stands alone on its line
    records = [line.rstrip(",") for line in raw.splitlines() if line.startswith('{"')
               and not line.startswith('{"directed"')]
    assert len(records) == len(graph["graph"]["files"]) + len(graph["nodes"]) + len(
        graph["links"])
    assert all(isinstance(json.loads(r), dict) for r in records)

    # nothing machine-specific
    assert str(repo.path) not in raw and "/tmp" not in raw
    assert not re.search(r"\d{4}-\d\d-\d\dT|\b1[67]\d{8}\b", raw)


def test_networkx_loads_graph_json(repo: Repo) -> None:
    small_project(repo)
    repo.commit("init")
    repo.run_cli("index")
    data = load_graph(repo)
    graph = nx.node_link_graph(data, edges="links")
    assert graph.is_directed()
    assert graph.number_of_nodes() == len(data["nodes"]) == 8
    assert graph.number_of_edges() == len(data["links"])
    assert graph.edges["tests/test_app.py::test_run", "app.py::App.run"]["kind"] == "tests"
    assert graph.nodes["lib.py::helper"]["start_line"] == 1


# -- incremental update ------------------------------------------------------------------------


def assert_update_equals_full(repo: Repo, tmp_path: Path, parses: ParseCounter) -> int:
    """`update --staged` == `index --staged` == `index --rev HEAD` == a cold build; → parsed."""
    parses.take()
    code, _, err = repo.run_cli("update", "--staged")
    assert code == 0, err
    parsed = parses.take()
    updated = repo.read(GRAPH)
    full = tmp_path / "full.json"
    at_head = tmp_path / "head.json"
    assert repo.run_cli("index", "--staged", "-o", str(full))[0] == 0
    assert repo.run_cli("index", "--rev", "HEAD", "-o", str(at_head))[0] == 0
    assert updated == full.read_bytes() == at_head.read_bytes() == cold_build(repo.path)
    return parsed


def test_update_equals_full_rebuild_through_history(
    repo: Repo, tmp_path: Path, parses: ParseCounter
) -> None:
    small_project(repo)
    repo.commit("init")
    assert assert_update_equals_full(repo, tmp_path, parses) == 3

    repo.write("lib.py", LIB.replace("x + 1", "x + 2"))  # body edit
    repo.commit("edit")
    assert assert_update_equals_full(repo, tmp_path, parses) == 1

    repo.git("mv", "lib.py", "util.py")  # rename: same blob, parsed already
    repo.write("app.py", APP.replace("from lib", "from util"))
    repo.commit("rename")
    assert assert_update_equals_full(repo, tmp_path, parses) == 1
    assert ("calls", "app.py::App.run", "util.py::helper") in links(load_graph(repo))

    repo.git("rm", "-q", "tests/test_app.py")
    repo.commit("delete")
    assert assert_update_equals_full(repo, tmp_path, parses) == 0
    assert "tests/test_app.py" not in {n["id"] for n in load_graph(repo)["nodes"]}

    repo.git("revert", "--no-edit", "HEAD")  # the deleted file comes back, blob cached
    assert assert_update_equals_full(repo, tmp_path, parses) == 0
    assert ("tests", "tests/test_app.py::test_run", "app.py::App.run") in links(
        load_graph(repo))

    repo.git("revert", "--no-edit", "HEAD~2")  # undo the rename
    assert assert_update_equals_full(repo, tmp_path, parses) == 0
    assert ("calls", "app.py::App.run", "lib.py::helper") in links(load_graph(repo))


def test_update_reparses_exactly_the_changed_blobs(
    repo: Repo, tmp_path: Path, parses: ParseCounter
) -> None:
    for i in range(6):
        repo.write(f"pkg/m{i}.py", f"def f{i}():\n    return {i}\n")
    repo.write("pkg/user.py", "from pkg.m0 import f0\n\n\ndef use():\n    return f0()\n")
    repo.commit("init")
    assert "7 files (7 parsed, 0 cached)" in repo.run_cli("update", "--staged")[2]
    assert parses.take() == 7

    repo.write("pkg/m0.py", "def f0():\n    return 'body only'\n")  # same interface
    repo.commit("body")
    assert assert_update_equals_full(repo, tmp_path, parses) == 1

    repo.write("pkg/m0.py", "def f0():\n    return 'edited'\n")  # edited
    repo.write("pkg/m1.py", "def f1():\n    return 'edited too'\n")  # edited
    repo.write("pkg/new.py", "def g():\n    return 9\n")  # added
    repo.git("mv", "pkg/m2.py", "pkg/moved.py")  # renamed, unchanged content
    repo.git("rm", "-q", "pkg/m3.py")  # deleted
    repo.write("pkg/copy.py", "def f4():\n    return 4\n")  # same bytes as m4.py
    repo.commit("mixed")
    assert assert_update_equals_full(repo, tmp_path, parses) == 3

    # up to date now: nothing parsed, nothing written, nothing said
    before = (repo.path / GRAPH).stat().st_mtime_ns
    parses.take()
    assert repo.run_cli("update", "--staged") == (0, "", "")
    assert (repo.path / GRAPH).stat().st_mtime_ns == before
    assert parses.take() == 0
    assert cache_report(repo).extracted == 0


SHOP = {
    "shop/__init__.py": "",
    "shop/models.py": """\
class Item:
    def price(self):
        return 1

    def label(self):
        return str(self.price())
""",
    "shop/special.py": """\
from shop.models import Item


class Special(Item):
    def price(self):
        return super().price() * 2

    def describe(self):
        return self.label()
""",
    "shop/api.py": """\
from shop import models
from shop.special import Special


def total(items):
    return sum(item.price() for item in items)


def make():
    return Special()
""",
    "tests/test_shop.py": """\
from shop.api import make, total


def test_total():
    assert total([make()]) == 2
""",
}
BODY_EDITS = [
    ("shop/models.py", "        return 1\n", "        return 3\n"),
    ("shop/api.py", "    return sum(item.price() for item in items)\n",
     "    extra = models.Item().label()\n    return sum(i.price() for i in items) + make()\n"),
    ("tests/test_shop.py", "    assert total([make()]) == 2\n",
     "    assert make().describe() == total([])\n"),
    ("shop/special.py", "        return self.label()\n", "        return self.price()\n"),
    ("shop/special.py", "        return super().price() * 2\n", "        return 2\n"),
]


def test_body_only_commits_are_spliced_and_equal_a_full_build(
    repo: Repo, tmp_path: Path, parses: ParseCounter
) -> None:
    for path, text in SHOP.items():
        repo.write(path, text)
    repo.commit("shop")
    assert repo.run_cli("update", "--staged")[0] == 0
    for path, old, new in BODY_EDITS:
        text = repo.read(path).decode()
        assert old in text
        repo.write(path, text.replace(old, new))
        repo.commit(f"edit {path}")
        parses.take()
        code, _, err = repo.run_cli("update", "--staged")
        assert code == 0
        assert "incrementally" in err, (path, err)  # the splice path, not a rebuild
        assert parses.take() == 1
        spliced = repo.read(GRAPH)
        assert spliced == cold_build(repo.path), path
        assert repo.run_cli("index", "--rev", "HEAD", "-o", str(tmp_path / "full.json"))[0] == 0
        assert spliced == (tmp_path / "full.json").read_bytes()
    graph = load_graph(repo)
    assert ("tests", "tests/test_shop.py::test_total", "shop/special.py::Special.describe") in (
        links(graph))
    assert ("calls", "shop/special.py::Special.describe", "shop/special.py::Special.price") in (
        links(graph))
    assert ("calls", "shop/special.py::Special.price", "shop/models.py::Item.price") not in (
        links(graph))


# Interface changes, each followed by `update`: (path, old text, new text, spliced?). The
# splice must reach every file whose resolution changes, through names only.
INTERFACE_EDITS = [
    # a method added to a base class: `self.discount()` in the subclass now resolves to it
    ("shop/special.py", "    def describe(self):\n",
     "    def cheap(self):\n        return self.discount()\n\n    def describe(self):\n", True),
    ("shop/models.py", "    def label(self):\n",
     "    def discount(self):\n        return 0\n\n    def label(self):\n", True),
    # a re-export under an alias: `shop/api.py` names `Thing`, `shop/alias.py` binds it
    ("shop/alias.py", None, "from shop.models import Gadget as Thing\n", True),
    ("shop/api.py", "def make():\n", "def made():\n    return Thing()\n\n\ndef make():\n",
     True),
    ("shop/api.py", "from shop import models\n",
     "from shop import models\nfrom shop.alias import Thing\n", True),
    ("shop/models.py", "class Item:\n", "class Gadget:\n    pass\n\n\nclass Item:\n", True),
    # an attribute held by a class: `self.part.price()` goes through it
    ("shop/special.py", "    def describe(self):\n",
     "    def parts(self):\n        return self.part.price()\n\n    def describe(self):\n",
     True),
    ("shop/special.py", "class Special(Item):\n", "class Special(Item):\n    part = Item\n",
     True),
    # an unknown receiver: `x.weigh()` finds the one method of that name, then loses it
    ("shop/api.py", "def total(items):\n",
     "def heavy(x):\n    return x.weigh()\n\n\ndef total(items):\n", True),
    ("shop/models.py", "    def label(self):\n",
     "    def weigh(self):\n        return 3\n\n    def label(self):\n", True),
    ("shop/models.py", "    def weigh(self):\n        return 3\n\n", "", True),
    # a new subclass, in a new file's stead: its bases are recorded, its methods found
    ("shop/special.py", "class Special(Item):\n",
     "class Cheap(Item):\n    def price(self):\n        return self.discount()\n\n\n"
     "class Special(Item):\n", True),
    ("shop/api.py", "def total(items):\n",
     "def bargain():\n    return Cheap().label()\n\n\ndef total(items):\n", True),
    ("shop/api.py", "from shop.special import Special\n",
     "from shop.special import Cheap, Special\n", True),
    ("shop/special.py", "class Cheap(Item):\n    def price(self):\n        return self.discount()"
     "\n\n\n", "", True),
    # an import bound in one module, re-exported by a second, used by a third that names
    # neither the first module nor its package (packages appearing: full builds)
    ("lib/__init__.py", None, "", False),
    ("lib/reexport.py", None, "from shop.models import Fancy\n", True),
    ("cli/__init__.py", None, "", False),
    ("cli/main.py", None, "from lib.reexport import Fancy\n\n\ndef run():\n    return Fancy()\n",
     True),
    ("shop/models.py", "class Gadget:\n",
     "from shop.special import Special as Fancy\n\n\nclass Gadget:\n", True),
    # a module that appears, then goes, under an import that named it all along
    ("shop/api.py", "from shop import models\n", "from shop import extras, models\n", True),
    ("shop/extras.py", None, "VALUE = 1\n", True),
    ("shop/extras.py", "VALUE = 1\n", "VALUE = 2\n", True),
    # a base class that now resolves elsewhere: beyond names, so a full build
    ("shop/special.py", "from shop.models import Item\n",
     "from shop.models import Item\n\n\nclass Item:\n    pass\n", False),
]


def test_interface_changes_reach_every_affected_file(repo: Repo, tmp_path: Path) -> None:
    for path, text in SHOP.items():
        repo.write(path, text)
    repo.commit("shop")
    assert repo.run_cli("update", "--staged")[0] == 0
    for path, old, new, spliced in INTERFACE_EDITS:
        text = repo.read(path).decode() if old is not None else ""
        assert old is None or old in text, (path, old)
        repo.write(path, text.replace(old, new, 1) if old is not None else new)
        repo.commit(f"edit {path}")
        code, _, err = repo.run_cli("update", "--staged")
        assert code == 0
        assert ("incrementally" in err) == spliced, (path, new, err)
        assert repo.read(GRAPH) == cold_build(repo.path), (path, new)
        if "part = Item" in new:  # the edges each case is about, before the base moves
            found = links(load_graph(repo))
            assert ("calls", "shop/special.py::Special.cheap",
                    "shop/models.py::Item.discount") in found
            assert ("calls", "shop/api.py::made", "shop/models.py::Gadget") in found
            assert ("calls", "shop/special.py::Special.parts",
                    "shop/models.py::Item.price") in found


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_a_helper_process_renders_the_same_bytes(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, cache: str
) -> None:
    """A big tree's full build has a forked helper resolve and render half of the files
    (here every tree is big); cold, it waits until the parent has filled the cache."""
    for path, text in SHOP.items():
        repo.write(path, text)
    small_project(repo)
    repo.commit("shop and app")
    if cache == "warm":
        assert repo.run_cli("index")[0] == 0
        (repo.path / GRAPH).unlink()
    monkeypatch.setattr(gitgraph.index, "PARALLEL_LINKS_MIN", 0)
    monkeypatch.setattr(gitgraph.index, "_cores", lambda: 2)
    real, helped = gitgraph.index._helper_records, repo.path / ".git" / "helped"
    monkeypatch.setattr(gitgraph.index, "_helper_records",  # it runs in the forked child
                        lambda *args: helped.touch() or real(*args))
    code, _, err = repo.run_cli("index")
    assert code == 0, err
    assert helped.exists() and repo.read(GRAPH) == cold_build(repo.path, staged=False)
    assert "symbols, " in err and f"{len(load_graph(repo)['links'])} edges" in err


def test_a_failed_helper_leaves_its_half_to_the_parent(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path, text in SHOP.items():
        repo.write(path, text)
    repo.commit("shop")
    monkeypatch.setattr(gitgraph.index, "PARALLEL_LINKS_MIN", 0)
    monkeypatch.setattr(gitgraph.index, "_cores", lambda: 2)
    monkeypatch.setattr(gitgraph.index, "_helper_records", lambda *args: 1 / 0)
    assert repo.run_cli("index")[0] == 0
    assert repo.read(GRAPH) == cold_build(repo.path, staged=False)


def test_tables_read_from_graph_json_records_know_base_classes(repo: Repo) -> None:
    """With no stored tables, an update reads them from graph.json's records, inheritance
    links included (written with and without a weight): `super().price()` needs them."""
    for path, text in SHOP.items():
        repo.write(path, text)
    repo.commit("shop")
    assert repo.run_cli("update", "--staged")[0] == 0
    assert b'"kind":"inherits"}' in repo.read(GRAPH)  # the weight of 1 left out
    for stored in (repo.path / ".git" / "gitgraph").glob("tables-*.bin"):
        stored.unlink()
    special = repo.read("shop/special.py").decode()
    repo.write("shop/special.py", special.replace("price() * 2", "price() * 3"))
    repo.git("add", "shop/special.py")
    code, _, err = repo.gitgraph("-v", "update", "--staged")
    assert code == 0 and "incrementally" in err and "no stored tables fit" in err
    assert repo.read(GRAPH) == cold_build(repo.path)
    assert ("calls", "shop/special.py::Special.price", "shop/models.py::Item.price") in links(
        load_graph(repo))


def test_stored_tables_are_reused_only_while_every_interface_matches(
    repo: Repo, tmp_path: Path
) -> None:
    for path, text in SHOP.items():
        repo.write(path, text)
    repo.commit("shop")
    assert repo.run_cli("update", "--staged")[0] == 0
    graph_a = repo.read(GRAPH)
    # Tree B adds `extra` to shop/models.py: an interface change, so a rebuild stores B's tables.
    models = repo.read("shop/models.py").decode()
    repo.write("shop/models.py", models + "\n\ndef extra():\n    return 5\n")
    repo.commit("extra")
    assert repo.run_cli("update", "--staged")[0] == 0
    # Back on tree A with A's graph.json (a checkout), a body edit calls `extra` by name: A has
    # no such function, so B's tables must not be used to resolve it.
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.write(GRAPH, graph_a)
    api = repo.read("shop/api.py").decode()
    repo.write("shop/api.py", api.replace("    return Special()\n",
                                          "    extra()\n    return Special()\n"))
    repo.git("add", "shop/api.py")
    code, _, err = repo.gitgraph("-v", "update", "--staged")
    assert code == 0 and "incrementally" in err
    assert "no stored tables fit graph.json" in err  # B's were refused
    assert repo.read(GRAPH) == cold_build(repo.path)
    # Tables stored for A serve the next body edit, unread from graph.json.
    repo.write("shop/api.py", repo.read("shop/api.py").decode().replace("extra()", "extra(1)"))
    repo.git("add", "shop/api.py")
    code, _, err = repo.gitgraph("-v", "update", "--staged")
    assert code == 0 and "incrementally" in err
    assert "no stored tables" not in err
    assert repo.read(GRAPH) == cold_build(repo.path)


@dataclass(frozen=True)
class Fn:
    name: str
    variant: int
    callee: tuple[str, str] | None  # (module stem, function name)
    # 0 `import pkg.m; pkg.m.f()`, 1 `from pkg.m import f; f()`, 2 `... import f as m_f`,
    # 3 through pkg/hub.py, which re-exports it under an alias (`from pkg.hub import hub_m_f`)
    how: int


Model = dict[str, tuple[Fn, ...]]  # module stem -> its functions (`K...`: classes)


def _named(stem: str, fn: Fn, imports: set[str]) -> str:
    """How `fn` writes the name of its callee (or base class), adding the import it needs."""
    assert fn.callee is not None
    module, name = fn.callee
    if module == stem:
        return name
    if fn.how == 1:
        imports.add(f"from pkg.{module} import {name}")
        return name
    if fn.how == 2:
        imports.add(f"from pkg.{module} import {name} as {module}_{name}")
        return f"{module}_{name}"
    if fn.how == 3:
        imports.add(f"from pkg.hub import hub_{module}_{name}")
        return f"hub_{module}_{name}"
    imports.add(f"import pkg.{module}")
    return f"pkg.{module}.{name}"


def render_module(stem: str, fns: tuple[Fn, ...]) -> str:
    imports: set[str] = set()
    defs = []
    for fn in fns:
        if fn.name.startswith("K"):  # a class: `run` calls `up`, which only root classes define
            base = f"({_named(stem, fn, imports)})" if fn.callee is not None else ""
            up = "" if base else "\n    def up(self):\n        return 0\n"
            defs.append(f"class {fn.name}{base}:\n    def run(self):\n"
                        f"        return self.up() + self.go{fn.variant}()\n\n"
                        f"    def go{fn.variant}(self):\n        return {fn.variant}\n{up}")
            continue
        call = f"{_named(stem, fn, imports)}()" if fn.callee is not None else "None"
        defs.append(f"def {fn.name}():\n    x = {fn.variant}\n    return {call}\n")
    head = "".join(f"{line}\n" for line in sorted(imports))
    return head + ("\n\n" if head and defs else "") + "\n\n".join(defs)


def render_hub(model: Model) -> str:
    """pkg/hub.py: aliases of every function some module calls through it."""
    lines = {f"from pkg.{m} import {f} as hub_{m}_{f}\n" for fns in model.values() for fn in fns
             if fn.how == 3 and fn.callee is not None for m, f in [fn.callee]}
    return "".join(sorted(lines))


# Body edits keep every file's interface, so `update` may splice instead of rebuilding:
# weight them up so both paths are exercised.
OPS = ("add", "body", "body", "body", "add_fn", "remove_fn", "rename", "delete", "revert",
       "add_class", "add_class", "rebase")
op_strategy = st.tuples(st.sampled_from(OPS), st.integers(0, 40), st.integers(0, 40),
                        st.integers(0, 3))


def apply_op(repo: Repo, history: list[Model], op: tuple[str, int, int, int], n: int) -> None:
    """Change the work tree (and `history`) as `op` says, then commit."""
    kind, a, b, flag = op
    model = dict(history[-1])
    stems = sorted(model)
    functions = sorted((stem, fn.name) for stem in stems for fn in model[stem])
    if kind == "revert" and len(history) > 1:
        repo.git("revert", "--no-edit", "HEAD")
        history.append(history[-2])
        return
    if not stems or kind == "revert":
        kind = "add"
    pick = functions[b % len(functions)] if functions else None
    classes = [f for f in functions if f[1].startswith("K")]
    base = classes[b % len(classes)] if classes and b % 3 else None
    stem = stems[a % len(stems)] if stems else ""
    if kind == "add_class":
        model[stem] = (*model[stem], Fn(f"K{n}", 0, base, flag))
    elif kind == "rebase":  # a class that stays gets another base: beyond names, a rebuild
        fns = list(model[stem])
        mine = [i for i, f in enumerate(fns) if f.name.startswith("K")]
        if mine:
            i = mine[b % len(mine)]
            fns[i] = replace(fns[i], callee=base if base != (stem, fns[i].name) else None)
        model[stem] = tuple(fns)
    elif kind == "add":
        stem = f"n{n}"
        model[stem] = (Fn(f"f{n}", 0, pick, flag),)
    elif kind == "body" and model[stem]:
        fns = list(model[stem])
        fn = fns[b % len(fns)]
        # flag: call something else too; within the module that keeps the interface unchanged
        # (a class's variant renames the method its `run` calls: an interface change)
        local = [name for name in sorted(f.name for f in fns) if name != fn.name]
        callee = (stem, local[a % len(local)]) if (
            flag and local and not fn.name.startswith("K")) else fn.callee
        fns[b % len(fns)] = replace(fn, variant=fn.variant + 1, callee=callee)
        model[stem] = tuple(fns)
    elif kind in ("add_fn", "body"):
        model[stem] = (*model[stem], Fn(f"g{n}", 0, pick, flag))
    elif kind == "remove_fn":
        fns = list(model[stem])
        if fns:
            del fns[b % len(fns)]
        model[stem] = tuple(fns)
    elif kind == "rename":
        new = f"{stem}r{n}"
        repo.git("mv", f"pkg/{stem}.py", f"pkg/{new}.py")
        model[new] = model.pop(stem)
    elif kind == "delete":
        repo.git("rm", "-q", f"pkg/{stem}.py")
        del model[stem]
    for name, fns in model.items():
        path = f"pkg/{name}.py"
        text = render_module(name, fns)
        if not (repo.path / path).exists() or repo.read(path).decode() != text:
            repo.write(path, text)
    if repo.read("pkg/hub.py").decode() != render_hub(model):
        repo.write("pkg/hub.py", render_hub(model))
    history.append(model)
    repo.commit(f"{kind} {n}")


counter = itertools.count()


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(op_strategy, min_size=1, max_size=6))
def test_update_equals_full_rebuild_on_random_histories(
    make_repo: Callable[[Path], Repo], tmp_path: Path, parses: ParseCounter,
    ops: list[tuple[str, int, int, int]],
) -> None:
    path = tmp_path / f"example{next(counter)}"
    repo = make_repo(path)
    start: Model = {
        "m0": (Fn("f0", 0, None, 1),),
        "m1": (Fn("f1", 0, ("m0", "f0"), 3),),
        "m2": (Fn("f2", 0, ("m1", "f1"), 0), Fn("h2", 0, ("m2", "f2"), 2)),
    }
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/hub.py", render_hub(start))
    repo.write(".gitignore", ".gitgraph/\n*.json\n")
    for stem, fns in start.items():
        repo.write(f"pkg/{stem}.py", render_module(stem, fns))
    repo.commit("start")
    assert repo.run_cli("update", "--staged")[0] == 0
    history = [start]
    seen = {e.blob for e in git.ls_index(path) if e.path.endswith(".py")}
    for n, op in enumerate(ops, 1):
        apply_op(repo, history, op, n)
        on_disk = {p.stem for p in (path / "pkg").glob("*.py")} - {"__init__", "hub"}
        assert on_disk == set(history[-1])
        tree = [e for e in git.ls_index(path) if e.path.endswith(".py")]
        fresh = [e for e in tree if e.blob not in seen]
        seen |= {e.blob for e in tree}

        parses.take()
        code, _, err = repo.run_cli("update", "--staged")
        assert code == 0, err
        assert parses.take() == len(fresh), (op, err)
        assert repo.read(GRAPH) == cold_build(path), op
        full = tmp_path / "full.json"
        assert repo.run_cli("index", "--staged", "-o", str(full))[0] == 0
        assert repo.read(GRAPH) == full.read_bytes()


# -- check, worktree, revisions ----------------------------------------------------------------


def test_check_passes_when_current_and_names_the_stale_file(repo: Repo) -> None:
    small_project(repo)
    repo.commit("init")
    code, out, err = repo.run_cli("check")
    assert code == 1 and "(no graph.json)" in out

    repo.run_cli("update", "--staged")
    code, out, err = repo.run_cli("check")
    assert (code, out) == (0, "")
    assert "up to date" in err

    repo.write("lib.py", LIB + "\n\ndef more():\n    return 2\n")
    assert repo.run_cli("check")[0] == 0  # unstaged edits do not make the index graph stale
    repo.git("add", "lib.py")
    code, out, err = repo.run_cli("check")
    assert code == 1
    assert out.split() == ["lib.py"]
    assert "stale (1 file(s)" in err and "gitgraph update --staged" in err

    assert repo.run_cli("update", "--staged")[0] == 0
    assert repo.run_cli("check")[0] == 0


def test_worktree_mode_sees_unstaged_edits_staged_mode_does_not(repo: Repo) -> None:
    small_project(repo)
    repo.commit("init")
    repo.write("lib.py", LIB + "\n\ndef fresh():\n    return helper(2)\n")

    assert repo.run_cli("index", "-o", "work.json")[0] == 0  # -o is relative to -C
    assert repo.run_cli("index", "--staged", "-o", "staged.json")[0] == 0
    work, staged = load_graph(repo, "work.json"), load_graph(repo, "staged.json")
    assert "lib.py::fresh" in {n["id"] for n in work["nodes"]}
    assert "lib.py::fresh" not in {n["id"] for n in staged["nodes"]}
    blob = {f["path"]: f["blob"] for f in work["graph"]["files"]}["lib.py"]
    assert blob == repo.git("hash-object", "lib.py").strip()

    # `update` (work tree) follows the edit; a deleted file drops out
    (repo.path / "app.py").unlink()
    assert repo.run_cli("update")[0] == 0
    ids = {n["id"] for n in load_graph(repo)["nodes"]}
    assert "lib.py::fresh" in ids and "app.py" not in ids


def test_index_an_older_revision_without_checking_it_out(repo: Repo, tmp_path: Path) -> None:
    small_project(repo)
    old = repo.commit("init")
    repo.write("lib.py", LIB.replace("def unused", "def renamed"))
    repo.commit("rename a function")
    status = repo.git("status", "--porcelain")

    code, _, err = repo.run_cli("index", "--rev", "HEAD~1", "-o", str(tmp_path / "old.json"))
    assert code == 0, err
    assert repo.run_cli("index", "--rev", "HEAD", "-o", str(tmp_path / "new.json"))[0] == 0
    old_ids = {n["id"] for n in json.loads((tmp_path / "old.json").read_bytes())["nodes"]}
    new_ids = {n["id"] for n in json.loads((tmp_path / "new.json").read_bytes())["nodes"]}
    assert old_ids - new_ids == {"lib.py::unused"}
    assert new_ids - old_ids == {"lib.py::renamed"}
    assert repo.git("rev-parse", "HEAD").strip() != old
    assert repo.git("status", "--porcelain") == status
    assert "def renamed" in repo.read("lib.py").decode()
    # the same revision by id gives the same bytes
    assert repo.run_cli("index", "--rev", old, "-o", str(tmp_path / "byid.json"))[0] == 0
    assert (tmp_path / "byid.json").read_bytes() == (tmp_path / "old.json").read_bytes()


# -- configuration -----------------------------------------------------------------------------


def test_graph_path_include_exclude_and_languages_from_config(repo: Repo) -> None:
    repo.write(".gitgraph.yml", "graph: docs/graph.json\n"
                                "include: ['src/*', 'web/*']\n"
                                "exclude: ['src/vendor/*']\n"
                                "languages: [python]\n")
    repo.write("src/a.py", "def a():\n    return 1\n")
    repo.write("src/deep/b.py", "def b():\n    return 2\n")
    repo.write("src/vendor/c.py", "def c():\n    return 3\n")
    repo.write("web/app.js", "function w() { return 4; }\n")
    repo.write("web/app.py", "def w():\n    return 5\n")
    repo.write("top.py", "def t():\n    return 6\n")
    repo.commit("init")

    assert repo.run_cli("update", "--staged")[0] == 0
    assert not (repo.path / GRAPH).exists()
    files = [f["path"] for f in load_graph(repo, "docs/graph.json")["graph"]["files"]]
    assert files == ["src/a.py", "src/deep/b.py", "web/app.py"]
    assert repo.run_cli("check")[0] == 0

    repo.write(".gitgraph.yml", "graph: docs/graph.json\n")  # widen: stale again
    code, out, _ = repo.run_cli("check")
    assert code == 1
    assert out.split() == ["src/vendor/c.py", "top.py", "web/app.js"]


def test_extraction_chunks_hand_out_every_blob_once_largest_first_shrinking() -> None:
    sizes = [(i * 7919) % 300_000 for i in range(3000)]
    chunks = _chunks(sizes, workers=2)
    assert sorted(i for chunk in chunks for i in chunk) == list(range(len(sizes)))
    flat = [sizes[i] for chunk in chunks for i in chunk]
    assert flat == sorted(sizes, reverse=True)
    totals = [sum(sizes[i] for i in chunk) for chunk in chunks]
    assert totals[0] > 5 * totals[-1] and len(chunks) < 60  # geometric, not one per blob
    assert all(total >= CHUNK_MIN_BYTES for total in totals[:-1])
    assert _chunks([], workers=2) == [] and _chunks([10, 20], workers=2) == [[1, 0]]


# -- the blob cache ----------------------------------------------------------------------------


def cache_packs(repo: Repo) -> list[Path]:
    return sorted(p for p in (repo.path / ".git" / "gitgraph" / "cache").rglob("*")
                  if p.is_file() and not p.name.startswith("."))


def damage_entry(repo: Repo, path: str, flip: int) -> Path:
    """Flip one bit `flip` bytes from the end of `path`'s cache entry; the pack it is in."""
    key = repo.git("rev-parse", f"HEAD:{path}").strip() + ".python"
    [(pack, end)] = [(p, table[key][1]) for p in cache_packs(repo)
                     if key in (table := pack_table(p.read_bytes()))]
    data = bytearray(pack.read_bytes())
    data[end - flip] ^= 0x20
    pack.write_bytes(bytes(data))
    return pack


def test_corrupt_cache_entry_is_reextracted_silently_and_logged_with_v(repo: Repo) -> None:
    small_project(repo)
    repo.commit("init")
    assert repo.gitgraph("index")[0] == 0
    good = repo.read(GRAPH)
    lib_blob = repo.git("rev-parse", "HEAD:lib.py").strip()

    damaged = damage_entry(repo, "lib.py", 40)
    code, _, err = repo.gitgraph("index")
    assert code == 0
    [line] = err.splitlines()  # the summary, nothing else
    assert line.startswith("gitgraph: 3 files (1 parsed, 2 cached), 5 symbols")
    assert repo.read(GRAPH) == good
    # that write merged the damaged pack's sound entries and the fresh one into a new pack
    assert cache_packs(repo) != [damaged] and len(cache_packs(repo)) == 1
    assert cache_report(repo).extracted == 0

    damage_entry(repo, "lib.py", 40)
    code, _, err = repo.gitgraph("-v", "index")
    assert code == 0
    message = f"cache: corrupt entry {lib_blob}.python (checksum mismatch); re-extracting"
    assert f"gitgraph: {message}" in err.splitlines()
    assert repo.read(GRAPH) == good


def test_damaged_cache_entry_that_would_unmarshal_is_caught(repo: Repo) -> None:
    small_project(repo)
    repo.commit("init")
    assert repo.run_cli("index")[0] == 0
    good = repo.read(GRAPH)
    lib_blob = repo.git("rev-parse", "HEAD:lib.py").strip()
    damage_entry(repo, "lib.py", 3)  # a bit of the file's line count: marshal would not notice

    code, _, err = repo.run_cli("-v", "index")
    assert code == 0 and "(1 parsed, 2 cached)" in err
    assert f"gitgraph: cache: corrupt entry {lib_blob}.python (checksum mismatch)" in err
    assert repo.read(GRAPH) == good
    assert cache_report(repo).extracted == 0


@pytest.mark.parametrize("damage", ["torn", "garbage"])
def test_damaged_pack_is_reextracted_and_replaced(repo: Repo, damage: str) -> None:
    small_project(repo)
    repo.commit("init")
    assert repo.gitgraph("index")[0] == 0
    good = repo.read(GRAPH)
    [pack] = cache_packs(repo)
    whole = pack.read_bytes()
    pack.write_bytes(whole[: len(whole) // 2] if damage == "torn" else b"\0" * len(whole))

    code, _, err = repo.gitgraph("-v", "index")
    assert code == 0 and repo.read(GRAPH) == good
    if damage == "garbage":
        assert f"cache: corrupt pack {pack.name} (not a pack)" in err
        assert "(3 parsed, 0 cached)" in err
    else:  # the table survives a torn write; the entries past the tear fail their checksum
        assert "corrupt entry" in err
    assert len(cache_packs(repo)) == 1
    assert cache_report(repo).extracted == 0


def test_packs_from_many_small_writes_are_merged(repo: Repo) -> None:
    small_project(repo)
    repo.commit("init")
    assert repo.gitgraph("index")[0] == 0
    for step in range(MAX_PACKS + 2):  # each index parses one new blob: one new pack
        repo.write("lib.py", LIB + f"\n\ndef extra_{step}():\n    return {step}\n")
        repo.commit(f"step {step}")
        assert "(1 parsed, 2 cached)" in repo.gitgraph("index")[2]
        assert len(cache_packs(repo)) <= MAX_PACKS
    shutil.rmtree(repo.path / ".gitgraph")
    assert "(0 parsed, 3 cached)" in repo.gitgraph("index")[2]
    for step in range(MAX_PACKS + 2):  # every version stays cached through the merges
        repo.write("lib.py", LIB + f"\n\ndef extra_{step}():\n    return {step}\n")
        assert cache_report(repo).extracted == 0


def test_cache_of_another_extractor_version_is_discarded(repo: Repo) -> None:
    foreign = repo.path / ".git" / "gitgraph" / "cache" / "1-0123456789abcdef" / "ab"
    foreign.mkdir(parents=True)
    (foreign / "cdef.python").write_bytes(b"old format")
    small_project(repo)
    repo.commit("init")

    code, _, err = repo.gitgraph("-v", "index")
    assert code == 0
    assert "cache: discarding 1-0123456789abcdef (other extractor version)" in err
    assert not foreign.parent.exists()
    assert len(cache_packs(repo)) == 1
    assert cache_report(repo).cached == 3


# -- merges ------------------------------------------------------------------------------------


def merge_project(repo: Repo) -> None:
    for name in ("a_first", "f_mid", "k_mid", "p_mid", "z_last"):
        repo.write(f"{name}.py", f"def {name}():\n    return 0\n\n\ndef {name}_b():\n"
                                 f"    return {name}()\n")
    repo.commit("init")
    assert repo.run_cli("update", "--staged", "--stage")[0] == 0
    repo.commit("graph", add=False)


def commit_with_graph(repo: Repo, path: str, text: str) -> None:
    repo.write(path, text)
    repo.git("add", path)
    assert repo.run_cli("update", "--staged", "--stage")[0] == 0
    repo.commit(f"edit {path}", add=False)


def test_branches_changing_distant_files_merge_graph_json_cleanly(
    repo: Repo, tmp_path: Path
) -> None:
    merge_project(repo)
    repo.git("checkout", "-q", "-b", "left")
    commit_with_graph(repo, "a_first.py", "def a_first():\n    return 1\n\n\ndef a_new():\n"
                                          "    return a_first()\n")
    repo.git("checkout", "-q", "main")
    commit_with_graph(repo, "z_last.py", "def z_last():\n    return 2\n")

    merged = repo.git("merge", "--no-edit", "left", check=False)
    assert "CONFLICT" not in merged
    assert repo.git("status", "--porcelain") == ""
    assert repo.run_cli("index", "--rev", "HEAD", "-o", str(tmp_path / "fresh.json"))[0] == 0
    assert repo.read(GRAPH) == (tmp_path / "fresh.json").read_bytes()
    assert repo.run_cli("check")[0] == 0
    ids = {n["id"] for n in load_graph(repo)["nodes"]}
    assert {"a_first.py::a_new", "z_last.py::z_last"} <= ids and "z_last.py::z_last_b" not in ids


def test_conflicted_graph_json_is_regenerated_by_update(repo: Repo, tmp_path: Path) -> None:
    merge_project(repo)
    repo.git("checkout", "-q", "-b", "left")  # neighbours in sort order: their records touch
    commit_with_graph(repo, "f_mid.py", "def f_mid():\n    return 1\n")
    repo.git("checkout", "-q", "main")
    commit_with_graph(repo, "k_mid.py", "def k_mid():\n    return 2\n")

    repo.git("merge", "--no-edit", "left", check=False)
    assert repo.git("diff", "--name-only", "--diff-filter=U").split() == [GRAPH]
    assert b"<<<<<<< " in repo.read(GRAPH)
    code, _, err = repo.run_cli("check")
    assert code == 1

    code, _, err = repo.run_cli("update", "--staged", "--stage")
    assert code == 0
    assert "gitgraph: warning: graph.json has merge conflict markers; regenerating it" in err
    assert "Traceback" not in err
    graph = load_graph(repo)
    assert {"f_mid.py::f_mid", "k_mid.py::k_mid"} <= {n["id"] for n in graph["nodes"]}
    assert "f_mid.py::f_mid_b" not in {n["id"] for n in graph["nodes"]}
    repo.commit("merge", add=False)
    assert repo.run_cli("index", "--rev", "HEAD", "-o", str(tmp_path / "fresh.json"))[0] == 0
    assert repo.read(GRAPH) == (tmp_path / "fresh.json").read_bytes()


def test_a_rewritten_graph_json_is_scanned_again_even_with_its_old_size_and_mtime(
    repo: Repo
) -> None:
    """The whole-file scan is skipped only for the file gitgraph last wrote or scanned."""
    small_project(repo)
    repo.commit("init")
    assert repo.run_cli("update")[0] == 0
    path = repo.path / GRAPH
    before = path.stat()
    good = path.read_bytes()
    at = good.index(b"\n", good.index(b'"nodes":[')) + 1
    marked = good[:at] + b"<<<<<<< ours\n" + good[at + len(b"<<<<<<< ours\n"):]  # same size
    path.write_bytes(marked)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    code, _, err = repo.run_cli("update")
    assert code == 0 and "merge conflict markers; regenerating it" in err
    assert path.read_bytes() == good


# -- the commit path ---------------------------------------------------------------------------


def test_staged_mode_reads_the_index_git_names(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_project(repo)
    old = repo.commit("init")
    repo.write("lib.py", LIB.replace("def unused", "def later"))
    repo.commit("two")
    assert repo.run_cli("index", "--rev", old, "-o", str(tmp_path / "old.json"))[0] == 0

    # hooks of `git commit <paths>` run with GIT_INDEX_FILE naming a temporary index
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo.path / ".git" / "other-index"))
    repo.git("read-tree", old)
    assert repo.run_cli("index", "--staged", "-o", str(tmp_path / "staged.json"))[0] == 0
    assert (tmp_path / "staged.json").read_bytes() == (tmp_path / "old.json").read_bytes()


def test_hook_keeps_committed_graph_current_on_a_partial_commit(repo: Repo) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.write("b.py", "def b():\n    return 1\n")
    repo.git("add", "-A")
    assert repo.gitgraph("update", "--staged", "--stage")[0] == 0
    repo.commit("init", add=False)
    hook = repo.path / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nexec '{GITGRAPH}' update --staged --stage --quiet\n")
    hook.chmod(0o755)

    repo.write("a.py", "def a2():\n    return 2\n")
    repo.write("b.py", "def b2():\n    return 2\n")
    repo.git("add", "b.py")
    repo.git("commit", "-q", "-m", "only a.py", "--", "a.py")  # the real hook runs

    assert repo.git("diff", "--name-only", "HEAD~1", "HEAD").split() == [GRAPH, "a.py"]
    committed = json.loads(repo.git("show", f"HEAD:{GRAPH}"))
    ids = {n["id"] for n in committed["nodes"]}
    assert {"a.py::a2", "b.py::b"} <= ids and "b.py::b2" not in ids
    assert repo.run_cli("check", "--rev", "HEAD")[0] == 0


def _kept(repo: Repo) -> list[Path]:
    return sorted((repo.path / ".git" / "gitgraph").glob("last-*.json"))


def test_index_patches_the_last_graph_written_to_the_bytes_of_a_full_build(
        repo: Repo, tmp_path: Path) -> None:
    """After a branch switch (files edited, added, deleted, renamed, a class gaining a
    method others call), `index` starts from the last graph it wrote: the same bytes as a
    build from nothing, without resolving every file again."""
    small_project(repo)
    repo.commit("init")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("lib.py", LIB.replace("return x + 1", "return x + 2") + "\n\ndef more():\n"
               "    return helper(3)\n")
    repo.write("extra.py", "from lib import more\n\n\ndef use_more():\n    return more()\n")
    repo.git("mv", "app.py", "application.py")
    repo.git("rm", "-q", "tests/test_app.py")
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.reuse_last_graph = True
    assert repo.run_cli("index")[0] == 0  # nothing kept yet: a full build
    assert len(_kept(repo)) == 1
    repo.git("checkout", "-q", "side")
    code, _, err = repo.run_cli("index")
    assert code == 0 and "the last graph written, patched: 6 file records differ" in err
    patched = repo.read(GRAPH)
    repo.reuse_last_graph = False
    assert repo.run_cli("index", "-o", str(tmp_path / "full.json"))[0] == 0
    assert patched == (tmp_path / "full.json").read_bytes()
    assert '"source":"extra.py::use_more","target":"lib.py::more"' in patched.decode()


def test_a_damaged_or_foreign_last_graph_is_not_used(repo: Repo, tmp_path: Path) -> None:
    small_project(repo)
    repo.commit("init")
    repo.reuse_last_graph = True
    assert repo.run_cli("index")[0] == 0
    good = repo.read(GRAPH)
    [kept] = _kept(repo)
    (repo.path / GRAPH).unlink()  # the kept copy is another name for the same file
    kept.write_bytes(kept.read_bytes()[:-40])  # torn
    code, _, err = repo.run_cli("-v", "index")
    assert code == 0 and "the last graph written is unusable" in err
    assert "3 files (0 parsed, 3 cached)" in err and repo.read(GRAPH) == good
    [kept] = _kept(repo)
    kept.unlink()
    foreign = good.replace(b'"encoding":"cl100k_base"', b'"encoding":"o200k_base"')
    kept.write_bytes(foreign)
    code, _, err = repo.run_cli("index")
    assert code == 0 and "3 files (0 parsed, 3 cached)" in err and repo.read(GRAPH) == good


def test_update_without_graph_json_patches_the_last_graph(repo: Repo, tmp_path: Path) -> None:
    small_project(repo)
    repo.commit("init")
    repo.reuse_last_graph = True
    assert repo.run_cli("index")[0] == 0
    (repo.path / GRAPH).unlink()
    repo.write("lib.py", LIB + "\n\ndef later():\n    return 1\n")
    repo.commit("later")
    code, _, err = repo.run_cli("update")
    assert code == 0 and "updated graph.json incrementally" in err
    repo.reuse_last_graph = False
    assert repo.run_cli("index", "-o", str(tmp_path / "full.json"))[0] == 0
    assert repo.read(GRAPH) == (tmp_path / "full.json").read_bytes()
