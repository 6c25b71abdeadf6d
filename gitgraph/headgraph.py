"""The graph of a diff's head tree, as fast as the blob cache allows.

The last full build is stored as a CompactView. The files the head tree changed, added or
deleted since, and when an interface changed the files that mention a changed name (see
incremental.patch), are resolved again and laid over the stored view; when that reach
cannot be bounded, the whole graph is built again (and stored). Removed symbols come back
as ghost nodes with the edges of the references that now point nowhere.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import git, tablestore
from .cache import BlobCache
from .compactview import CompactView
from .config import Config
from .extract import extractor_digest
from .graph import Graph, build, build_part, file_node, graph_digest, node_records
from .incremental import delta, widen
from .index import Report, Tree, load_extractions
from .languages import language_of
from .mentions import Index
from .model import Extraction, FileEntry, Symbol
from .tables import Tables, family, references
from .view import MemoryView, View

Ghosts = dict[str, list[Symbol]]  # path → symbols removed from it


class Stored:
    """The view stored by the last full build, read once on first use (`gitgraph diff`
    reads it while git lists the trees)."""

    def __init__(self, root: Path, config: Config) -> None:
        digest = extractor_digest(config.max_file_bytes)
        self.path = git.common_dir(root) / "gitgraph" / f"view-{graph_digest(digest)}.bin"
        self._view: list[CompactView | None] = []

    def view(self) -> CompactView | None:
        """The stored view, None when there is none (or it is damaged)."""
        if not self._view:
            self._view.append(CompactView.load(self.path))
        return self._view[0]


def head_view(root: Path, config: Config, tree: Tree, files: list[FileEntry],
              load: Callable[[FileEntry], Extraction], ghosts: Ghosts,
              stored_view: Stored | None = None) -> View:
    """A View of `files` (the head tree), with ghosts of removed symbols (`stored_view`:
    the stored view, if already read)."""
    digest = extractor_digest(config.max_file_bytes)
    stored_view = stored_view or Stored(root, config)
    store = stored_view.path
    stored = stored_view.view()
    if stored is not None:
        cache = BlobCache(git.common_dir(root), digest)
        stored_files = stored.files

        def index() -> Index:
            # Brought to the stored view's files from whichever tree it was kept for (the
            # hook keeps it for graph.json's), else built (the first time only, ~0.4 s on
            # Django: every later interface change reads it) and kept. Built from the head
            # tree, which every file can be read from: the files it changed are resolved
            # again anyway, and a later update of the index takes their names from the cache.
            found = tablestore.stored_mentions(root, config, stored_files, cache)
            if found is None:
                found = tablestore.built_mentions(
                    lambda: load_extractions(root, tree, files, config, Report()))
                tablestore.save_mentions(root, config, stored_files, found)
            return found

        view = _overlaid(stored, files, load, ghosts, cache, index)
        if view is not None:
            return view
    extractions = load_extractions(root, tree, files, config, Report())
    if ghosts:
        graph = build(*_with_ghosts(files, extractions, ghosts))
        for path, symbols in ghosts.items():
            for symbol in symbols:
                graph.nodes[f"{path}::{symbol.qualname}"]["removed"] = True
        return MemoryView(graph)
    tables = Tables.build(files, extractions)
    graph = build_part(tables, files, extractions, record_bases=True)
    CompactView.from_graph(graph, files, tables).save(store)
    return MemoryView(graph)


def _overlaid(stored: CompactView, files: list[FileEntry], load: Callable[[FileEntry], Extraction],
              ghosts: Ghosts, cache: BlobCache, mentions: Callable[[], Index]) -> View | None:
    """The stored view brought to `files`: the changed files, and when an interface changed,
    the files that mention a changed name, resolved again; None when that cannot be bounded
    (see incremental.patch)."""
    change = delta(stored.files, files, cache, lambda entries: {e.path: load(e) for e in entries})
    if change is None:
        return None
    if not change.changed and not change.gone and not ghosts:
        return stored  # nothing to lay over: the name tables (slowest to decode) stay unread
    if not change.gone and not ghosts and all(
            references(change.before[f.path]) == references(change.fresh[f.path])
            for f in change.changed):
        # The same names and references (a body edit that calls nothing new): the stored
        # edges stand; only the records (lines, signatures, hashes) are new. Nothing is
        # resolved, and the name tables stay unread.
        for entry in change.changed:
            for node in node_records(entry, change.fresh[entry.path]):
                stored.add_node(node)
        return stored
    by_path = {f.path: f for f in files}

    def extraction(path: str) -> Extraction:
        return change.fresh[path] if path in change.fresh else load(by_path[path])

    by_name, methods, bases = stored.tables
    tables = Tables.loading({f.path: f.lang for f in files}, extraction)
    tables.by_name.update(by_name)
    tables.methods.update(methods)
    tables.bases.update(bases)
    reach = widen(change, tables, mentions, extraction)
    if reach is None:
        return None
    entries = sorted({*change.changed, *(by_path[p] for p in reach)})
    if entries or change.gone:
        stored.overlay(build_part(tables, entries, {e.path: extraction(e.path) for e in entries}),
                       [*(e.path for e in entries), *(f.path for f in change.gone)])
    if ghosts:
        _add_ghosts(stored, tables, ghosts, by_path, extraction, {e.path for e in entries})
    return stored


def _add_ghosts(view: CompactView, tables: Tables, ghosts: Ghosts,
                by_path: dict[str, FileEntry], extraction: Callable[[str], Extraction],
                resolved: set[str]) -> None:
    """Removed symbols as nodes, with edges from the references that still name them
    (`resolved`: files just resolved again, whose stored edges no longer show who imports)."""
    ghost_ids: set[str] = set()
    for path, symbols in ghosts.items():
        lang = language_of(path) or ""
        if path not in tables.lang:  # the whole file is gone
            tables.lang[path] = lang
            tables.symbols[path] = {}
            tables.imports[path] = ()
            tables.attrs[path] = {}
            view.add_node(file_node(path, lang, 0))  # a file that is gone
        tables.symbols[path] = {**tables.symbols[path], **{s.qualname: s for s in symbols}}
        for symbol in symbols:
            node = f"{path}::{symbol.qualname}"
            ghost_ids.add(node)
            name = symbol.qualname.rpartition(".")[2]
            table = (tables.by_name if "." not in symbol.qualname
                     else tables.methods if symbol.kind == "method" else None)
            if table is not None:  # copied, not appended: the lists belong to the stored view
                table[(family(lang), name)] = [*table.get((family(lang), name), []), node]
            view.add_node(ghost_node(path, symbol))
    # Who can name a removed symbol: its own file, its importers, its package.
    readers: set[str] = set(resolved)
    for path in ghosts:
        readers.add(path)
        for node in [path, *view.nodes_of(path)]:
            readers.update(s for s, kind, _ in view.incoming(node) if kind == "imports")
        readers.update(p for p in by_path if posixpath.dirname(p) == posixpath.dirname(path))
    entries = [by_path[p] for p in sorted(readers) if p in by_path]
    part = build_part(tables, entries, {e.path: extraction(e.path) for e in entries})
    edges = Graph()
    for (source, target), (kind, weight) in part.edges.items():
        if target in ghost_ids:
            edges.add_edge(source, target, kind, weight)
    for node in ghost_ids:
        path, _, qual = node.rpartition("::")
        owner = f"{path}::{qual.rpartition('.')[0]}" if "." in qual else path
        edges.add_edge(owner, node, "contains", 1.0)
    view.add_edges(edges)


def ghost_node(path: str, symbol: Symbol) -> dict[str, Any]:
    """The node record of a removed symbol."""
    return {"id": f"{path}::{symbol.qualname}", "kind": symbol.kind,
            "name": symbol.qualname.rpartition(".")[2], "path": path,
            "start_line": symbol.start_line, "end_line": symbol.end_line,
            "signature": symbol.signature, "removed": True}


def _with_ghosts(files: list[FileEntry], extractions: dict[str, Extraction], ghosts: Ghosts
                 ) -> tuple[list[FileEntry], dict[str, Extraction]]:
    """Removed symbols added back to their file's extraction, for a full build."""
    extractions = dict(extractions)
    files = list(files)
    present = {f.path for f in files}
    for path, symbols in ghosts.items():
        if path in present:
            current = extractions[path]
            names = {s.qualname for s in current.symbols}
            extra = tuple(s for s in symbols if s.qualname not in names)
            extractions[path] = current._replace(symbols=tuple(sorted(current.symbols + extra)))
        else:
            files.append(FileEntry(path, "0" * 40, language_of(path) or ""))
            extractions[path] = Extraction(tuple(sorted(symbols)), (), (), 0, "")
    files.sort(key=lambda f: f.path)
    return files, extractions


def extraction_loader(root: Path, tree: Tree, config: Config
                      ) -> Callable[[FileEntry], Extraction]:
    """Extraction of one head file: from the cache, else parsed (and cached)."""
    return lambda entry: load_extractions(root, tree, [entry], config, Report())[entry.path]
