"""Repositories driven through the real `pre-commit`, with gitgraph's manifest as `repo: local`.

The hooks are taken from the project's own `.pre-commit-hooks.yaml`, with `language: system`
and the venv's `gitgraph` script as the entry (tests only: users get `language: python`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from conftest import Repo

PROJECT = Path(__file__).resolve().parents[1]
MANIFEST = PROJECT / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent
GITGRAPH = shutil.which("gitgraph", path=str(BIN)) or "gitgraph"
PRE_COMMIT = shutil.which("pre-commit", path=str(BIN)) or "pre-commit"
GRAPH = ".gitgraph/graph.json"
HOOK_TYPES = ("pre-commit", "pre-merge-commit", "post-checkout", "post-merge", "post-rewrite")


def manifest() -> dict[str, dict[str, Any]]:
    """The hooks of `.pre-commit-hooks.yaml`, by id."""
    return {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}


def local_config(hooks: dict[str, list[str]], verbose: bool = False) -> str:
    """A `.pre-commit-config.yaml` running the manifest's hooks (id → extra args) locally;
    `verbose` shows their output even when they pass."""
    entries = []
    for hook_id, args in hooks.items():
        hook = dict(manifest()[hook_id])
        command = hook["entry"].split()
        assert command[0] == "gitgraph"
        hook.update(language="system", entry=" ".join([GITGRAPH, *command[1:]]))
        hook.pop("minimum_pre_commit_version", None)
        if args:
            hook["args"] = args
        if verbose:
            hook["verbose"] = True
        entries.append(hook)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": entries}]}, sort_keys=False)


def install(repo: Repo, config: str, message: str = "pre-commit config") -> None:
    """Commit `config` as `.pre-commit-config.yaml` and install every hook type."""
    repo.write(".pre-commit-config.yaml", config)
    repo.git("add", ".pre-commit-config.yaml")
    repo.git("commit", "-q", "--no-verify", "-m", message)
    types = [arg for hook_type in HOOK_TYPES for arg in ("--hook-type", hook_type)]
    pre_commit(repo, "install", *types)


def pre_commit(repo: Repo, *args: str, env: dict[str, str] | None = None,
               check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real pre-commit; its output is in the result (stdout and stderr merged)."""
    proc = subprocess.run([PRE_COMMIT, *args], cwd=cwd or repo.path, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={**os.environ, **(env or {})}, check=False)
    if check and proc.returncode:
        raise AssertionError(f"pre-commit {' '.join(args)} exited {proc.returncode}:\n"
                             f"{proc.stdout}")
    return proc


def commit(repo: Repo, *args: str, env: dict[str, str] | None = None,
           cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`git commit ARGS` with the installed hooks running; never raises."""
    return subprocess.run(["git", "commit", *args], cwd=cwd or repo.path, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={**os.environ, "GIT_EDITOR": "true", **(env or {})}, check=False)


def committed(repo: Repo, rev: str = "HEAD", path: str = GRAPH) -> bytes:
    """graph.json as committed in `rev`."""
    proc = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo.path, capture_output=True,
                          check=True)
    return proc.stdout


def fresh(repo: Repo, rev: str, out: Path) -> bytes:
    """A full build of `rev`'s tree (the bytes every committed graph must equal)."""
    code, _, err = repo.gitgraph("index", "--rev", rev, "-o", str(out))
    assert code == 0, err
    return out.read_bytes()


def assert_exact(repo: Repo, rev: str, scratch: Path) -> None:
    """The graph committed in `rev` describes exactly `rev`'s tree, byte for byte."""
    assert committed(repo, rev) == fresh(repo, rev, scratch / "fresh.json"), rev


def node_ids(raw: bytes) -> set[str]:
    """Node ids of a graph.json."""
    return {node["id"] for node in json.loads(raw)["nodes"]}
