"""Tree entries − cached blobs → extract → cache; then the graph of the whole tree.

Only blobs missing from the cache are read and parsed, so re-indexing an unchanged tree
extracts nothing and an `update` after a commit parses just the blobs it touched.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from . import gc_paused, git
from .cache import BlobCache, decode, encode
from .config import Config
from .extract import extract_raw, extractor_digest, prepare
from .fork import forked
from .graph import Graph, build_part, nodes_of, split_by_refs
from .languages import language_of
from .model import Extraction, FileEntry
from .store import GraphLines, assemble, graph_records
from .tables import Tables

PARALLEL_LINKS_MIN = 400  # files: a full build this big has a helper resolve half of it
PREFETCH_MAX = 16  # staged files; a bigger commit is parsed by the update, in a worker pool
PARALLEL_MIN = 64  # below this many blobs to parse, a worker pool costs more than it saves
CHUNK_MIN_BYTES = 64 * 1024  # ~10 ms of extraction: smaller tasks cost more to hand out
_REGULAR = ("100644", "100755")


@dataclass(frozen=True)
class Tree:
    """The file list a graph describes: a commit's tree, the index, or the work tree."""

    label: str  # a commit id, "INDEX" or "WORKTREE"
    entries: tuple[git.TreeEntry, ...]


@dataclass
class Report:
    """What an indexing run did, for the summary line and `stats`."""

    files: int = 0
    extracted: int = 0
    cached: int = 0
    skipped: Counter[str] = field(default_factory=Counter)


def snapshot(root: Path, rev: str | None = None, staged: bool = False) -> Tree:
    """Entries of a revision (`rev`), the index (`staged`), or the work tree (default)."""
    if rev is not None:
        commit = git.resolve_commit(root, rev)
        return Tree(commit, tuple(git.ls_tree(root, commit)))
    if staged:
        return Tree("INDEX", tuple(git.ls_index(root)))
    return Tree("WORKTREE", tuple(git.worktree_entries(root)))


def source_files(tree: Tree, config: Config, report: Report) -> list[FileEntry]:
    """Tracked source files gitgraph indexes; symlinks and submodules are counted, not read."""
    files = []
    filtered = bool(config.include or config.exclude)  # (most repositories have no globs)
    languages = frozenset(config.languages)
    for entry in tree.entries:
        if filtered and not config.wants(entry.path):
            continue
        if entry.mode == "160000":  # counted whatever its name: a submodule is never indexed
            report.skipped["submodule"] += 1
            continue
        lang = language_of(entry.path)
        if lang not in languages:
            continue
        if entry.mode not in _REGULAR:
            report.skipped["symlink"] += 1
            continue
        if not entry.path.isascii() and not _is_utf8(entry.path):  # graph.json is UTF-8: such
            # a path cannot be a node id
            report.skipped["non-utf8-path"] += 1
            continue
        files.append(FileEntry(entry.path, entry.blob, lang))
    files.sort(key=lambda f: f.path)
    report.files = len(files)
    return files


def _is_utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # os.fsdecode() kept undecodable bytes as surrogates
        return False
    return True


def load_extractions(root: Path, tree: Tree, files: list[FileEntry], config: Config,
                     report: Report, cached: Callable[[], object] = lambda: None
                     ) -> dict[str, Extraction]:
    """Extraction of every file: from the cache, else parsed (and then cached); `cached`
    is called as soon as the cache holds every one."""
    with gc_paused():
        return _load_extractions(root, tree, files, config, report, cached)


def _load_extractions(root: Path, tree: Tree, files: list[FileEntry], config: Config,
                      report: Report, cached: Callable[[], object]) -> dict[str, Extraction]:
    cache = BlobCache(git.common_dir(root), extractor_digest(config.max_file_bytes))
    by_path: dict[str, Extraction] = {}
    missing: dict[tuple[str, str], list[str]] = {}
    for entry in files:
        found = cache.get(entry.blob, entry.lang)
        if found is None:
            missing.setdefault((entry.blob, entry.lang), []).append(entry.path)
        else:
            by_path[entry.path] = found
            report.cached += 1
    if missing:
        jobs = [(blob, lang, paths[0]) for (blob, lang), paths in missing.items()]
        entries = _extract_all(root, tree.label == "WORKTREE", jobs, config)
        cache.put_entries((blob, lang, encoded) for (blob, lang, _), encoded
                          in zip(jobs, entries, strict=True) if encoded is not None)
        cached()  # before decoding: another process may read them from the cache meanwhile
        for (blob, lang, _), encoded in zip(jobs, entries, strict=True):
            paths = missing[(blob, lang)]
            if encoded is None:  # absent from a partial or shallow clone, or unreadable
                for path in paths:
                    by_path[path] = Extraction((), (), (), 0, "missing-blob")
                report.skipped["missing-blob"] += len(paths)
                continue
            extraction = decode(encoded)
            for path in paths:
                by_path[path] = extraction
            report.extracted += len(paths)
    else:
        cached()
    for extraction in by_path.values():
        if extraction.status and extraction.status != "syntax-error":
            report.skipped[extraction.status] += 1
    return by_path


