"""Hooks running at the same time, and writers killed mid-write: no lost update, no torn file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hookrepo import GITGRAPH, GRAPH

from gitgraph import sealed, store
from gitgraph.commands.index import refresh

if TYPE_CHECKING:
    from conftest import Repo


def project(repo: Repo, files: int = 40) -> None:
    """`files` modules, each calling into the previous one; committed with their graph."""
    for i in range(files):
        caller = f"from m{i - 1:03} import f{i - 1}\n\n\n" if i else ""
        call = f"f{i - 1}(x)" if i else "x"
        repo.write(f"m{i:03}.py", f"{caller}def f{i}(x):\n    return {call}\n\n\n"
                                  f"class C{i}:\n    def method(self):\n        return f{i}(1)\n")
    repo.git("add", "-A")
    assert repo.gitgraph("update", "--staged", "--stage")[0] == 0
    repo.commit("init", add=False)


def hooks(cwds: list[Path], *args: str) -> list[subprocess.Popen[str]]:
    return [subprocess.Popen([GITGRAPH, "hook", *args], cwd=cwd, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for cwd in cwds]


def finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, str]]:
    results = []
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        results.append((proc.returncode, err))
    return results


def assert_current_and_staged(repo: Repo) -> None:
    """graph.json parses, describes the index, and is what the index holds."""
    assert store.read_lines(repo.path / GRAPH) is not None
    code, out, err = repo.gitgraph("check")
    assert code == 0, out + err
    assert repo.git("diff", "--name-only", "--", GRAPH) == ""


def test_two_hooks_at_once_on_one_repository(repo: Repo) -> None:
    project(repo)
    for round_ in range(4):
        # even rounds only change bodies (the splice), odd ones add a function (a rebuild)
        extra = f"\n\ndef added{round_}():\n    return 0\n" if round_ % 2 else ""
        repo.write(f"m{round_:03}.py", f"def f{round_}(x):\n    return x + {round_}\n{extra}")
        repo.git("add", "-A")
        for code, err in finish(hooks([repo.path, repo.path])):
            assert (code, err) == (0, "")
        assert_current_and_staged(repo)


def test_no_update_is_lost_to_a_hook_that_waited_for_the_lock(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook waits while another writer holds the lock and, meanwhile, stages new files and
    their graph. The waiting hook must read the index after acquiring the lock: working from
    what it saw before, it would put back the graph of the older index."""
    project(repo)
    lock = repo.path / ".git" / "gitgraph" / "graph.lock"
    for round_ in range(3):
        repo.write(f"m{round_:03}.py", f"def f{round_}(x):\n    return {round_}\n\n\n"
                                       f"def late{round_}():\n    return 0\n")
        # the other writer's result, computed beforehand in a scratch index
        scratch = tmp_path / f"index-{round_}"
        scratch.write_bytes((repo.path / ".git" / "index").read_bytes())
        monkeypatch.setenv("GIT_INDEX_FILE", str(scratch))
        repo.git("add", "-A")
        assert repo.gitgraph("index", "--staged", "-o", str(tmp_path / "next.json"))[0] == 0
        monkeypatch.delenv("GIT_INDEX_FILE")
        with store.locked(lock):  # the other writer
            waiting = hooks([repo.path, repo.path])
            time.sleep(0.6)  # both hooks are blocked on the lock by now
            repo.git("add", "-A")
            (repo.path / GRAPH).write_bytes((tmp_path / "next.json").read_bytes())
            repo.git("add", GRAPH)
        for code, err in finish(waiting):
            assert (code, err) == (0, "")
        assert_current_and_staged(repo)
        assert (repo.path / GRAPH).read_bytes() == (tmp_path / "next.json").read_bytes()


