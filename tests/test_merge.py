"""graph.json across merges: git's own text merge, the `gitgraph` merge driver, conflict
markers, rebase and cherry-pick."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx
import pytest
from hookrepo import BIN, GRAPH, assert_exact, commit, committed, install, local_config, node_ids
from hypothesis import given, settings
from hypothesis import strategies as st

from gitgraph import merge, store
from gitgraph.model import FileEntry

if TYPE_CHECKING:
    from conftest import Repo

# -- the three-way merge of record lines (pure) -----------------------------------------------

Spec = dict[str, tuple[str, ...]]  # path → names of the functions it defines


def lines(spec: Spec, calls: tuple[tuple[str, str], ...] = (),
          extractor: str = "x1") -> store.GraphLines:
    """graph.json lines of files defining `spec`'s functions; `calls` are (source, target) ids."""
    files, nodes, links = [], [], []
    for path, names in spec.items():
        blob = hashlib.sha1(repr(names).encode()).hexdigest()
        files.append(store.file_line(FileEntry(path, blob, "python")))
        nodes.append(store.node_line({"id": path, "kind": "file", "name": path, "path": path}))
        for name in names:
            node = f"{path}::{name}"
            nodes.append(store.node_line({"id": node, "kind": "function", "name": name,
                                          "path": path}))
            links.append(store.link_line(path, node, "contains", 1.0))
    links += [store.link_line(s, t, "calls", 1.0) for s, t in calls]
    header = {"encoding": "cl100k_base", "extractor": extractor, "format": store.FORMAT}
    return store.GraphLines(header, sorted(files), sorted(nodes), sorted(links))


BASE: Spec = {"a.py": ("f",), "b.py": ("g",), "c.py": ("h",)}


def test_each_side_brings_the_files_only_it_changed() -> None:
    ours = lines({**BASE, "a.py": ("f", "f2")})
    theirs = lines({"a.py": ("f",), "c.py": ("h", "h2"), "d.py": ("k",)})  # b.py deleted
    merged = merge.merge(lines(BASE), ours, theirs)
    assert merged.lines == lines({"a.py": ("f", "f2"), "c.py": ("h", "h2"), "d.py": ("k",)})
    assert merged.clashes == ()


def test_a_file_both_sides_changed_keeps_ours() -> None:
    ours = lines({**BASE, "a.py": ("f", "mine")})
    theirs = lines({**BASE, "a.py": ("f", "yours"), "c.py": ("h", "h2")})
    merged = merge.merge(lines(BASE), ours, theirs)
    assert merged.lines == lines({**BASE, "a.py": ("f", "mine"), "c.py": ("h", "h2")})
    assert merged.clashes == ("a.py",)


def test_the_same_change_on_both_sides_is_no_clash() -> None:
    both = lines({**BASE, "a.py": ("f", "same")})
    assert merge.merge(lines(BASE), both, both) == (both, ())


def test_links_to_nodes_the_other_side_removed_are_dropped() -> None:
    base = lines(BASE, calls=(("b.py::g", "a.py::f"),))
    # ours edits b.py (a new caller of a.py::f); theirs renames f, so its b.py link changed too
    ours = lines({**BASE, "b.py": ("g", "g2")},
                 calls=(("b.py::g", "a.py::f"), ("b.py::g2", "a.py::f")))
    theirs = lines({**BASE, "a.py": ("f_renamed",)})
    merged = merge.merge(base, ours, theirs)
    assert merged.clashes == ("b.py",)
    assert merged.lines == lines({**BASE, "a.py": ("f_renamed",), "b.py": ("g", "g2")})


def test_another_extractor_version_keeps_ours_whole() -> None:
    ours = lines({**BASE, "a.py": ("f", "x")})
    merged = merge.merge(lines(BASE), ours, lines(BASE, extractor="x2"))
    assert merged == (ours, ("(graph.json header)",))


def test_paths_containing_double_colons_are_owned_by_the_right_file() -> None:
    base = lines({"a::b.py": ("f",), "a.py": ("g",)})
    ours = lines({"a::b.py": ("f", "new"), "a.py": ("g",)})
    theirs = lines({"a::b.py": ("f",), "a.py": ("g", "other")})
    merged = merge.merge(base, ours, theirs)
    assert merged == (lines({"a::b.py": ("f", "new"), "a.py": ("g", "other")}), ())