def prefetch_staged(root: Path, config: Config) -> Callable[[], object]:
    """Parse the source files staged since HEAD into the blob cache in a forked child, while
    the caller reads the index and graph.json: the hook's one parse (~30 ms, mostly loading
    a grammar and compiling its query) overlaps that work. Best effort (the caller parses
    what is still missing); the returned function waits for the child."""

    def parse() -> int:
        changes = git.diff_raw(root, "--cached", "HEAD")
        tree = Tree("INDEX", tuple(git.TreeEntry(c.new_mode, c.new_blob, c.new_path)
                                   for c in changes if c.status != "D"))
        files = source_files(tree, config, Report())
        if len(files) <= PREFETCH_MAX:
            load_extractions(root, tree, files, config, Report())
        return len(files)

    return forked(parse)


def _read(root: Path, worktree: bool, wanted: dict[str, str]) -> dict[str, bytes]:
    """Blob contents (`wanted`: blob → path): from git's object store, or from disk for
    work-tree edits."""
    contents = git.read_blobs(root, wanted)
    if worktree:
        for blob, path in wanted.items():
            if blob not in contents:
                try:
                    contents[blob] = (root / path).read_bytes()
                except OSError:
                    pass
    return contents


Job = tuple[str, str, str]  # blob, language, a path that holds it


def _extract_chunk(root: Path, worktree: bool, jobs: list[Job], max_bytes: int
                   ) -> list[bytes | None]:
    """The cache entries of some jobs (None where the blob cannot be read); each worker
    reads its own blobs, so no worker waits for all of them to be read, and no content
    crosses a process boundary."""
    contents = _read(root, worktree, {blob: path for blob, _, path in jobs})
    # Cache entries, not Extraction records, cross the process boundary: marshal bytes cost a
    # tenth of what pickling ~10^5 NamedTuples and unpickling them in the parent costs.
    return [encode(extract_raw(contents[blob], lang, max_bytes)) if blob in contents else None
            for blob, lang, _ in jobs]


def _extract_all(root: Path, worktree: bool, jobs: list[Job], config: Config
                 ) -> list[bytes | None]:
    """Each job's extraction as a cache entry, in a worker pool when there are many."""
    workers = min(_cores(), 8)
    if len(jobs) < PARALLEL_MIN or workers < 2:
        return _extract_chunk(root, worktree, jobs, config.max_file_bytes)
    # imported here: multiprocessing costs ~15 ms that the hook and diff paths never need
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    sizes = git.blob_sizes(root, [blob for blob, _, _ in jobs])
    chunks = _chunks([sizes.get(blob, 0) for blob, _, _ in jobs], workers)
    progress = _progress(len(jobs))
    results_by_index: dict[int, bytes | None] = {}
    if multiprocessing.get_start_method() == "fork":
        prepare({lang for _, lang, _ in jobs})
    with ProcessPoolExecutor(max_workers=workers, initializer=gc.disable) as pool:
        futures = [(chunk, pool.submit(_extract_chunk, root, worktree,
                                       [jobs[i] for i in chunk], config.max_file_bytes))
                   for chunk in chunks if chunk]
        for chunk, future in futures:
            for i, entry in zip(chunk, future.result(), strict=True):
                results_by_index[i] = entry
            progress(len(chunk))
    progress(0)
    return [results_by_index[i] for i in range(len(jobs))]