def test_two_hooks_at_once_in_two_linked_worktrees(repo: Repo, tmp_path: Path) -> None:
    project(repo)
    repo.git("worktree", "add", "-q", "-b", "other", str(tmp_path / "wt"))
    trees = [repo, repo.at(tmp_path / "wt")]
    for round_ in range(3):
        for n, tree in enumerate(trees):
            tree.write(f"m{10 * n + round_:03}.py", f"def g{n}_{round_}():\n    return {n}\n")
            tree.git("add", "-A")
        for code, err in finish(hooks([tree.path for tree in trees])):
            assert (code, err) == (0, "")
        for tree in trees:
            assert_current_and_staged(tree)
    assert not (repo.path / ".git" / "worktrees" / "wt" / "gitgraph").exists()


@pytest.mark.parametrize("edit", ["body", "interface"])
def test_graph_json_is_old_or_new_whenever_the_writer_is_killed(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    """50 kills per kind of edit (100 in all), at random points of a writer that keeps
    rewriting graph.json between two states (a splice for bodies, a rebuild otherwise)."""
    project(repo, files=150)
    old_index = tmp_path / "old-index"
    old_index.write_bytes((repo.path / ".git" / "index").read_bytes())
    text = "def f7(x):\n    return -x\n"
    if edit == "interface":
        text += "\n\ndef f7_new():\n    return 0\n"
    repo.write("m007.py", text)
    repo.write("m100.py", "def f100(x):\n    return 100\n")
    repo.git("add", "m007.py", "m100.py")
    new_index = tmp_path / "new-index"
    new_index.write_bytes((repo.path / ".git" / "index").read_bytes())
    indexes = [str(old_index), str(new_index)]

    states = []
    started = time.perf_counter()
    for index in indexes + indexes:  # fills the blob cache, then times one round trip
        monkeypatch.setenv("GIT_INDEX_FILE", index)
        refresh(cwd=repo.path, staged=True, stage=False, quiet=True)
        states.append((repo.path / GRAPH).read_bytes())
        if len(states) == 2:
            started = time.perf_counter()
    round_trip = time.perf_counter() - started
    old, new = states[:2]
    assert old != new and states[2:] == [old, new]

    rng = random.Random(f"kill-9-{edit}")
    seen = set()
    for _ in range(50):
        pid = os.fork()
        if pid == 0:  # the writer: flips graph.json between the two states until killed
            try:
                for n in range(1_000_000):
                    os.environ["GIT_INDEX_FILE"] = indexes[n % 2]
                    refresh(cwd=repo.path, staged=True, stage=False, quiet=True)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0, 2 * round_trip))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        current = (repo.path / GRAPH).read_bytes()
        assert current in (old, new)
        seen.add(current)
    assert seen == {old, new}  # the kills did land on both sides of writes
    # whatever was killed where, the next run is unharmed (the lock died with its holder)
    monkeypatch.setenv("GIT_INDEX_FILE", indexes[1])
    refresh(cwd=repo.path, staged=True, stage=False, quiet=True)
    assert (repo.path / GRAPH).read_bytes() == new


def test_orphaned_temp_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    graph = tmp_path / "graph.json"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = tmp_path / f".graph.json.{dead.pid}.abcd1234.tmp"
    orphan.write_bytes(b"torn")
    live = tmp_path / f".graph.json.{os.getpid()}.abcd1234.tmp"  # a writer still running
    live.write_bytes(b"in progress")
    store.write_atomic(graph, b"{}\n")
    assert graph.read_bytes() == b"{}\n"
    assert not orphan.exists() and live.exists()
    # the same for the caches beside the blob cache (tables, views: megabytes each)
    tables = tmp_path / "tables-x.bin"
    orphan, live = (tmp_path / f".tables-x.bin.{pid}.tmp" for pid in (dead.pid, os.getppid()))
    orphan.write_bytes(b"torn")
    live.write_bytes(b"in progress")
    sealed.dump(tables, {"a": 1})
    assert sealed.load(tables) == {"a": 1}
    assert not orphan.exists() and live.exists()
