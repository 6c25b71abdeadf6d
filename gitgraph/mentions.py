"""Which files mention which names: how far a change of one file's interface can reach.

Resolution looks every name up by the name as the referring file writes it: the parts of a
call (`a.b.c`), an import's module, name and alias, the scopes and qualified names of its
own definitions. So a file that mentions none of the names whose meaning changed resolves
exactly as before, and only the files that do mention one need resolving again. The index
is over-inclusive on purpose (every part of every name), which costs re-resolving a few
files too many, never a missed one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Protocol

from . import git
from .model import Extraction

_PARTS = re.compile(r"[^.:=?/]+")  # the separators of calls, scopes, modules, assignments


_SEPARATORS = str.maketrans(dict.fromkeys(".:=?/", "\n"))


def names_in(extraction: Extraction) -> set[str]:
    """Every name a file's resolution may look up."""
    texts = [ref.name for ref in extraction.refs]
    texts += [ref.scope for ref in extraction.refs]
    for imp in extraction.imports:
        texts += (imp.module, imp.name, imp.alias)
    texts += [symbol.qualname for symbol in extraction.symbols]
    # one C-level pass over all of them: ~3x faster than a regex per name on Django
    found = set("\n".join(texts).translate(_SEPARATORS).split("\n"))
    found.discard("")
    return found


def name_parts(text: str) -> list[str]:
    """The parts a written name or path is made of (`a.b`, `a::b`, `a/b.py`, `self.x=Y`)."""
    return _PARTS.findall(text)


def changed_names(before: Extraction, after: Extraction) -> tuple[set[str], set[str]]:
    """Names whose meaning an interface change of one file can alter elsewhere: what its
    definitions, imports and class attributes present on one side only are looked up by.

    Other files look a definition up by its own name (a method through its class, which
    exists on both sides unless it is itself in the set), an import by the name it binds
    (a re-export), an attribute by the attribute's name. The module paths of an import or
    the `self` of an assignment are never looked up in another file: including them would
    reach nearly every file of a project for an added `import os`.

    Returns (names, bound): the names bound by imports come apart, because another file
    reaches them only through this module (or one re-exporting it), never by name alone."""
    found: set[str] = set()
    bound: set[str] = set()
    symbols = {(s.qualname, s.kind) for s in before.symbols} ^ {
        (s.qualname, s.kind) for s in after.symbols}
    for qualname, _ in symbols:
        found.add(qualname.rpartition(".")[2])
    imports = {(i.module, i.name, i.alias) for i in before.imports} ^ {
        (i.module, i.name, i.alias) for i in after.imports}
    for module, name, alias in imports:
        # the bound name in every language: an alias, the member, or a module's first part
        # (Python `import a.b`) or last part (Go, JS, Rust defaults)
        parts = name_parts(module)
        bound.update([alias] if alias else name_parts(name)[-1:] if name
                     else parts[:1] + parts[-1:])
    assigns = {(r.name, r.scope) for r in before.refs if r.kind == "assign"} ^ {
        (r.name, r.scope) for r in after.refs if r.kind == "assign"}
    for name, _ in assigns:
        found.update(name_parts(name.partition("=")[0])[-1:])
    return found, bound


_PACKAGE_FILES = frozenset({"__init__", "index", "mod"})  # a directory's own module
_DIRECTORY_PACKAGES = frozenset({"go", "java"})  # a package is its directory


def module_names(path: str) -> set[str]:
    """How other files name a module when they import it: its file's stem, or the name of
    its directory when the file stands for it (`__init__.py`, `index.ts`, `mod.rs`, Go and
    Java packages)."""
    parts = path.split("/")
    stem, _, extension = parts[-1].partition(".")
    if stem in _PACKAGE_FILES or extension in _DIRECTORY_PACKAGES:
        return {stem, *parts[-2:-1]}
    return {stem}


class Index(Protocol):
    """Which files mention which names: a stored `Mentions`, or a `Grep`."""

    def files(self, names: Iterable[str]) -> set[str]:
        """The files that mention any of `names`."""


