"""Incremental update of graph.json: splice the records of the files a commit touched.

When no touched file changed its *interface* (the names it defines, its imports, its base
classes and class attributes), no other file's references can resolve differently: only the
touched files' nodes and outgoing links are recomputed, against the tree's global name
tables (see tablestore), and every other record stays byte for byte.

When an interface did change (a file added or deleted included), resolution can differ only
in the files that mention one of the names whose meaning changed (see mentions), the parts
of an added or deleted path among them: those are resolved again as well, after the tables
are updated for the changed definitions. Cases whose reach is not bounded by names (a class
present before and after that gets other bases, a changed `import *`, a package that appears
or goes) return None, and the caller rebuilds everything. Either way the bytes are those of
a full build; tests/test_index.py checks it on random commit sequences.
"""

from __future__ import annotations

import functools
import posixpath
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import git, tablestore
from .cache import BlobCache
from .config import Config
from .extract import extractor_digest
from .graph import build_part, node_ids, source_node
from .index import Report, Tree, load_extractions
from .mentions import Grep, Index, Mentions, changed_names, module_names, name_parts, names_in
from .model import Extraction, FileEntry
from .resolve import Resolver
from .splice import Piece, splice
from .store import GraphFile, file_line, link_line, node_line
from .tables import Tables, family, interface

__all__ = ["Delta", "delta", "interface", "patch", "prepare", "widen"]

# Above this many files to resolve again, a full build is as fast and simpler.
MAX_REACH = 400
_NOTHING = Extraction((), (), (), 0, "")  # the side of a file that does not exist


@dataclass
class Delta:
    """How a tree differs from one whose graph is at hand, file by file."""

    changed: list[FileEntry]  # new, or different, in the new tree
    gone: list[FileEntry]  # in the old tree only
    before: dict[str, Extraction]  # the old side of both (nothing for a new file)
    fresh: dict[str, Extraction]  # the new side of both (nothing for a gone one)

    @property
    def added(self) -> set[str]:
        """Paths that appear or go."""
        return {p for p, e in self.before.items() if e is _NOTHING} | {f.path for f in self.gone}

    @property
    def moved(self) -> list[FileEntry]:
        """Files whose interface changed (appearing and going included)."""
        added = self.added
        return [f for f in [*self.changed, *self.gone] if f.path in added
                or interface(self.before[f.path]) != interface(self.fresh[f.path])]


def delta(old: Iterable[FileEntry], files: list[FileEntry], cache: BlobCache,
          extract: Callable[[list[FileEntry]], dict[str, Extraction]]) -> Delta | None:
    """The files that differ, with both sides' extractions; None when an old side is missing
    from the cache or a package appears or goes (every module name below it changes)."""
    old_files = {f.path: f for f in old}
    new_paths = {f.path for f in files}
    changed = [f for f in files if old_files.get(f.path) != f]
    gone = [old_files[p] for p in sorted(old_files.keys() - new_paths)]
    if any(posixpath.basename(f.path).startswith("__init__.") for f in [*changed, *gone]
           if f.path not in old_files or f.path not in new_paths):
        return None
    fresh = extract(changed)
    fresh.update((f.path, _NOTHING) for f in gone)
    before: dict[str, Extraction] = {}
    for entry in [*changed, *gone]:
        was = old_files.get(entry.path)
        found = _NOTHING if was is None else cache.get(was.blob, was.lang)
        if found is None:
            return None
        before[entry.path] = found
    return Delta(changed, gone, before, fresh)


def widen(change: Delta, tables: Tables, mentions: Callable[[], Index],
          load: Callable[[str], Extraction]) -> set[str] | None:
    """The unchanged files to resolve again besides the changed ones, with the tables
    brought to the new definitions; None when the reach cannot be bounded by names."""
    moved = change.moved
    if not moved:
        return set()
    added = change.added
    # A file that appears or goes also changes what its path names (a module, a package
    # directory, a relative import's target), and paths are named by their parts.
    paths = {part for path in added for part in name_parts(path)}
    reach = reach_of(moved, change.before, change.fresh, mentions(), load, paths, added)
    if reach is None or not update_tables(tables, moved, change.before, change.fresh, reach,
                                          load):
        return None
    return reach


