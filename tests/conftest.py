"""Real git repositories for tests: fixed identities and dates, no machine config."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import gitgraph.cli
from gitgraph.config import parse

# .gitgraph.yml, and the Config, of tests about which single tests are impacted: names every
# test alone, never a test class or file for most of its tests (see testids.impacted_tests)
ONE_BY_ONE_YML = "weights:\n  test_group_share: 2\n"
ONE_BY_ONE = parse({"weights": {"test_group_share": 2}})

GITGRAPH = shutil.which("gitgraph", path=str(Path(sys.executable).parent)) or "gitgraph"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada Tester",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_AUTHOR_DATE": "2024-01-02T03:04:05+00:00",
    "GIT_COMMITTER_NAME": "Ada Tester",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_COMMITTER_DATE": "2024-01-02T03:04:05+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


class Repo:
    """A git work tree in a temporary directory, and ways to drive gitgraph in it."""

    def __init__(self, path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.path = path
        self._capsys = capsys
        # `gitgraph index` patches the last graph it wrote when it can; tests compare with
        # it as a build from nothing (the reference) unless they test that reuse
        self.reuse_last_graph = False

    def at(self, path: Path) -> Repo:
        """Another work tree (a clone, a linked worktree), driven the same way."""
        return Repo(path, self._capsys)

    def git(self, *args: str, check: bool = True) -> str:
        """Run git in the repository; stdout as text."""
        proc = subprocess.run(["git", *args], cwd=self.path, capture_output=True, check=False)
        if check and proc.returncode:
            raise AssertionError(f"git {' '.join(args)}: {proc.stderr.decode()}")
        return proc.stdout.decode("utf-8", "surrogateescape")

    def write(self, path: str, text: str | bytes) -> Path:
        """Create or replace a file (parent directories included)."""
        target = self.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, str):
            text = text.encode("utf-8")
        target.write_bytes(text)
        return target

    def read(self, path: str) -> bytes:
        return (self.path / path).read_bytes()

    def commit(self, message: str = "change", add: bool = True) -> str:
        """Stage everything (unless `add=False`) and commit; returns the commit id."""
        if add:
            self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def forget_last_graph(self) -> None:
        """Delete the last graph gitgraph kept: the next `index` builds from nothing."""
        common = self.git("rev-parse", "--path-format=absolute", "--git-common-dir").strip()
        for kept in (Path(common) / "gitgraph").glob("last-*.json"):
            kept.unlink()

    def _before(self, args: tuple[str, ...]) -> None:
        if "index" in args and not self.reuse_last_graph and (self.path / ".git").exists():
            self.forget_last_graph()

    def run_cli(self, *args: str) -> tuple[int, str, str]:
        """`gitgraph -C repo ARGS` in this process: (exit code, stdout, stderr)."""
        self._before(args)
        self._capsys.readouterr()
        code = gitgraph.cli.main(["-C", str(self.path), *args])
        out, err = self._capsys.readouterr()
        return code, out, err

    def gitgraph(self, *args: str, cwd: Path | None = None) -> tuple[int, str, str]:
        """The installed console script in a subprocess (whole-process behaviour)."""
        self._before(args)
        proc = subprocess.run([GITGRAPH, *args], cwd=cwd or self.path, capture_output=True,
                              text=True, errors="replace", check=False)
        return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed identities and dates; the machine's git config cannot interfere."""
    for key in list(os.environ):
        if key.startswith("GIT_"):
            monkeypatch.delenv(key)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def make_repo(git_env: None, capsys: pytest.CaptureFixture[str]) -> Callable[[Path], Repo]:
    """A factory of empty repositories (branch `main`, no commits) at given paths."""

    def make(path: Path) -> Repo:
        path.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
        return Repo(path, capsys)

    return make


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[[Path], Repo]) -> Repo:
    """An empty repository on branch `main`, no commits."""
    return make_repo(tmp_path / "repo")
