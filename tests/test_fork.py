"""Work in a forked child: its value comes back, a failure reads as None (the caller then
does the work itself), and the child never writes to the parent's streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import Repo

from gitgraph import config as config_mod
from gitgraph.cache import BlobCache
from gitgraph.extract import extractor_digest
from gitgraph.fork import forked
from gitgraph.index import prefetch_staged


def test_the_value_of_the_child_comes_back_once_computed() -> None:
    parent = os.getpid()
    result = forked(lambda: {"pid": os.getpid(), "items": [1, 2.5, "three", (4, b"5")]})
    value = result()
    assert value["items"] == [1, 2.5, "three", (4, b"5")]
    assert value["pid"] != parent  # computed in another process
    assert result() is value  # asked again: the same answer, no second wait


def test_a_failing_or_killed_child_reads_as_none() -> None:
    assert forked(lambda: 1 / 0)() is None
    assert forked(lambda: os.kill(os.getpid(), 9))() is None
    assert forked(lambda: object())() is None  # not marshal-able


def test_the_child_is_silent_and_holds_no_pipe_of_the_caller() -> None:
    # Output through a pipe (as pre-commit reads a hook's): the child prints and lingers,
    # yet the reader sees neither its text nor a pipe kept open after the parent exits.
    script = (
        "import sys, time; from gitgraph.fork import forked\n"
        "forked(lambda: (print('child speaks'), sys.stderr.write('child err\\n'),"
        " time.sleep(30)))\n"
        "print('parent done')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=20)
    assert proc.stdout == b"parent done\n" and proc.stderr == b""


def test_prefetch_parses_the_staged_source_files_into_the_cache(repo: Repo) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("a")
    repo.write("a.py", "def a():\n    return 2\n")
    repo.write("b.py", "def b():\n    return a()\n")
    repo.write("notes.txt", "not source\n")
    repo.git("add", "a.py", "b.py", "notes.txt")
    config = config_mod.load(repo.path)
    assert prefetch_staged(repo.path, config)() == 2  # a.py and b.py, not notes.txt
    cache = BlobCache(repo.path / ".git", extractor_digest(config.max_file_bytes))
    for path in ("a.py", "b.py"):
        blob = repo.git("rev-parse", f":{path}").strip()
        found = cache.get(blob, "python")
        assert found is not None and [s.qualname for s in found.symbols] == [Path(path).stem]


def test_prefetch_before_the_first_commit_does_nothing(repo: Repo) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.git("add", "a.py")
    assert prefetch_staged(repo.path, config_mod.load(repo.path))() is None  # no HEAD
