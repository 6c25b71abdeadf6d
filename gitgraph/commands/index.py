"""`gitgraph index`, `update` and `check`: keep graph.json describing a tree."""

from __future__ import annotations

import sys
from pathlib import Path

from gitgraph import config as config_mod
from gitgraph import git, store
from gitgraph.config import Config
from gitgraph.extract import extractor_digest
from gitgraph.index import Report, Tree, build_tree_graph, snapshot, source_files

ENCODING_KEY = "encoding"


def _graph_path(root: Path, cwd: Path, output: str | None, graph: str) -> Path:
    # -o is relative to where the user stands (`-C` included), the configured path to the root
    return cwd / output if output else root / graph


def _summary(report: Report, symbols: int, edges: int, target: str) -> None:
    skipped = sum(report.skipped.values())
    extra = f", {skipped} skipped" if skipped else ""
    print(f"gitgraph: {report.files} files ({report.extracted} parsed, {report.cached} cached"
          f"{extra}), {symbols} symbols, {edges} edges -> {target}", file=sys.stderr)


def _write(root: Path, tree: Tree, path: Path, config: Config, quiet: bool) -> bool:
    """Build the graph of `tree` and write it when its bytes differ; True if written."""
    graph, files, report = build_tree_graph(root, tree, config)
    payload = store.render(graph, files, extractor_digest(config.max_file_bytes),
                           config.encoding)
    try:
        unchanged = path.read_bytes() == payload
    except OSError:
        unchanged = False
    if not unchanged:
        store.write_atomic(path, payload)
    if not quiet:
        symbols = len(graph.nodes) - len(files)
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        _summary(report, symbols, len(graph.edges), str(shown))
    return not unchanged


def index(*, cwd: Path, rev: str | None, staged: bool, output: str | None) -> int:
    """Full build of graph.json for a revision, the index or the work tree (reuses the cache)."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    tree = snapshot(root, rev=rev, staged=staged)
    path = _graph_path(root, cwd, output, config.graph)
    with store.locked(git.common_dir(root) / "gitgraph" / "graph.lock"):
        _write(root, tree, path, config, quiet=False)
    return 0


def update(*, cwd: Path, staged: bool, stage: bool, quiet: bool) -> int:
    """Bring graph.json up to date; nothing is parsed or written when it already is."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    path = root / config.graph
    with store.locked(git.common_dir(root) / "gitgraph" / "graph.lock"):
        # Read under the lock: a concurrent writer may just have brought it up to date.
        tree = snapshot(root, staged=staged)
        stale = _stale(root, tree, path, config)
        if stale is None:
            written = False
        else:
            written = _write(root, tree, path, config, quiet=quiet)
        if stage and (written or _unstaged(root, config.graph)):
            git.stage_file(root, config.graph)
    return 0


def _unstaged(root: Path, graph: str) -> bool:
    """graph.json differs from its staged copy (or is not staged yet)."""
    entries = {e.path: e.blob for e in git.ls_index(root)}
    current = git.hash_files(root, [graph]) if (root / graph).exists() else {}
    return entries.get(graph) != current.get(graph)


def _stale(root: Path, tree: Tree, path: Path, config: Config) -> list[str] | None:
    """Paths whose graph.json record differs from `tree`; None when up to date."""
    try:
        stored = store.load(path)
    except store.CorruptGraph as exc:
        print(f"gitgraph: warning: {exc}; regenerating it", file=sys.stderr)
        return ["(graph.json unreadable)"]
    if stored is None:
        return ["(no graph.json)"]
    if stored.extractor != extractor_digest(config.max_file_bytes):
        return ["(graph.json from another gitgraph version or config)"]
    wanted = {f.path: f for f in source_files(tree, config, Report())}
    have = {f.path: f for f in stored.files}
    stale = sorted(p for p in wanted.keys() | have.keys() if wanted.get(p) != have.get(p))
    return stale or None


def check(*, cwd: Path, rev: str | None) -> int:
    """Exit 1 naming the stale files when graph.json does not describe the index (or REV)."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    tree = snapshot(root, rev=rev, staged=rev is None)
    stale = _stale(root, tree, root / config.graph, config)
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
