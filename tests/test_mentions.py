"""The name index behind incremental interface changes, and the grep that stands in for it."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import Repo

from gitgraph.config import Config
from gitgraph.index import Report, load_extractions, snapshot, source_files
from gitgraph.mentions import Grep, Mentions, changed_names, module_names, names_in
from gitgraph.model import Extraction, Import, Ref, Symbol


def extraction(symbols: tuple[str, ...] = (), refs: tuple[tuple[str, str, str], ...] = (),
               imports: tuple[tuple[str, str, str], ...] = ()) -> Extraction:
    return Extraction(
        tuple(Symbol(q, "function", 1, 2, "", "h", "", False) for q in symbols),
        tuple(Ref(kind, name, scope, 1) for kind, name, scope in refs),
        tuple(Import(m, n, a, 1) for m, n, a in imports), 2, "")


def test_names_in_splits_every_written_name_into_its_parts() -> None:
    found = names_in(extraction(
        symbols=("Shop.total",), refs=(("call", "self.cart.sum", "Shop.total"),
                                       ("assign", "self.cart=Cart", "Shop.__init__"),
                                       ("call", "?.flush", "")),
        imports=(("..models", "Item", "Thing"), ("crate::a::b", "", ""))))
    assert found == {"Shop", "total", "self", "cart", "sum", "Cart", "__init__", "flush",
                     "models", "Item", "Thing", "crate", "a", "b"}


def test_changed_names_are_the_one_sided_definitions_imports_and_attributes() -> None:
    before = extraction(symbols=("f", "K", "K.m"), imports=(("os", "", ""),),
                        refs=(("assign", "self.x=A", "K.__init__"),))
    after = extraction(symbols=("f", "K", "K.n"), imports=(("os", "", ""), ("x.y", "z", "w")),
                       refs=(("assign", "self.x=B", "K.__init__"),))
    assert changed_names(before, after) == ({"m", "n", "x"}, {"w"})
    assert changed_names(before, extraction(imports=(("os.path", "", ""), ("a::b", "c", "")))) == (
        {"f", "K", "m", "x"}, {"os", "path", "c"})
    assert changed_names(before, before) == (set(), set())


def test_module_names_are_what_importers_write() -> None:
    assert module_names("django/utils/text.py") == {"text"}
    assert module_names("django/utils/__init__.py") == {"__init__", "utils"}
    assert module_names("web/src/widgets/index.ts") == {"index", "widgets"}
    assert module_names("cmd/server/main.go") == {"main", "server"}


def test_mentions_update_and_survive_a_round_trip() -> None:
    index = Mentions()
    index.add("a.py", {"f", "g"})
    index.add("b.py", {"g"})
    assert index.files({"g"}) == {"a.py", "b.py"}
    again = Mentions.load(index.dump())
    again.remove("a.py", {"g"})
    again.add("c.py", {"f"})
    assert again.files({"g"}) == {"b.py"}
    assert again.files({"f", "nothing"}) == {"a.py", "c.py"}
    assert index.files({"g"}) == {"a.py", "b.py"}  # the loaded copy is its own


DATA = Path(__file__).parent / "data"


def test_a_grep_finds_every_file_the_index_has_for_a_name(repo: Repo) -> None:
    """`Grep` stands in for the stored index when none fits: for every name of every file
    (real flask code and a sample per language) it must name at least the files the index
    names, over a commit, the index and the work tree alike: names the text does not spell
    (a default import, Go's dot import) stand for every file."""
    shutil.copytree(DATA / "flask", repo.path / "flask")
    for sample in (DATA / "tags").glob("*/*"):
        if sample.suffix != ".tags":
            repo.write(f"samples/{sample.parent.name}/{sample.name}", sample.read_bytes())
    repo.commit("code")
    config = Config()
    tree = snapshot(repo.path, rev="HEAD")
    files = source_files(tree, config, Report())
    assert {f.lang for f in files} >= {"python", "go", "java", "javascript", "rust", "tsx"}
    index = Mentions()
    for path, found in load_extractions(repo.path, tree, files, config, Report()).items():
        index.add(path, names_in(found))
    paths = {f.path for f in files}
    names = sorted(index.index)
    assert {"default", "*"} <= set(names)
    assert len(names) > 500
    for label in (tree.label, "INDEX", "WORKTREE"):
        grep = Grep(repo.path, label, paths)
        missing = {name: index.files([name]) - grep.files([name]) for name in names}
        assert not {name: files for name, files in missing.items() if files}, label
        assert grep.files(names) == index.files(names)
        assert grep.files(["no_such_name_anywhere"]) == set()