def patch(root: Path, config: Config, old: GraphFile, tree: Tree, files: list[FileEntry]
          ) -> list[Piece] | None:
    """graph.json's bytes (in pieces) for `files`, spliced from `old`; None when a full
    rebuild is needed. Which files mention a changed name: the stored index (kept up to date
    here where there is one), else git grep (building the index, ~0.4 s on Django, is left
    to `diff` and `warm`, off the commit path)."""
    cache = BlobCache(git.common_dir(root), extractor_digest(config.max_file_bytes))
    change = delta(old.files, files, cache,
                   lambda entries: load_extractions(root, tree, entries, config, Report()))
    if change is None:
        return None
    by_path = {f.path: f for f in files}

    def load(path: str) -> Extraction:
        if path in change.fresh:
            return change.fresh[path]
        return load_extractions(root, tree, [by_path[path]], config, Report())[path]

    tables = Tables.loading({f.path: f.lang for f in files}, load)
    tablestore.global_tables(root, config, old, tables, cache)

    def mentions_index() -> Index:
        found = tablestore.stored_mentions(root, config, old.files, cache)
        return found if found is not None else Grep(root, tree.label, by_path)

    index = functools.cache(mentions_index)
    reach = widen(change, tables, index, load)
    if reach is None:
        return None
    entries = sorted({*change.changed, *(by_path[p] for p in reach)})
    part = build_part(tables, entries, {e.path: load(e.path) for e in entries})
    pieces = splice(old, [*(e.path for e in entries), *(f.path for f in change.gone)], (
        sorted(file_line(f) for f in entries),
        sorted(node_line(n) for n in part.nodes.values()),
        sorted(link_line(s, t, k, w) for (s, t), (k, w) in part.edges.items())))
    if pieces is not None and change.moved:
        tablestore.remember_tables(root, config, files, tables)
        found = index()
        if isinstance(found, Mentions):  # kept up to date where one is kept
            for path in change.before:
                found.remove(path, names_in(change.before[path]))
                found.add(path, names_in(change.fresh[path]))
            tablestore.save_mentions(root, config, files, found)
    return pieces


def reach_of(moved: list[FileEntry], before: dict[str, Extraction],
             fresh: dict[str, Extraction], index: Index, load: Callable[[str], Extraction],
             names: set[str] | None = None, added: set[str] | None = None) -> set[str] | None:
    """The other files whose references may resolve differently (`names` changed meaning
    besides the moved files' own; `added` files appear or go, so whoever imports them names
    them); None when unbounded."""
    names = set(names or ())
    bound: set[str] = set()
    for entry in moved:
        old, new = before[entry.path], fresh[entry.path]
        stars = [{i for i in e.imports if i.name == "*"} for e in (old, new)]
        if stars[0] != stars[1] and entry.path not in (added or ()):
            return None  # a whole module's names, reached under names nobody changed
        both = {s.qualname for s in old.symbols} & {s.qualname for s in new.symbols}
        inherits = [{(r.name, r.scope) for r in e.refs if r.kind == "inherit"}
                    for e in (old, new)]
        for side, refs in ((old, inherits[0] - inherits[1]), (new, inherits[1] - inherits[0])):
            for _, scope in refs:
                source = source_node(entry.path, scope, node_ids(entry.path, side))
                if source.partition("::")[2] in both | {""}:
                    return None  # a class on both sides changes its bases: no bound by name
        defined, imported = changed_names(old, new)
        names |= defined
        bound |= imported
    moved_paths = {e.path for e in moved}
    # Names bound by imports are reached only through a module that binds them: the moved
    # files, then any file re-exporting from one of those (to a fixed point, like aliases).
    exporters = set(moved_paths)
    while True:
        reach = index.files(names)
        through = set().union(*(module_names(p) for p in exporters))
        if bound:
            reach |= index.files(bound) & index.files(through)
        reach -= moved_paths
        if len(reach) > MAX_REACH:
            return None
        grown = False
        for path in sorted(reach):
            for imp in load(path).imports:
                written = set(name_parts(f"{imp.module}.{imp.name}"))
                if imp.alias and imp.alias not in names and names & written:
                    names.add(imp.alias)  # an alias re-exports a changed name
                    grown = True
                if path not in exporters and (imp.name == "*" or bound & written) and (
                        written & through):
                    exporters.add(path)  # it binds what a changed module binds
                    bound.update([imp.alias] if imp.alias else ())
                    grown = True
        if not grown:
            return reach


