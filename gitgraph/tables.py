"""What resolution knows about the whole tree: definitions, imports and base classes per
file, and the global name tables; built from extractions (a full build) or, for an
incremental update, from graph.json's lines with per-file entries loaded on demand.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Container, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .model import Extraction, FileEntry, Import, Symbol

JS_LANGS = frozenset({"javascript", "typescript", "tsx"})


class Layout(NamedTuple):
    """Where files are: what module and package lookups read."""

    dir_files: dict[tuple[str, str], list[str]]  # (directory, family) -> paths, sorted
    py_modules: dict[str, str]  # dotted Python module name -> path


@dataclass
class Tables:
    """What resolution needs to know about the whole tree.

    `symbols`/`imports` may load lazily (see `LazyTable`); the global name tables are small
    enough to rebuild from graph.json's lines for an incremental update.
    """

    lang: dict[str, str]  # path -> language, every indexed file
    symbols: dict[str, dict[str, Symbol]]  # path -> qualname -> symbol
    imports: dict[str, tuple[Import, ...]]
    by_name: dict[tuple[str, str], list[str]]  # (family, name) -> top-level definition nodes
    methods: dict[tuple[str, str], list[str]]  # (family, name) -> method nodes
    bases: dict[str, list[str]]  # class node -> base class nodes, sorted
    attrs: dict[str, dict[str, dict[str, tuple[str, ...]]]]  # path -> class -> attribute -> held
    _layout: tuple[int, Layout] | None = field(default=None, init=False, repr=False)

    @classmethod
    def build(cls, files: Iterable[FileEntry], extractions: dict[str, Extraction]) -> Tables:
        """Tables of a whole tree from every file's extraction (bases are added later)."""
        tables = cls({}, {}, {}, defaultdict(list), defaultdict(list), {}, {})
        for entry in files:
            extraction = extractions[entry.path]
            tables.lang[entry.path] = entry.lang
            tables.symbols[entry.path] = {s.qualname: s for s in extraction.symbols}
            tables.imports[entry.path] = extraction.imports
            tables.attrs[entry.path] = class_attrs(extraction)
            lang_family = family(entry.lang)
            for symbol in extraction.symbols:
                tables.add_symbol(lang_family, f"{entry.path}::{symbol.qualname}", symbol.kind)
        return tables

    @classmethod
    def loading(cls, lang: dict[str, str], load: Callable[[str], Extraction]) -> Tables:
        """Tables of a tree whose per-file entries are loaded on first use (`load` gives a
        path's extraction); the global name tables start empty, for a stored copy."""
        return cls(lang, LazyTable(lambda p: {s.qualname: s for s in load(p).symbols}),
                   LazyTable(lambda p: load(p).imports), defaultdict(list), defaultdict(list),
                   {}, LazyTable(lambda p: class_attrs(load(p))))

    def layout(self) -> Layout:
        """Files by (directory, language family), and Python module names → files; computed
        once per set of paths and languages."""
        key = hash(frozenset(self.lang.items()))
        if self._layout is None or self._layout[0] != key:
            dir_files: dict[tuple[str, str], list[str]] = defaultdict(list)
            for path in sorted(self.lang):  # (git's paths have no trailing or double "/")
                dir_files[(path.rpartition("/")[0], family(self.lang[path]))].append(path)
            modules = python_modules([p for p, lang in self.lang.items() if lang == "python"])
            self._layout = (key, Layout(dir_files, modules))
        return self._layout[1]

    def use_layout(self, layout: Layout, lang: dict[str, str]) -> None:
        """Take a stored layout, computed for the paths and languages `lang`."""
        self._layout = (hash(frozenset(lang.items())), layout)

    def add_symbol(self, family: str, node: str, kind: str) -> None:
        """Index a definition for global (import-less) lookups."""
        qualname = node.rpartition("::")[2]
        name = qualname.rpartition(".")[2]
        if "." not in qualname:
            self.by_name[(family, name)].append(node)
        elif kind == "method":
            self.methods[(family, name)].append(node)