def _chunks(sizes: list[int], workers: int) -> list[list[int]]:
    """Job indices in chunks, largest blobs first, each chunk a share of the bytes still left:
    few tasks to hand out, and small ones last, so that the workers finish together."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    left = sum(sizes)
    chunks: list[list[int]] = [[]]
    size = 0
    for i in order:
        chunks[-1].append(i)
        size += sizes[i]
        if size >= max(left // (workers * 3), CHUNK_MIN_BYTES):
            left -= size
            chunks.append([])
            size = 0
    return [chunk for chunk in chunks if chunk]


def _progress(total: int) -> Callable[[int], None]:
    """A progress bar on a TTY's stderr for long runs; otherwise silent. step(0) ends it."""
    if total < 500 or not sys.stderr.isatty():
        return lambda step: None
    from rich.progress import Progress

    bar = Progress(transient=True)
    task = bar.add_task("extracting", total=total)
    bar.start()

    def step(n: int) -> None:
        if n:
            bar.advance(task, n)
        else:
            bar.stop()

    return step


class Built(NamedTuple):
    """The graph of a whole tree, with what it was built from."""

    graph: Graph
    files: list[FileEntry]
    report: Report
    tables: Tables  # what resolution knew about the tree (an incremental update reuses it)


def build_tree_graph(root: Path, tree: Tree, config: Config) -> Built:
    """Everything `index` and `update` compute, without writing graph.json."""
    report = Report()
    files = source_files(tree, config, report)
    with gc_paused():  # the graph, like the extractions, is acyclic records that live long
        extractions = load_extractions(root, tree, files, config, report)
        tables = Tables.build(files, extractions)
        graph = build_part(tables, files, extractions, record_bases=True)
    return Built(graph, files, report, tables)


class Records(NamedTuple):
    """graph.json's lines for a whole tree, with what they were built from."""

    lines: GraphLines
    files: list[FileEntry]
    report: Report
    tables: Tables
    symbols: int


def build_tree_records(root: Path, tree: Tree, config: Config) -> Records:
    """`build_tree_graph`, rendered as graph.json's lines. A big tree's imports and calls
    are half resolved and rendered by a helper process forked now, while the heap is
    small: a fork of the full heap pays, on this kind of machine, more in copied pages than
    it saves (each side touches every object). The parent tells the helper when the blob
    cache holds every extraction (at once when warm; when cold, as soon as the parsed ones
    are stored, before it decodes them itself); the helper then loads them itself."""
    report = Report()
    files = source_files(tree, config, report)
    signal = os.pipe() if len(files) >= PARALLEL_LINKS_MIN and _cores() >= 2 else None
    theirs = forked(lambda: _helper_records(root, tree, config, files, signal)) if signal else None
    try:
        warm = True
        if signal:
            os.close(signal[0])
            cache = BlobCache(git.common_dir(root), extractor_digest(config.max_file_bytes))
            warm = all(cache.has(f.blob, f.lang) for f in files)
            if warm:
                _start(signal[1])

        def ready() -> None:  # the cache holds every extraction: a cold helper may start
            if signal and not warm:
                _start(signal[1])

        with gc_paused():  # the graph, like the extractions, is acyclic records that live long
            extractions = load_extractions(root, tree, files, config, report, ready)
            tables = Tables.build(files, extractions)
            here, there = split_by_refs(files, extractions) if theirs else (files, [])
            graph = build_part(tables, files, extractions, record_bases=True,
                               links_of={f.path for f in here} if there else None)
            helped = nodes_of(there, extractions)
            records = [graph_records(graph, helped)]
            found = theirs() if theirs and there else None
            if found is not None:
                records.append(found)
            elif there:  # the helper failed: resolve its half here
                graph = build_part(tables, files, extractions, record_bases=True)
                records = [graph_records(graph)]
    finally:
        if signal:
            os.close(signal[1])  # a helper still waiting sees the end and leaves
    lines = assemble(files, config, *records)
    return Records(lines, files, report, tables, len(lines.nodes) - len(files))


def _start(fd: int) -> None:
    """Tell the helper that the cache holds every extraction."""
    with contextlib.suppress(OSError):  # a helper that died: the parent does its part
        os.write(fd, b"go")


def _helper_records(root: Path, tree: Tree, config: Config, files: list[FileEntry],
                    signal: tuple[int, int]) -> tuple[list[str], list[str]] | None:
    """The helper's part: the node and link records of the second half of `files`."""
    os.close(signal[1])
    if os.read(signal[0], 2) != b"go":
        return None  # the parent stopped before the cache was full
    with gc_paused():
        extractions = load_extractions(root, tree, files, config, Report())
        tables = Tables.build(files, extractions)
        here, there = split_by_refs(files, extractions)
        graph = build_part(tables, files, extractions, record_bases=True,
                           links_of={f.path for f in there})
        return graph_records(graph, nodes_of(here, extractions))


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
