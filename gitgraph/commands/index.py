"""`gitgraph index`, `update` and `check`: keep graph.json describing a tree."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import NamedTuple

from gitgraph import blake2b, git, incremental, log, sealed, store, tablestore
from gitgraph import config as config_mod
from gitgraph.config import Config
from gitgraph.index import Report, Tree, build_tree_records, prefetch_staged, snapshot, source_files
from gitgraph.model import FileEntry
from gitgraph.splice import Piece


def _lock(root: Path) -> Path:
    return git.common_dir(root) / "gitgraph" / "graph.lock"


def _full(root: Path, tree: Tree, config: Config, quiet: bool) -> store.GraphLines:
    """Build the whole graph of `tree` (from the blob cache where it can)."""
    lines, files, report, tables, symbols = build_tree_records(root, tree, config)
    tablestore.remember_tables(root, config, files, tables)
    if not quiet:
        skipped = sum(report.skipped.values())
        extra = f", {skipped} skipped" if skipped else ""
        print(f"gitgraph: {report.files} files ({report.extracted} parsed, {report.cached} "
              f"cached{extra}), {symbols} symbols, {len(lines.links)} edges", file=sys.stderr)
    return lines


def _write(root: Path, config: Config, path: Path, content: store.GraphLines | list[Piece]
           ) -> bool:
    """Write graph.json (whole lines piece by piece, left untouched when the bytes are the
    same; or spliced pieces), keep it as the last graph written, and remember its stat: the
    next run need not scan it whole."""
    if isinstance(content, store.GraphLines):
        written = store.write_atomic(path, store.chunks(content), unless_equal=True)
    else:
        written = store.write_atomic(path, content)
    if written:
        _keep(root, config, path)
        sealed.dump(_checked_file(root, path), store.stat_of(path))
    return written


def _kept_file(root: Path, config: Config) -> Path:
    """Where the last graph.json written (by this gitgraph version) is kept."""
    return git.common_dir(root) / "gitgraph" / f"last-{store.header(config)['extractor']}.json"


def _keep(root: Path, config: Config, path: Path) -> None:
    """Keep graph.json as the last graph written: a second name for the same file (nothing
    is copied; graph.json is only ever replaced, never written in place)."""
    kept = _kept_file(root, config)
    tmp = kept.with_name(f".{kept.name}.{os.getpid()}.tmp")
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.link(path, tmp)
        os.replace(tmp, kept)
    except OSError as exc:  # e.g. `-o` onto another file system
        log.info("cache: cannot keep %s (%s)", path.name, exc.strerror or exc)
        return
    sealed.dump(_checked_file(root, kept), store.stat_of(kept))  # (linking changed its ctime)


def _last_graph(root: Path, config: Config) -> store.GraphFile | None:
    """The last graph.json written, when it is of this version and config; else None."""
    kept = _kept_file(root, config)
    checked = sealed.load(_checked_file(root, kept))
    try:
        graph = store.open_graph(kept, checked if isinstance(checked, tuple) else None)
    except store.CorruptGraph as exc:
        log.info("cache: the last graph written is unusable (%s)", exc)
        return None
    return graph if graph is not None and graph.header == store.header(config) else None


def _patched(root: Path, config: Config, graph: store.GraphFile | None, tree: Tree,
             files: list[FileEntry]) -> list[Piece] | None:
    """graph.json's bytes for `files`, patched from `graph` (see incremental.patch); None
    when there is no graph or a full build is needed."""
    return None if graph is None else incremental.patch(root, config, graph, tree, files)


def index(*, cwd: Path, rev: str | None, staged: bool, output: str | None) -> int:
    """graph.json for a revision, the index or the work tree: the last graph written patched
    to it when that is bounded (the same bytes as a full build), else a full build from the
    blob cache (parsing what it lacks)."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    tree = snapshot(root, rev=rev, staged=staged)
    # -o is relative to where the user stands (-C included); the configured path to the root
    path = cwd / output if output else root / config.graph
    with store.locked(_lock(root)):
        last = _last_graph(root, config)
        files = source_files(tree, config, Report())
        pieces = _patched(root, config, last, tree, files)
        if pieces is not None:
            _write(root, config, path, pieces)
            assert last is not None
            differ = len({*last.files} ^ {*files})
            print(f"gitgraph: {len(files)} files (the last graph written, patched: "
                  f"{differ} file records differ)", file=sys.stderr)
        else:
            _write(root, config, path, _full(root, tree, config, quiet=False))
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
    parsed = prefetch_staged(root, config) if staged else lambda: None
    with store.locked(_lock(root)), contextlib.ExitStack() as reap:
        reap.callback(parsed)
        # Read under the lock: a concurrent writer may just have brought it up to date.
        tree = snapshot(root, staged=staged)
        files = source_files(tree, config, Report())
        written = False
        # A text merge leaves a file table that matches the tree, but links between files
        # of the two sides may be missing or dangling: while one is committed, rebuild.
        merging = git.merge_in_progress(root)
        opened = _open(root, path)
        old = opened.graph
        if _stale(opened, files, config) is not None or merging:
            parsed()
            pieces = None
            if not merging:  # graph.json, else (absent, or another version) the last written
                fits = old is not None and old.header == store.header(config)
                pieces = _patched(root, config, old if fits else _last_graph(root, config),
                                  tree, files)
            if pieces is not None:
                written = _write(root, config, path, pieces)
                if not quiet:
                    print("gitgraph: updated graph.json incrementally", file=sys.stderr)
            else:
                written = _write(root, config, path, _full(root, tree, config, quiet))
        tracked = any(e.path == config.graph for e in tree.entries)
        if stage and (written or _unstaged(root, config.graph, tracked)):
            git.stage_file(root, config.graph)
    return Refreshed(root, config.graph, written, tracked)