def class_attrs(extraction: Extraction) -> dict[str, dict[str, tuple[str, ...]]]:
    """What each class's attributes hold, from `assign` refs: `self.x = Cls(...)` in a method
    and `X = Cls` in the class body (values are names as written, resolved later; "=f" when
    the attribute is f itself rather than what calling it returned)."""
    kinds = {s.qualname: s.kind for s in extraction.symbols}
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for ref in extraction.refs:
        if ref.kind != "assign":
            continue
        target, _, value = ref.name.partition("=")
        owner, attr = ((ref.scope.rpartition(".")[0], target[5:]) if target.startswith("self.")
                       else (ref.scope, target))
        if kinds.get(owner) == "class":
            found[owner][attr].add(value)
    return {owner: {attr: tuple(sorted(values)) for attr, values in held.items()}
            for owner, held in found.items()}


def interface(extraction: Extraction) -> Hashable:
    """What other files' resolution reads from a file: the tables depend on nothing else."""
    return (
        tuple(sorted((s.qualname, s.kind) for s in extraction.symbols)),
        # without line numbers: resolution never reads them, and an edit above a
        # function-level import would otherwise count as an interface change
        tuple((i.module, i.name, i.alias) for i in extraction.imports),
        tuple(sorted((r.kind, r.name, r.scope) for r in extraction.refs
                     if r.kind in ("inherit", "assign"))),
    )


def references(extraction: Extraction) -> Hashable:
    """Everything the edges leaving a file's nodes are made from, line numbers aside: its
    interface, which symbols are tests, and what it calls or uses as a value (as
    `graph._add_links` counts them). While it and every other file's interface stay the
    same, so do those edges."""
    calls = {(r.scope, r.name, r.line) for r in extraction.refs if r.kind == "call"}
    used = Counter((r.kind, r.name, r.scope) for r in extraction.refs if r.kind == "call"
                   or r.kind == "value" and (r.scope, r.name, r.line) not in calls)
    return (interface(extraction), tuple(s.test for s in extraction.symbols),
            tuple(sorted(used.items())))


class LazyTable(dict[str, Any]):
    """A path-keyed table whose entries are loaded on first use."""

    def __init__(self, load: Callable[[str], Any]) -> None:
        super().__init__()
        self._load = load

    def __missing__(self, key: str) -> Any:
        value = self[key] = self._load(key)
        return value


def family(lang: str) -> str:
    """Languages that can call each other's definitions by name."""
    return "js" if lang in JS_LANGS else lang


class ModuleNames:
    """Dotted module names of Python files, from the `__init__.py` chain above each
    (`present` holds the tree's paths); each directory's package name is worked out once."""

    def __init__(self, present: Container[str]) -> None:
        self.present = present
        self._packages: dict[str, str] = {}  # directory → its dotted name, "" if no package

    def package(self, directory: str) -> str:
        """A directory's dotted name as a package of packages above it, "" when none."""
        if directory not in self._packages:
            if not directory or directory + "/__init__.py" not in self.present:
                self._packages[directory] = ""
            else:
                parent, _, name = directory.rpartition("/")
                above = self.package(parent)
                self._packages[directory] = f"{above}.{name}" if above else name
        return self._packages[directory]

    def __call__(self, path: str) -> str:
        """The module name of a Python file ("" for a top-level `__init__.py`)."""
        directory, _, name = path.rpartition("/")
        stem = name.rpartition(".")[0]  # every Python file's name has an extension
        if stem == "__init__":  # the package's own module, named whatever else is there
            directory, _, stem = directory.rpartition("/")
        above = self.package(directory)
        return f"{above}.{stem}" if above and stem else stem


def python_module_name(path: str, present: Container[str]) -> str:
    """Dotted module name of a Python file, from the `__init__.py` chain above it (`present`
    holds the tree's paths)."""
    return ModuleNames(present)(path)


def python_modules(paths: list[str]) -> dict[str, str]:
    """Dotted module name → file, for every Python file (`.py` before `.pyi`)."""
    name_of = ModuleNames(set(paths))
    modules: dict[str, str] = {}
    for path in sorted(paths):
        dotted = name_of(path)
        if dotted:
            modules.setdefault(dotted, path)
    return modules


def absolute_python(current: str, path: str, spec: str) -> str | None:
    """`from ..x import` inside module `current` → an absolute dotted name."""
    level = len(spec) - len(spec.lstrip("."))
    if not level:
        return spec
    package = current.split(".") if current else []
    if not path.endswith("__init__.py"):
        package = package[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    rest = spec[level:]
    return ".".join([*base, rest] if rest else base)
