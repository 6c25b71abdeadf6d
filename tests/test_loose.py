"""Blobs written ahead of `git add` must be exactly the objects git would write: git reads
them back byte for byte, `git add` names the same blob, `git fsck` finds nothing wrong."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from conftest import Repo

from gitgraph import git, loose

GRAPH = ".gitgraph/graph.json"


def content(size: int) -> bytes:
    """JSON-like lines with some randomness, so the two halves deflate differently."""
    rng = random.Random(size)
    lines = []
    while sum(map(len, lines)) < size:
        lines.append(b'{"source":"pkg/m%d.py::f%d","target":"pkg/n.py::g","kind":"calls"},\n'
                     % (rng.randrange(500), rng.randrange(10**6)))
    return b"".join(lines)[:size]


def fsck(repo: Repo) -> None:
    proc = subprocess.run(["git", "fsck", "--full", "--strict"], cwd=repo.path,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "error" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("size", [0, 1, 1000, 40_000, 70_000, 3_000_001])
def test_primed_blobs_are_the_objects_git_writes(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(loose, "MIN_BYTES", 0)
    data = content(size)
    repo.write(GRAPH, data)
    oid = loose.prime(repo.path / ".git", repo.path / GRAPH)
    assert oid == repo.git("hash-object", GRAPH).strip()
    stored = repo.path / ".git" / "objects" / oid[:2] / oid[2:]
    assert stored.stat().st_mode & 0o777 == 0o444 & ~_umask()
    assert subprocess.run(["git", "cat-file", "blob", oid], cwd=repo.path,
                          capture_output=True, check=True).stdout == data
    git.stage_file(repo.path, GRAPH)  # finds the object and keeps it
    assert repo.git("ls-files", "-s", GRAPH).split()[1] == oid
    repo.commit("graph")
    fsck(repo)
    assert not [p for p in stored.parent.iterdir() if p.name.startswith("tmp_obj")]


def test_an_object_already_stored_is_left_alone(repo: Repo, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    monkeypatch.setattr(loose, "MIN_BYTES", 0)
    repo.write(GRAPH, content(5000))
    oid = repo.git("hash-object", "-w", GRAPH).strip()
    stored = repo.path / ".git" / "objects" / oid[:2] / oid[2:]
    before = stored.read_bytes()  # git's own bytes (its compression, not ours)
    assert loose.prime(repo.path / ".git", repo.path / GRAPH) == oid
    assert stored.read_bytes() == before


def test_small_files_are_left_to_git(repo: Repo) -> None:
    repo.write(GRAPH, content(1000))
    assert loose.prime(repo.path / ".git", repo.path / GRAPH) is None


@pytest.mark.parametrize("init", [["--object-format=sha256"], ["--shared=group"]])
def test_unusual_repositories_are_left_to_git(
    tmp_path: Path, git_env: None, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, init: list[str]
) -> None:
    monkeypatch.setattr(loose, "MIN_BYTES", 0)
    subprocess.run(["git", "init", "-q", *init, str(tmp_path / "r")], check=True)
    repo = Repo(tmp_path / "r", capsys)
    repo.write(GRAPH, content(5000))
    assert loose.prime(repo.path / ".git", repo.path / GRAPH) is None
    git.stage_file(repo.path, GRAPH)
    repo.commit("graph")
    fsck(repo)


def test_another_object_directory_is_left_to_git(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(loose, "MIN_BYTES", 0)
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path / "elsewhere"))
    repo.write(GRAPH, content(5000))
    assert loose.prime(repo.path / ".git", repo.path / GRAPH) is None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
