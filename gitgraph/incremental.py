"""Incremental update of graph.json: splice the lines of the files a commit touched.

Valid when no touched file changed its *interface* (the names it defines, its imports and
its base classes): then no other file's references can resolve differently, so every record
that does not belong to a touched file stays byte for byte, and only the touched files' nodes
and outgoing links are recomputed (against tables rebuilt from the lines themselves and the
blob cache). Anything else (added, deleted or renamed files, a changed interface, a cache
miss for the old blob) returns None and the caller rebuilds everything. Either way the bytes
are those of a full build; tests/test_index.py checks it on random commit sequences.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Hashable
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path

from . import git
from .cache import BlobCache
from .config import Config
from .extract import extractor_digest
from .graph import build_part
from .index import Report, Tree, load_extractions
from .model import Extraction, FileEntry
from .store import GraphLines, file_line, id_prefixes, link_line, node_line
from .tables import LazyTable, Tables, class_attrs, family


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


def patch(root: Path, config: Config, old: GraphLines, tree: Tree, files: list[FileEntry]
          ) -> GraphLines | None:
    """graph.json lines for `files`, or None when a full rebuild is needed."""
    old_files = {f.path: f for f in old.file_entries}
    if old_files.keys() != {f.path for f in files}:
        return None
    changed = [f for f in files if old_files[f.path] != f]
    if not changed:
        return old
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

    tables = _tables(old, {f.path: f.lang for f in files}, load)
    part = build_part(tables, changed, fresh)
    drop_nodes = tuple(p for f in changed for p in id_prefixes(f.path))
    nodes = heapq.merge(
        (line for line in old.nodes if not line.startswith(drop_nodes, 6)),
        sorted(node_line(n) for n in part.nodes.values()))
    links = heapq.merge(
        (line for line in old.links if not line.startswith(drop_nodes, 10)),
        sorted(link_line(s, t, k, w) for (s, t), (k, w) in part.edges.items()))
    return GraphLines(old.header, sorted(file_line(f) for f in files), list(nodes), list(links))


def _tables(old: GraphLines, lang: dict[str, str], load: Callable[[str], Extraction]) -> Tables:
    """Resolution tables from graph.json's own lines, symbols and imports loaded on demand."""
    tables = Tables(lang, LazyTable(lambda p: {s.qualname: s for s in load(p).symbols}),
                    LazyTable(lambda p: load(p).imports), defaultdict(list), defaultdict(list),
                    {}, LazyTable(lambda p: class_attrs(load(p))))
    for line in old.nodes:
        node, end = scanstring(line, 7)  # after '{"id":"'
        at = line.find(',"kind":"', end)
        kind, _ = scanstring(line, at + 9)
        if kind != "file":
            tables.add_symbol(family(lang[node.rpartition("::")[0]]), node, kind)
    for line in old.links:
        at = line.find(',"kind":"inherits"')
        if at < 0:
            continue
        source, end = scanstring(line, 11)  # after '{"source":"'
        target, _ = scanstring(line, line.find(',"target":"', end) + 11)
        tables.bases.setdefault(source, []).append(target)
    for bases in tables.bases.values():
        bases.sort()
    return tables