names = st.frozensets(st.sampled_from(["f", "g", "h"]), max_size=3).map(lambda s: tuple(sorted(s)))
specs = st.dictionaries(st.sampled_from([f"m{i}.py" for i in range(6)]), names, max_size=6)


@settings(max_examples=200, deadline=None)
@given(base=specs, ours=specs, theirs=specs)
def test_disjoint_changes_merge_to_the_graph_of_both(base: Spec, ours: Spec,
                                                     theirs: Spec) -> None:
    """When the sides changed different files, the result is the graph of the merged tree."""
    def changed(side: Spec) -> set[str]:
        return {p for p in base.keys() | side.keys() if base.get(p) != side.get(p)}

    if changed(ours) & changed(theirs):
        return
    tree = dict(ours)
    for path in changed(theirs):
        if path in theirs:
            tree[path] = theirs[path]
        else:
            tree.pop(path, None)
    merged = merge.merge(lines(base), lines(ours), lines(theirs))
    assert merged == (lines(tree), ())


# -- the driver and its installation -----------------------------------------------------------


def write(path: Path, graph: store.GraphLines) -> Path:
    path.write_bytes(store.dumps(graph))
    return path


def test_merge_driver_writes_ours_atomically_and_exits_0(repo: Repo, tmp_path: Path) -> None:
    tmp_path = tmp_path / "sides"
    tmp_path.mkdir()
    base = write(tmp_path / "base", lines(BASE))
    ours = write(tmp_path / "ours", lines({**BASE, "a.py": ("f", "x")}))
    theirs = write(tmp_path / "theirs", lines({**BASE, "c.py": ("h", "y")}))
    assert repo.run_cli("merge-driver", str(base), str(ours), str(theirs))[0] == 0
    assert ours.read_bytes() == store.dumps(lines({**BASE, "a.py": ("f", "x"),
                                                   "c.py": ("h", "y")}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "ours", "theirs"]


def test_merge_driver_takes_an_empty_base_as_no_graph(repo: Repo, tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.write_bytes(b"")  # add/add: git passes an empty ancestor
    ours = write(tmp_path / "ours", lines({"a.py": ("f",)}))
    theirs = write(tmp_path / "theirs", lines({"b.py": ("g",)}))
    assert repo.run_cli("merge-driver", str(base), str(ours), str(theirs))[0] == 0
    assert ours.read_bytes() == store.dumps(lines({"a.py": ("f",), "b.py": ("g",)}))


@pytest.mark.parametrize("bad", [b"<<<<<<< ours\n", b"not json\n", b'{"directed":true'])
def test_merge_driver_leaves_unreadable_input_to_git(repo: Repo, tmp_path: Path,
                                                     bad: bytes) -> None:
    base = write(tmp_path / "base", lines(BASE))
    ours = write(tmp_path / "ours", lines({**BASE, "a.py": ("f", "x")}))
    before = ours.read_bytes()
    theirs = tmp_path / "theirs"
    theirs.write_bytes(bad)
    code, _, err = repo.run_cli("merge-driver", str(base), str(ours), str(theirs))
    assert code == 1 and err.startswith("gitgraph: merge-driver: ")
    assert ours.read_bytes() == before


def test_install_merge_driver_is_idempotent(repo: Repo) -> None:
    repo.write(".gitattributes", "*.png binary")  # no final newline
    for _ in range(2):
        assert repo.run_cli("install", "--merge-driver")[0] == 0
    assert repo.git("config", "merge.gitgraph.driver").strip() == (
        "gitgraph merge-driver %O %A %B")
    assert repo.git("config", "merge.gitgraph.name").strip()
    assert repo.read(".gitattributes") == (
        b"*.png binary\n.gitgraph/graph.json merge=gitgraph linguist-generated=true\n")
    attrs = repo.git("check-attr", "merge", "linguist-generated", "--", GRAPH)
    assert attrs.splitlines() == [f"{GRAPH}: merge: gitgraph",
                                  f"{GRAPH}: linguist-generated: true"]


# -- real merges -------------------------------------------------------------------------------

NAMES = ("a_first", "f_mid", "k_mid", "p_mid", "z_last")


@pytest.fixture
def project(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """Five files committed with their graph; the venv's `gitgraph` on PATH (for the driver)."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_EDITOR", "true")
    for name in NAMES:
        repo.write(f"{name}.py", f"def {name}():\n    return 0\n\n\ndef {name}_b():\n"
                                 f"    return {name}()\n")
    repo.git("add", "-A")
    assert repo.gitgraph("update", "--staged", "--stage")[0] == 0
    repo.commit("init", add=False)
    return repo


def commit_with_graph(repo: Repo, path: str, text: str, message: str = "") -> None:
    repo.write(path, text)
    repo.git("add", path)
    assert repo.gitgraph("update", "--staged", "--stage")[0] == 0
    repo.git("commit", "-q", "--no-verify", "-m", message or f"edit {path}")


def branches(repo: Repo, left: str, right: str) -> None:
    """`left` adds a function to left.py, `main` to right.py."""
    repo.git("checkout", "-q", "-b", "left")
    commit_with_graph(repo, f"{left}.py", f"def {left}():\n    return 1\n")
    repo.git("checkout", "-q", "main")
    commit_with_graph(repo, f"{right}.py", f"def {right}():\n    return 2\n")


def conflicted(repo: Repo) -> list[str]:
    return repo.git("diff", "--name-only", "--diff-filter=U").split()


def valid(raw: bytes) -> None:
    """Parses as gitgraph's layout and as a NetworkX node-link graph with no dangling link."""
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"valid-{os.getpid()}.json"
    path.write_bytes(raw)
    try:
        assert store.read_lines(path) is not None
    finally:
        path.unlink()
    data = json.loads(raw)
    graph = nx.node_link_graph(data, edges="links")
    assert graph.number_of_nodes() == len(data["nodes"])


def test_text_merge_of_distant_files_is_clean_and_of_adjacent_files_conflicts(
    project: Repo, tmp_path: Path
) -> None:
    branches(project, "a_first", "z_last")  # records far apart in every array
    merged = project.git("merge", "--no-edit", "left")
    assert "CONFLICT" not in merged and project.git("status", "--porcelain") == ""
    assert_exact(project, "HEAD", tmp_path)

    project.git("reset", "-q", "--hard", "HEAD~1")
    project.git("branch", "-q", "-D", "left")
    project.git("reset", "-q", "--hard", "HEAD~1")
    branches(project, "f_mid", "k_mid")  # neighbours: their new records touch
    project.git("merge", "--no-edit", "left", check=False)
    assert conflicted(project) == [GRAPH]
    assert b"<<<<<<< " in project.read(GRAPH)


def test_driver_merges_adjacent_files_into_an_exact_graph(project: Repo, tmp_path: Path) -> None:
    assert project.gitgraph("install", "--merge-driver")[0] == 0
    project.git("add", ".gitattributes")
    project.git("commit", "-q", "-m", "attributes")
    branches(project, "f_mid", "k_mid")
    project.git("merge", "--no-edit", "left")  # committed by git: no conflict left
    assert project.git("status", "--porcelain") == ""
    assert_exact(project, "HEAD", tmp_path)


def test_driver_keeps_ours_where_both_sides_changed_a_file_and_the_hook_fixes_it(
    project: Repo, tmp_path: Path, pre_commit_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    assert project.gitgraph("install", "--merge-driver")[0] == 0
    project.git("add", ".gitattributes")
    install(project, local_config({"gitgraph": []}))
    project.git("checkout", "-q", "-b", "left")
    commit_with_graph(project, "f_mid.py", "def f_left():\n    return 1\n")
    project.git("checkout", "-q", "main")
    commit_with_graph(project, "f_mid.py", "def f_main():\n    return 2\n")
    out = subprocess.run(["git", "merge", "--no-edit", "left"], cwd=project.path, text=True,
                         capture_output=True, check=False)
    assert "kept our records (f_mid.py)" in out.stderr
    assert conflicted(project) == ["f_mid.py"]  # graph.json merged by the driver
    valid(project.read(GRAPH))
    assert "f_mid.py::f_main" in node_ids(project.read(GRAPH))
    project.write("f_mid.py", "def f_left():\n    return 1\n\n\ndef f_main():\n    return 2\n")
    project.git("add", "f_mid.py")
    done = commit(project, "-q", "--no-edit")
    assert done.returncode == 0, done.stdout
    assert_exact(project, "HEAD", tmp_path)
    assert {"f_mid.py::f_left", "f_mid.py::f_main"} <= node_ids(committed(project))


def test_conflict_markers_are_regenerated_by_the_hook(
    project: Repo, tmp_path: Path, pre_commit_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    install(project, local_config({"gitgraph": []}))
    branches(project, "f_mid", "k_mid")
    project.git("merge", "--no-edit", "left", check=False)
    assert conflicted(project) == [GRAPH]
    project.git("add", GRAPH)  # markers and all: git refuses to commit unmerged paths
    done = commit(project, "-q", "--no-edit")
    assert done.returncode == 0, done.stdout
    assert_exact(project, "HEAD", tmp_path)
    assert project.git("status", "--porcelain") == ""


# -- rebase and cherry-pick (git runs no pre-commit hook for their picks) ---------------------


def test_rebase_of_distant_files_gives_exact_graphs(project: Repo, tmp_path: Path) -> None:
    branches(project, "a_first", "z_last")
    project.git("checkout", "-q", "left")
    project.git("rebase", "-q", "main")
    assert_exact(project, "HEAD", tmp_path)


def test_conflicted_rebase_is_resolved_by_update(project: Repo, tmp_path: Path) -> None:
    branches(project, "f_mid", "k_mid")
    project.git("checkout", "-q", "left")
    commit_with_graph(project, "z_last.py", "def z_more():\n    return 3\n", "second pick")
    stopped = subprocess.run(["git", "rebase", "main"], cwd=project.path, capture_output=True,
                             text=True, check=False)
    assert stopped.returncode != 0 and conflicted(project) == [GRAPH]
    assert project.gitgraph("update", "--staged", "--stage")[0] == 0
    project.git("rebase", "--continue")  # the second pick merges as text: cleanly
    for rev in ("HEAD~1", "HEAD"):
        assert_exact(project, rev, tmp_path)


def test_rebase_exec_tip_from_the_docs(project: Repo, tmp_path: Path) -> None:
    assert project.gitgraph("install", "--merge-driver")[0] == 0
    branches(project, "f_mid", "k_mid")
    project.git("checkout", "-q", "left")
    commit_with_graph(project, "p_mid.py", "def p_more():\n    return k_mid()\n", "calls k_mid")
    project.git("rebase", "-q", "main", "--exec",
                "gitgraph update --staged --stage --quiet && "
                "git commit -q --amend --no-edit --no-verify --allow-empty")
    for rev in ("HEAD~1", "HEAD"):
        assert_exact(project, rev, tmp_path)


def test_cherry_pick_clean_and_conflicted(
    project: Repo, tmp_path: Path, pre_commit_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    install(project, local_config({"gitgraph": []}))
    branches(project, "f_mid", "z_last")
    project.git("cherry-pick", "left")  # distant: merges as text, no hook runs
    assert_exact(project, "HEAD", tmp_path)

    project.git("checkout", "-q", "left")
    commit_with_graph(project, "k_mid.py", "def k_left():\n    return 1\n")
    project.git("checkout", "-q", "main")
    commit_with_graph(project, "k_mid.py", "def k_main():\n    return 2\n")
    project.git("cherry-pick", "left", check=False)
    assert conflicted(project) == [GRAPH, "k_mid.py"]
    project.write("k_mid.py", "def k_both():\n    return 3\n")
    project.git("add", "k_mid.py", GRAPH)
    done = subprocess.run(["git", "cherry-pick", "--continue"], cwd=project.path, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert done.returncode == 0, done.stdout  # this commit runs the hook: it rebuilds
    assert_exact(project, "HEAD", tmp_path)
    assert "k_mid.py::k_both" in node_ids(committed(project))


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")
