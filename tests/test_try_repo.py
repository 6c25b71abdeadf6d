"""The hooks as users get them: `language: python`, pip-installed by pre-commit from a clone of
this project (its work tree as it is now, uncommitted changes included).

pre-commit builds a virtualenv and `pip install`s the clone, which downloads the dependencies
from PyPI: slow, so it happens once per session for the config below (session-scoped
PRE_COMMIT_HOME) and once for `try-repo` (which always uses a fresh store). Deselect with
`-m "not pre_commit_install"`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import GIT_ENV
from hookrepo import GRAPH, PROJECT, assert_exact, commit, pre_commit

if TYPE_CHECKING:
    from conftest import Repo

pytestmark = pytest.mark.pre_commit_install

EXAMPLE = PROJECT / "examples" / "pre-commit" / ".pre-commit-config.yaml"


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A git repository holding this project's current work tree; (path, commit id)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=PROJECT, capture_output=True,
                            check=True).stdout.split(b"\0")
    copy = tmp_path_factory.mktemp("gitgraph-hook-repo")
    for raw in listed:
        path = os.fsdecode(raw)
        if path and (PROJECT / path).is_file() and not path.startswith("tests/data/"):
            (copy / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT / path, copy / path)
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run(["git", *args], cwd=copy, env=env, check=True, capture_output=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=copy, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()
    return copy, head


@pytest.fixture(scope="session")
def installed_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home-installed")


def test_try_repo_all_files(repo: Repo, hook_repo: tuple[Path, str],
                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "home"))
    repo.write("lib.py", "def helper(x):\n    return x + 1\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "init")
    run = pre_commit(repo, "try-repo", str(hook_repo[0]), "gitgraph", "--all-files")
    assert "gitgraph (keep graph.json current)" in run.stdout
    assert repo.git("status", "--porcelain") == f"A  {GRAPH}\n"
    repo.git("commit", "-q", "--no-verify", "-m", "graph")
    assert_exact(repo, "HEAD", tmp_path)


def test_example_config_against_a_local_clone(repo: Repo, hook_repo: tuple[Path, str],
                                              installed_home: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(installed_home))
    path, head = hook_repo
    config = EXAMPLE.read_text().replace("https://github.com/OWNER/gitgraph", str(path))
    config = config.replace("rev: v0.1.0", f"rev: {head}")
    config += "      - id: gitgraph-check\n        stages: [manual]\n"
    repo.write(".pre-commit-config.yaml", config)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "config")
    pre_commit(repo, "install")  # every type in default_install_hook_types
    pre_commit(repo, "install-hooks")  # pip installs the clone (once per session)

    repo.write("lib.py", "def helper(x):\n    return x + 1\n")
    repo.git("add", "-A")
    done = commit(repo, "-q", "-m", "first")
    assert done.returncode == 0, done.stdout
    assert_exact(repo, "HEAD", tmp_path)
    repo.write("lib.py", "def helper(x):\n    return x + 2\n")
    repo.git("add", "-A")
    assert commit(repo, "-q", "-m", "second").returncode == 0
    assert_exact(repo, "HEAD", tmp_path)
    pre_commit(repo, "run", "--hook-stage", "manual", "gitgraph-check", "--all-files")

    repo.git("checkout", "-q", "-b", "side")  # post-checkout: the warm hook runs, quietly
    assert repo.git("status", "--porcelain") == ""
