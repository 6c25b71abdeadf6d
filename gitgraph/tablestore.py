"""What incremental updates keep beside the blob cache: the global name tables of a tree and
the index of which files mention which names, each stored with the file table it describes.

The tables depend only on every file's interface, so stored ones serve any tree whose files
differ from theirs only in interface-preserving ways; the mentions depend on whole files, so
they are brought up to date exactly, file by file. Both are caches: when they cannot be
proved to fit, they are rebuilt (from graph.json's records, or from the blob cache).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from . import git, log, sealed
from .cache import BlobCache
from .config import Config
from .extract import extractor_digest
from .graph import graph_digest
from .mentions import Mentions, names_in
from .model import Extraction, FileEntry
from .store import GraphFile, record_field
from .tables import Layout, Tables, family, interface

_FORMAT = 3  # of the stored tables and mentions
# Stored tables serve a tree whose files differ from theirs by at most this many (each
# difference costs two cache reads to prove the interface equal, or to update mentions).
MAX_REUSE_CHECKS = 200
_INHERITS = b',"kind":"inherits"'  # then '}' or ',"weight"'


def global_tables(root: Path, config: Config, graph: GraphFile, tables: Tables,
                   cache: BlobCache) -> None:
    """Fill the global tables for graph.json's tree: the stored ones when they fit it, else
    read from its records (and stored for next time)."""
    if not _load_tables(tables, _file(root, config, "tables"), graph.files, cache):
        log.info("update: no stored tables fit graph.json; reading them from its records")
        _read_tables(tables, graph)
        remember_tables(root, config, graph.files, tables)


def _file(root: Path, config: Config, what: str) -> Path:
    digest = graph_digest(extractor_digest(config.max_file_bytes))
    return git.common_dir(root) / "gitgraph" / f"{what}-{digest}.bin"


def remember_tables(root: Path, config: Config, files: Iterable[FileEntry], tables: Tables
                    ) -> None:
    """Keep a tree's global name tables (with its file table) for later incremental updates."""
    layout = tables.layout()
    sealed.dump(_file(root, config, "tables"),
                (_FORMAT, tuple(tuple(f) for f in files), dict(tables.by_name),
                 dict(tables.methods), tables.bases, dict(layout.dir_files), layout.py_modules))


def _load_tables(tables: Tables, path: Path, files: tuple[FileEntry, ...], cache: BlobCache
                   ) -> bool:
    """Fill the global tables from the stored ones when those describe `files`: the same
    paths, and every file whose blob differs kept its interface (tables read nothing else)."""
    stored = sealed.load(path)
    if not isinstance(stored, tuple) or len(stored) != 7 or stored[0] != _FORMAT:
        return False
    differ = _differences(stored[1], files)
    if differ is None:
        return False
    for before, now in differ:
        if before.lang != now.lang:  # the tables and the layout are kept per language
            return False
        old, new = cache.get(before.blob, before.lang), cache.get(now.blob, now.lang)
        if old is None or new is None or interface(old) != interface(new):
            return False
    tables.by_name.update(stored[2])
    tables.methods.update(stored[3])
    tables.bases.update(stored[4])
    tables.use_layout(Layout(stored[5], stored[6]), {f.path: f.lang for f in files})
    return True


def _read_tables(tables: Tables, graph: GraphFile) -> None:
    """The global tables from graph.json's own records (when none are stored for it)."""
    raw = graph.raw
    lang = tables.lang
    start, end = graph.spans[1]
    for line in raw[start:end].decode("utf-8").split("\n")[:-1]:
        node, at = record_field(line, "id")
        kind = record_field(line, "kind", at)[0]
        path = node.rpartition("::")[0]
        if kind != "file" and path in lang:  # else a stray record a full build would drop
            tables.add_symbol(family(lang[path]), node, kind)
    start, end = graph.spans[2]
    at = raw.find(_INHERITS, start, end)
    while at >= 0:
        line = raw[raw.rfind(b"\n", start, at) + 1:at].decode("utf-8")
        source, after = record_field(line, "source")
        target = record_field(line, "target", after)[0]
        tables.bases.setdefault(source, []).append(target)
        at = raw.find(_INHERITS, at + 1, end)
    for bases in tables.bases.values():
        bases.sort()


def mentions(root: Path, config: Config, files: tuple[FileEntry, ...], cache: BlobCache,
             build: Callable[[], dict[str, Extraction]]) -> Mentions:
    """Which files of `files` mention which names: the stored index brought up to date file
    by file, or built from every file's extraction (`build` gives them)."""
    found = stored_mentions(root, config, files, cache)
    return found if found is not None else built_mentions(build)


def built_mentions(build: Callable[[], dict[str, Extraction]]) -> Mentions:
    """The index built from every file's extraction (`build` gives them)."""
    log.info("building the index of mentioned names")
    found = Mentions()
    for source, extraction in build().items():
        found.add(source, names_in(extraction))
    return found


def stored_mentions(root: Path, config: Config, files: tuple[FileEntry, ...], cache: BlobCache
                    ) -> Mentions | None:
    """The stored index brought up to date for `files`, file by file; None when there is
    none, or too many files differ."""
    stored = sealed.load(_file(root, config, "mentions"))
    if isinstance(stored, tuple) and len(stored) == 3 and stored[0] == _FORMAT:
        return _updated(stored, files, cache)
    return None


def _updated(stored: tuple[object, ...], files: tuple[FileEntry, ...], cache: BlobCache
             ) -> Mentions | None:
    differ = _differences(stored[1], files)
    try:
        index = Mentions.load(stored[2])  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if differ is None:
        return None
    for before, now in differ:
        old, new = cache.get(before.blob, before.lang), cache.get(now.blob, now.lang)
        if old is None or new is None:
            return None
        index.remove(now.path, names_in(old))
        index.add(now.path, names_in(new))
    return index


def _differences(stored: object, files: tuple[FileEntry, ...]
                 ) -> list[tuple[FileEntry, FileEntry]] | None:
    """(stored, current) entry of every file that differs from a stored file table; None when
    the paths differ, the table is malformed, or too many differ to check."""
    try:
        then = {entry[0]: FileEntry(*entry) for entry in stored}  # type: ignore[attr-defined]
    except (TypeError, IndexError):
        return None
    if then.keys() != {f.path for f in files}:
        return None
    differ = [(then[f.path], f) for f in files if then[f.path] != f]
    return differ if len(differ) <= MAX_REUSE_CHECKS else None


def save_mentions(root: Path, config: Config, files: Iterable[FileEntry], index: Mentions
                  ) -> None:
    """Keep the mentions index of a tree."""
    sealed.dump(_file(root, config, "mentions"),
                (_FORMAT, tuple(tuple(f) for f in files), index.dump()))
