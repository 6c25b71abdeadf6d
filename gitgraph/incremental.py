"""Incremental update of graph.json: splice the records of the files a commit touched.

Valid when no touched file changed its *interface* (the names it defines, its imports and
its base classes): then no other file's references can resolve differently, so every record
that does not belong to a touched file stays byte for byte, and only the touched files' nodes
and outgoing links are recomputed, against the tree's global name tables (stored beside the
blob cache by the last full build: they stay valid while every file keeps its interface;
read from graph.json's own records when missing). Anything else (added, deleted or renamed
files, a changed interface, a cache miss for the old blob) returns None and the caller
rebuilds everything. Either way the bytes are those of a full build; tests/test_index.py
checks it on random commit sequences.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Hashable, Iterable
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path

from . import git, sealed
from .cache import BlobCache
from .config import Config
from .extract import extractor_digest
from .graph import build_part, graph_digest
from .index import Report, Tree, load_extractions
from .model import Extraction, FileEntry
from .splice import Piece, splice
from .store import GraphFile, file_line, link_line, node_line
from .tables import LazyTable, Tables, class_attrs, family

log = logging.getLogger("gitgraph")
_FORMAT = 2  # of the stored tables
# Stored tables serve a tree whose files differ from theirs by at most this many (each
# difference costs two cache reads to prove the interface equal).
MAX_REUSE_CHECKS = 200
_INHERITS = b',"kind":"inherits",'


def interface(extraction: Extraction) -> Hashable:
    """What other files' resolution reads from a file."""
    return (
        tuple(sorted((s.qualname, s.kind) for s in extraction.symbols)),
        # without line numbers: resolution never reads them, and an edit above a
        # function-level import would otherwise count as an interface change
        tuple((i.module, i.name, i.alias) for i in extraction.imports),
        tuple(sorted((r.kind, r.name, r.scope) for r in extraction.refs
                     if r.kind in ("inherit", "assign"))),
    )


def patch(root: Path, config: Config, old: GraphFile, tree: Tree, files: list[FileEntry]
          ) -> list[Piece] | None:
    """graph.json's bytes (in pieces) for `files`, spliced from `old`; None when a full
    rebuild is needed."""
    old_files = {f.path: f for f in old.files}
    if old_files.keys() != {f.path for f in files}:
        return None
    changed = [f for f in files if old_files[f.path] != f]
    cache = BlobCache(git.common_dir(root), extractor_digest(config.max_file_bytes))
    fresh = load_extractions(root, tree, changed, config, Report())
    for entry in changed:
        before = cache.get(old_files[entry.path].blob, entry.lang)
        if before is None or interface(before) != interface(fresh[entry.path]):
            return None
    by_path = {f.path: f for f in files}

    def load(path: str) -> Extraction:
        if path in fresh:
            return fresh[path]
        return load_extractions(root, tree, [by_path[path]], config, Report())[path]

    tables = Tables({f.path: f.lang for f in files},
                    LazyTable(lambda p: {s.qualname: s for s in load(p).symbols}),
                    LazyTable(lambda p: load(p).imports), defaultdict(list), defaultdict(list),
                    {}, LazyTable(lambda p: class_attrs(load(p))))
    _global_tables(root, config, old, tables, cache)
    part = build_part(tables, changed, fresh)
    pieces = splice(old, [f.path for f in changed], (
        sorted(file_line(f) for f in changed),
        sorted(node_line(n) for n in part.nodes.values()),
        sorted(link_line(s, t, k, w) for (s, t), (k, w) in part.edges.items())))
    return pieces


def prepare(root: Path, config: Config, graph: GraphFile) -> None:
    """Make sure tables that fit graph.json are stored (after a checkout: the post-checkout
    hook pays for reading them, not the next commit)."""
    tables = Tables({}, {}, {}, defaultdict(list), defaultdict(list), {}, {})
    tables.lang.update((f.path, f.lang) for f in graph.files)
    cache = BlobCache(git.common_dir(root), extractor_digest(config.max_file_bytes))
    _global_tables(root, config, graph, tables, cache)


def _global_tables(root: Path, config: Config, graph: GraphFile, tables: Tables,
                   cache: BlobCache) -> None:
    """Fill the global tables for graph.json's tree: the stored ones when they fit it, else
    read from its records (and stored for next time)."""
    stored = _tables_file(root, config)
    if not _stored_tables(tables, stored, graph.files, cache):
        log.info("update: no stored tables fit graph.json; reading them from its records")
        _read_tables(tables, graph)
        save_tables(stored, graph.files, tables)


def _tables_file(root: Path, config: Config) -> Path:
    digest = graph_digest(extractor_digest(config.max_file_bytes))
    return git.common_dir(root) / "gitgraph" / f"tables-{digest}.bin"


def save_tables(path: Path, files: Iterable[FileEntry], tables: Tables) -> None:
    """Keep a tree's global name tables (with its file table) for later incremental updates."""
    sealed.dump(path, (_FORMAT, tuple(tuple(f) for f in files), dict(tables.by_name),
                       dict(tables.methods), tables.bases))


def remember_tables(root: Path, config: Config, files: Iterable[FileEntry], tables: Tables
                    ) -> None:
    """Keep the tables of a full build (see save_tables)."""
    save_tables(_tables_file(root, config), files, tables)


def _stored_tables(tables: Tables, path: Path, files: tuple[FileEntry, ...], cache: BlobCache
                   ) -> bool:
    """Fill the global tables from the stored ones when those describe `files`: the same
    paths, and every file whose blob differs kept its interface (tables read nothing else)."""
    stored = sealed.load(path)
    if not isinstance(stored, tuple) or len(stored) != 5 or stored[0] != _FORMAT:
        return False
    then = {entry[0]: FileEntry(*entry) for entry in stored[1]}
    if then.keys() != {f.path for f in files}:
        return False
    differ = [(then[f.path], f) for f in files if then[f.path] != f]
    if len(differ) > MAX_REUSE_CHECKS:
        return False
    for before, now in differ:
        old, new = cache.get(before.blob, before.lang), cache.get(now.blob, now.lang)
        if old is None or new is None or interface(old) != interface(new):
            return False
    tables.by_name.update(stored[2])
    tables.methods.update(stored[3])
    tables.bases.update(stored[4])
    return True


def _read_tables(tables: Tables, graph: GraphFile) -> None:
    """The global tables from graph.json's own records (when none are stored for it)."""
    raw = graph.raw
    lang = tables.lang
    start, end = graph.spans[1]
    for line in raw[start:end].decode("utf-8").split("\n")[:-1]:
        node, at = scanstring(line, 7)  # after '{"id":"'
        kind = scanstring(line, line.find(',"kind":"', at) + 9)[0]
        path = node.rpartition("::")[0]
        if kind != "file" and path in lang:  # else a stray record a full build would drop
            tables.add_symbol(family(lang[path]), node, kind)
    start, end = graph.spans[2]
    at = raw.find(_INHERITS, start, end)
    while at >= 0:
        line = raw[raw.rfind(b"\n", start, at) + 1:at].decode("utf-8")
        source, after = scanstring(line, 11)  # after '{"source":"'
        target = scanstring(line, line.find(',"target":"', after) + 11)[0]
        tables.bases.setdefault(source, []).append(target)
        at = raw.find(_INHERITS, at + 1, end)
    for bases in tables.bases.values():
        bases.sort()