def prepare(*, root: Path, config: Config) -> None:
    """After a checkout: check graph.json once and store the tables that fit it, so that the
    next commit's hook reads neither the whole file nor its records (never writes it)."""
    path = root / config.graph
    if not path.exists():
        return
    with store.locked(_lock(root)):
        graph = _open(root, path).graph
        if graph is not None and graph.header == store.header(config):
            incremental.prepare(root, config, graph)


class Opened(NamedTuple):
    """graph.json as read, or why there is none to read."""

    graph: store.GraphFile | None
    problem: str  # "(no graph.json)", "(graph.json unreadable)" or ""


def _open(root: Path, path: Path) -> Opened:
    """graph.json as read; a warning when it cannot be trusted (it will be regenerated).

    A file scanned whole once (or written by gitgraph) is remembered by its stat, so the
    next run reads only the parts it uses while the file stays untouched."""
    checked_file = _checked_file(root, path)
    checked = sealed.load(checked_file)
    try:
        graph = store.open_graph(path, checked if isinstance(checked, tuple) else None)
    except store.CorruptGraph as exc:
        print(f"gitgraph: warning: {exc}; regenerating it", file=sys.stderr)
        return Opened(None, "(graph.json unreadable)")
    if graph is None:
        return Opened(None, "(no graph.json)")
    if graph.stat != checked:
        log.info("%s: read whole (changed since gitgraph last read it)", path.name)
        sealed.dump(checked_file, graph.stat)
    return Opened(graph, "")


def _checked_file(root: Path, path: Path) -> Path:
    """Where the stat of the last fully checked graph.json at `path` is kept."""
    name = blake2b(os.fsencode(path), digest_size=8).hexdigest()
    return git.common_dir(root) / "gitgraph" / f"checked-{name}"


def _unstaged(root: Path, graph: str, tracked: bool) -> bool:
    """graph.json differs from its staged copy (or is not staged yet). Judged by the index's
    stat data, not by hashing the file: a touched but unchanged file is staged again."""
    return not tracked or git.worktree_differs(root, graph)


def _stale(opened: Opened, files: list[FileEntry], config: Config) -> list[str] | None:
    """Paths whose graph.json record differs from `files`; None when up to date."""
    graph = opened.graph
    if graph is None:
        return [opened.problem]
    if graph.header != store.header(config):
        return ["(graph.json from another gitgraph version or config)"]
    wanted = {f.path: f for f in files}
    have = {f.path: f for f in graph.files}
    stale = sorted(p for p in wanted.keys() | have.keys() if wanted.get(p) != have.get(p))
    return stale or None


def check(*, cwd: Path, rev: str | None) -> int:
    """Exit 1 naming the stale files when graph.json does not describe the index (or REV)."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    tree = snapshot(root, rev=rev, staged=rev is None)
    stale = _stale(_open(root, root / config.graph), source_files(tree, config, Report()),
                   config)
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