def update_tables(tables: Tables, moved: list[FileEntry], before: dict[str, Extraction],
                   fresh: dict[str, Extraction], reach: set[str],
                   load: Callable[[str], Extraction]) -> bool:
    """Bring the global tables to the moved files' new definitions (new classes get their
    bases); False when a class present before and after would get other bases (lookups
    through the hierarchy reach files that never name it: rebuild instead)."""
    for entry in moved:
        lang_family = family(entry.lang)
        prefix = entry.path + "::"
        keys = {(lang_family, s.qualname.rpartition(".")[2])
                for extraction in (before[entry.path], fresh[entry.path])
                for s in extraction.symbols}
        for table in (tables.by_name, tables.methods):
            for key in keys & table.keys():
                table[key] = [n for n in table[key] if not n.startswith(prefix)]
        for symbol in fresh[entry.path].symbols:
            tables.add_symbol(lang_family, prefix + symbol.qualname, symbol.kind)
    paths = {*reach, *(e.path for e in moved)}
    plain = Resolver(tables, use_bases=False)
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(paths):
        extraction = load(path)
        inherits = [ref for ref in extraction.refs if ref.kind == "inherit"]
        ids = node_ids(path, extraction) if inherits else set()
        for ref in inherits:
            source = source_node(path, ref.scope, ids)
            for target, _ in plain.resolve(path, "", ref.name):
                if target.kind == "symbol" and target.key != source:
                    found[source].add(target.key)
    classes = [{f"{e.path}::{s.qualname}" for s in side[e.path].symbols}
               for e in moved for side in (before, fresh)]
    old_classes = set().union(*classes[0::2])
    new_classes = set().union(*classes[1::2])
    known = {c for c in tables.bases if c.partition("::")[0] in paths}
    for node in sorted(known | found.keys()):
        bases = sorted(found.get(node, ()))
        if node in new_classes - old_classes:
            if bases:
                tables.bases[node] = bases
        elif node in old_classes - new_classes:
            tables.bases.pop(node, None)
        elif bases != sorted(tables.bases.get(node, ())):
            return False
    return True


def prepare(root: Path, config: Config, graph: GraphFile) -> None:
    """Make sure the tables and the mentions index that fit graph.json are stored (after a
    checkout: the post-checkout hook pays for them, not the next commit)."""
    files = list(graph.files)
    tree = Tree("graph.json", ())  # its blobs come from git's object store

    def extractions() -> dict[str, Extraction]:
        return load_extractions(root, tree, files, config, Report())

    by_path = {f.path: f for f in files}
    tables = Tables.loading({f.path: f.lang for f in files}, lambda p: load_extractions(
        root, tree, [by_path[p]], config, Report())[p])
    cache = BlobCache(git.common_dir(root), extractor_digest(config.max_file_bytes))
    tablestore.global_tables(root, config, graph, tables, cache)
    index = tablestore.mentions(root, config, graph.files, cache, extractions)
    tablestore.save_mentions(root, config, files, index)
