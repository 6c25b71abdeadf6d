"""Byte-level splicing of graph.json against the line-level result it must equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitgraph import store
from gitgraph.model import FileEntry
from gitgraph.splice import splice

# Names that sort next to each other and around the `"` and `:` that follow a path in a
# record: `a.py` < `a.py b` < `a.py-x` < `a.py/c` < `a.py::...` cases, non-ASCII, escapes.
PATHS = ["a.py", "a.py b", "a.py-x.py", "a.py/c.py", "b.py", "é.py", 'q"uote.py', "z/z.py"]
QUALS = ["A", "A.m", "A.n", "f", "g"]
HEADER = {"encoding": "cl100k_base", "extractor": "x", "format": store.FORMAT}


def records(path: str, draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    """One file's records: its file-table line, nodes and links, drawn at random."""
    blob = draw(st.sampled_from(["1" * 40, "2" * 40, "3" * 40]))
    file = store.file_line(FileEntry(path, blob, "python"))
    quals = draw(st.lists(st.sampled_from(QUALS), unique=True))
    nodes = [store.node_line({"id": path, "kind": "file", "end_line": draw(st.integers(1, 9))})]
    nodes += [store.node_line({"id": f"{path}::{q}", "kind": "function"}) for q in quals]
    sources = [path] + [f"{path}::{q}" for q in quals]
    links = {
        store.link_line(source, f"{draw(st.sampled_from(PATHS))}::f", "calls",
                        draw(st.sampled_from([1.0, 0.5])))
        for source in draw(st.lists(st.sampled_from(sources), max_size=4))
    }
    return file, nodes, sorted(links)


@st.composite
def graphs(draw: st.DrawFn) -> tuple[store.GraphLines, store.GraphLines, list[str]]:
    """An old graph, the same graph with some files' records redrawn, and those files."""
    paths = sorted(draw(st.lists(st.sampled_from(PATHS), min_size=1, unique=True)))
    old = {p: records(p, draw) for p in paths}
    changed = sorted(draw(st.lists(st.sampled_from(paths), min_size=1, unique=True)))
    new = {**old, **{p: records(p, draw) for p in changed}}
    return lines(old), lines(new), changed


def lines(by_path: dict[str, tuple[str, list[str], list[str]]]) -> store.GraphLines:
    return store.GraphLines(
        HEADER, sorted(r[0] for r in by_path.values()),
        sorted(n for r in by_path.values() for n in r[1]),
        sorted(link for r in by_path.values() for link in r[2]))


@settings(max_examples=300, deadline=None)
@given(case=graphs())
def test_splice_gives_the_bytes_of_the_whole_new_graph(
    case: tuple[store.GraphLines, store.GraphLines, list[str]],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    old, new, changed = case
    path = tmp_path_factory.mktemp("splice") / "graph.json"
    path.write_bytes(store.dumps(old))
    graph = store.open_graph(path)
    assert graph is not None
    mine = [[line for line in array if _owner(line) in changed]
            for array in (new.files, new.nodes, new.links)]
    pieces = splice(graph, changed, mine)
    assert pieces is not None
    assert b"".join(pieces) == store.dumps(new)


def _owner(line: str) -> str:
    """The path a record belongs to (its first string, up to `::`)."""
    first = json.loads(line[:-1])
    key = first.get("path") or first.get("id") or first["source"]
    return str(key).split("::")[0]


def test_a_path_holding_double_colons_is_not_spliced(tmp_path: Path) -> None:
    graph_lines = store.GraphLines(
        HEADER, [store.file_line(FileEntry("a::b.py", "1" * 40, "python"))],
        [store.node_line({"id": "a::b.py", "kind": "file"})], [])
    path = tmp_path / "graph.json"
    path.write_bytes(store.dumps(graph_lines))
    graph = store.open_graph(path)
    assert graph is not None
    assert splice(graph, ["a::b.py"], [[], [], []]) is None