class Mentions:
    """name → the files that mention it. Stored as numbered paths and tuples of numbers;
    an entry becomes a set only when an update touches it, so loading costs one unmarshal."""

    def __init__(self, paths: list[str] | None = None,
                 index: dict[str, tuple[int, ...] | set[int]] | None = None) -> None:
        self.paths = paths if paths is not None else []
        self.index: dict[str, tuple[int, ...] | set[int]] = index if index is not None else {}
        self._numbers: dict[str, int] | None = None

    def _number(self, path: str) -> int:
        if self._numbers is None:
            self._numbers = {p: i for i, p in enumerate(self.paths)}
        number = self._numbers.get(path)
        if number is None:
            number = self._numbers[path] = len(self.paths)
            self.paths.append(path)
        return number

    def _entry(self, name: str) -> set[int]:
        entry = self.index.get(name, set())
        if not isinstance(entry, set):
            entry = set(entry)
        self.index[name] = entry
        return entry

    def add(self, path: str, names: Iterable[str]) -> None:
        number = self._number(path)
        for name in names:
            self._entry(name).add(number)

    def remove(self, path: str, names: Iterable[str]) -> None:
        number = self._number(path)
        for name in names:
            if name in self.index:
                self._entry(name).discard(number)

    def files(self, names: Iterable[str]) -> set[str]:
        """The files that mention any of `names`."""
        numbers: set[int] = set()
        for name in names:
            numbers.update(self.index.get(name, ()))
        return {self.paths[i] for i in numbers}

    def dump(self) -> tuple[list[str], dict[str, tuple[int, ...]]]:
        """A marshal-able form."""
        return self.paths, {name: entry if isinstance(entry, tuple) else tuple(sorted(entry))
                            for name, entry in self.index.items() if entry}

    @classmethod
    def load(cls, stored: tuple[list[str], dict[str, tuple[int, ...]]]) -> Mentions:
        paths, index = stored
        return cls(list(paths), dict(index))


class Grep:
    """`Mentions.files` answered by `git grep` over a tree, for when no stored index fits:
    the files whose text holds a name as a whole word, which include every file whose
    references mention it (each part of a name is written in the file). One grep takes
    ~0.03 s on Django; building the index reads every file's extraction (~0.4 s)."""

    def __init__(self, root: Path, tree: str, indexed: Collection[str]) -> None:
        self.root = root
        self.tree = tree  # a commit id, "INDEX" or "WORKTREE"
        self.indexed = indexed  # the paths gitgraph indexes (grep also finds other files)

    # Names gitgraph writes for what the text does not spell: a default import, Go's dot
    # import ("*"), `this` ("self"), `super()`. Any file may mention them.
    UNWRITTEN = frozenset({"default", "*", "self", "super"})

    def files(self, names: Iterable[str]) -> set[str]:
        """The files that mention any of `names`."""
        patterns = sorted({name for name in names if name and "\n" not in name})
        if not patterns:
            return set()
        if self.UNWRITTEN.intersection(patterns):
            return set(self.indexed)
        args = ["grep", "-l", "-z", "-I", "-w", "-F", "-f", "-"]
        if self.tree == "INDEX":
            args.append("--cached")
        elif self.tree != "WORKTREE":
            args.append(self.tree)
        # only files with the indexed files' extensions: a tracked graph.json alone is 33 MB
        # of text to read (from the object store, for the index) and search (0.14 -> 0.03 s)
        suffixes = sorted({"*" + path[path.rfind("."):] for path in self.indexed
                           if "." in path.rpartition("/")[2]})
        out = git.run(self.root, *args, "--", *suffixes,
                      input="\n".join(patterns).encode() + b"\n", fine=(0, 1))  # 1: no match
        prefix = b"" if self.tree in ("INDEX", "WORKTREE") else self.tree.encode() + b":"
        found = {os.fsdecode(path[len(prefix):]) for path in out.split(b"\0") if path}
        return {path for path in found if path in self.indexed}
