"""`gitgraph index`, `update` and `check`: keep graph.json describing a tree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

from gitgraph import config as config_mod
from gitgraph import git, incremental, store
from gitgraph.config import Config
from gitgraph.index import Report, Tree, build_tree_graph, snapshot, source_files
from gitgraph.model import FileEntry


def _lock(root: Path) -> Path:
    return git.common_dir(root) / "gitgraph" / "graph.lock"


def _full(root: Path, tree: Tree, config: Config, quiet: bool) -> store.GraphLines:
    """Build the whole graph of `tree` (from the blob cache where it can)."""
    graph, files, report = build_tree_graph(root, tree, config)
    if not quiet:
        skipped = sum(report.skipped.values())
        extra = f", {skipped} skipped" if skipped else ""
        print(f"gitgraph: {report.files} files ({report.extracted} parsed, {report.cached} "
              f"cached{extra}), {len(graph.nodes) - len(files)} symbols, {len(graph.edges)} "
              f"edges", file=sys.stderr)
    return store.to_lines(graph, files, config)


def _write_if_changed(path: Path, lines: store.GraphLines) -> bool:
    """Write graph.json piece by piece, leaving it untouched when the bytes are the same."""
    return store.write_atomic(path, store.chunks(lines), unless_equal=True)


def index(*, cwd: Path, rev: str | None, staged: bool, output: str | None) -> int:
    """Full build of graph.json for a revision, the index or the work tree (reuses the cache)."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    tree = snapshot(root, rev=rev, staged=staged)
    # -o is relative to where the user stands (-C included); the configured path to the root
    path = cwd / output if output else root / config.graph
    with store.locked(_lock(root)):
        _write_if_changed(path, _full(root, tree, config, quiet=False))
    return 0


class Refreshed(NamedTuple):
    """What `refresh` did to graph.json (the pre-commit hook's `--no-stage` mode needs it)."""

    root: Path  # the work tree's top directory
    graph: str  # repo-relative path of graph.json
    written: bool  # the file was rewritten
    tracked: bool  # the described tree (the index, when staged) already held graph.json


def update(*, cwd: Path, staged: bool, stage: bool, quiet: bool) -> int:
    """Bring graph.json up to date: nothing when it is; spliced when only bodies changed."""
    refresh(cwd=cwd, staged=staged, stage=stage, quiet=quiet)
    return 0


def refresh(*, cwd: Path, staged: bool, stage: bool, quiet: bool) -> Refreshed:
    """`update`'s work, saying whether graph.json was rewritten and whether git tracks it."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    path = root / config.graph
    with store.locked(_lock(root)):
        # Read under the lock: a concurrent writer may just have brought it up to date.
        tree = snapshot(root, staged=staged)
        files = source_files(tree, config, Report())
        written = False
        # A text merge leaves a file table that matches the tree, but links between files
        # of the two sides may be missing or dangling: while one is committed, rebuild.
        merging = git.merge_in_progress(root)
        if _stale(path, files, config) is not None or merging:
            lines = None if merging else _spliced(root, path, tree, files, config)
            if lines is None:
                lines = _full(root, tree, config, quiet)
            elif not quiet:
                print("gitgraph: updated graph.json incrementally", file=sys.stderr)
            written = _write_if_changed(path, lines)
        tracked = any(e.path == config.graph for e in tree.entries)
        if stage and (written or _unstaged(root, config.graph, tracked)):
            git.stage_file(root, config.graph)
    return Refreshed(root, config.graph, written, tracked)


def _spliced(root: Path, path: Path, tree: Tree, files: list[FileEntry], config: Config
             ) -> store.GraphLines | None:
    """graph.json's lines patched for `files`, or None when a full build is needed."""
    try:
        lines = store.read_lines(path)
    except store.CorruptGraph:
        return None
    if lines is None or lines.header != store.header(config):
        return None
    return incremental.patch(root, config, lines, tree, files)


def _unstaged(root: Path, graph: str, tracked: bool) -> bool:
    """graph.json differs from its staged copy (or is not staged yet). Judged by the index's
    stat data, not by hashing the file: a touched but unchanged file is staged again."""
    return not tracked or git.worktree_differs(root, graph)


def _stale(path: Path, files: list[FileEntry], config: Config) -> list[str] | None:
    """Paths whose graph.json record differs from `files`; None when up to date."""
    try:
        table = store.read_file_table(path)
    except store.CorruptGraph as exc:
        print(f"gitgraph: warning: {exc}; regenerating it", file=sys.stderr)
        return ["(graph.json unreadable)"]
    if table is None:
        return ["(no graph.json)"]
    header, stored = table
    if header != store.header(config):
        return ["(graph.json from another gitgraph version or config)"]
    wanted = {f.path: f for f in files}
    have = {f.path: f for f in stored}
    stale = sorted(p for p in wanted.keys() | have.keys() if wanted.get(p) != have.get(p))
    return stale or None


def check(*, cwd: Path, rev: str | None) -> int:
    """Exit 1 naming the stale files when graph.json does not describe the index (or REV)."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    tree = snapshot(root, rev=rev, staged=rev is None)
    stale = _stale(root / config.graph, source_files(tree, config, Report()), config)
    if stale is None:
        print(f"gitgraph: {config.graph} is up to date", file=sys.stderr)
        return 0
    print(f"gitgraph: {config.graph} is stale ({len(stale)} file(s); run `gitgraph update"
          f"{'' if rev else ' --staged'}`):", file=sys.stderr)
    for path in stale[:50]:
        print(f"  {path}")
    if len(stale) > 50:
        print(f"  ... and {len(stale) - 50} more")
    return 1
