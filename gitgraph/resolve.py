"""Name resolution: which definition does a reference in a file mean?

Order (first that answers wins): the enclosing scopes, the file's own top-level names, the
import that binds the name (following attribute chains through modules, re-exports and star
imports), the same package, then a unique-enough global name; ambiguous candidates share the
weight. `self`/`cls`/`this`/`super` walk the enclosing class and its resolved bases.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Sequence

from .config import RECEIVER_WEIGHT
from .languages import PYTHON_BUILTIN_METHODS, PYTHON_BUILTINS
from .model import Import
from .modules import Modules, Target
from .tables import Tables, family

MAX_CANDIDATES = 3  # more same-named globals than this: too ambiguous to be evidence
_CONTAINER_KINDS = {"class", "interface", "struct", "enum", "trait", "type", "module"}
_ALIAS_KINDS = _CONTAINER_KINDS | {"function", "method"}


Candidates = list[tuple[Target, float]]
EXTERNAL: Candidates = [(Target("external", ""), 1.0)]


class Resolver:
    """Answers references against `Tables`; memoises whole lookups."""

    def __init__(self, tables: Tables, use_bases: bool = True, use_attrs: bool = True) -> None:
        self.lang = tables.lang
        self.symbols = tables.symbols
        self.imports = tables.imports
        self.by_name = tables.by_name
        self.attrs = tables.attrs
        self._tables = tables
        # Attribute values are resolved by a resolver that does not look at attributes, so
        # a value naming a class whose attributes name it back cannot loop.
        self._use_attrs = use_attrs
        self._values: Resolver | None = None
        self._derived: dict[str, list[str]] | None = None
        self._holders: dict[str, dict[str, list[str]]] = {}
        self.methods = tables.methods
        # Base classes are resolved without walking bases (use_bases=False), so the result
        # does not depend on the order in which classes are seen.
        self.bases: dict[str, list[str]] = tables.bases if use_bases else {}
        self.modules = Modules(tables)
        self._bindings: dict[str, dict[str, list[Import]]] = {}
        self._members: dict[tuple[Target, str], Candidates] = {}
        self._names: dict[tuple[str, str, bool], Candidates] = {}
        self._receivers: dict[tuple[str, str], Candidates] = {}
        self._chains: dict[tuple[tuple[tuple[Target, float], ...], str], Candidates] = {}
        self._inner: dict[str, set[str]] = {}
        self._classes: dict[tuple[str, str], Target | None] = {}

    # -- namespaces ----------------------------------------------------------------------------

    def bindings(self, path: str) -> dict[str, list[Import]]:
        """Names a file's imports bind (local name → imports), computed once per file."""
        found = self._bindings.get(path)
        if found is None:
            found = defaultdict(list)
            lang = self.lang[path]
            for imp in self.imports[path]:
                if imp.name == "*":
                    found["*"].append(imp)
                else:
                    found[_bound_name(imp, lang)].append(imp)
            self._bindings[path] = found
        return found

    def member(self, target: Target, name: str, depth: int = 0) -> Candidates:
        """`target.name`: a module's or package's member, or a class's (through its bases)."""
        if depth == 0:  # only whole lookups are memoised: a depth-cut one depends on its entry
            key = (target, name)
            found = self._members.get(key)
            if found is None:
                found = self._members[key] = self._member(target, name, 0)
            return found
        return self._member(target, name, depth)

    def _member(self, target: Target, name: str, depth: int) -> Candidates:
        if depth > 8:
            return []
        if target.kind == "symbol":
            path, _, qual = target.key.rpartition("::")
            member = f"{qual}.{name}"
            if member in self.symbols[path]:
                return [(Target("symbol", f"{path}::{member}"), 1.0)]
            held = self._held(path, qual, name) if self._use_attrs else []
            if held:
                return held
            # Every base that provides the member shares the weight: the order of bases is
            # not kept (an incremental update rebuilds it from sorted links), so no MRO.
            found = []
            for base in self.bases.get(target.key, ()):
                found += self.member(Target("symbol", base), name, depth + 1)
            if not found and depth == 0 and self._use_attrs:
                # a mixin's attribute that the classes using it set (`Cache = LRUCache`)
                for derived in self._holding(target.key).get(name, ()):
                    derived_path, _, derived_qual = derived.rpartition("::")
                    found += self._held(derived_path, derived_qual, name)
            return _merge(found)
        paths = ([target.key] if target.kind == "file"
                 else self.modules.dir_files.get((target.key, target.family), []))
        for path in paths:
            if name in self.symbols[path]:
                return [(Target("symbol", f"{path}::{name}"), 1.0)]
        for path in paths:
            imports = self.bindings(path)
            if name in imports:
                found = self.follow(path, imports[name], depth + 1)
                # `from . import keys` in a package's own __init__.py binds its submodule:
                # followed, it leads back here, so fall through to the submodule below
                if found and found != EXTERNAL:
                    return found
                if not (target.kind == "file" and target.key.endswith("__init__.py")):
                    return found
        if target.kind == "file" and self.lang.get(target.key) == "python":
            package = self.modules.py_module_name(target.key)
            sub = self.modules.py_modules.get(f"{package}.{name}" if package else name)
            if sub and target.key.endswith("__init__.py"):
                return [(Target("file", sub), 1.0)]
        for path in paths:
            for imp in self.bindings(path).get("*", ()):
                module = self.modules.find(path, imp.module)
                if module:
                    found = self.member(module, name, depth + 1)
                    if found:
                        return found
        return []

    def _held(self, path: str, qual: str, name: str) -> Candidates:
        """The classes an attribute of class `qual` holds (an instance or the class itself)."""
        found: Candidates = []
        values = self.attrs[path].get(qual, {}).get(name, ())
        if values and self._values is None:
            self._values = Resolver(self._tables, use_bases=bool(self.bases), use_attrs=False)
        for value in values:
            assert self._values is not None
            # "=f": the attribute is f itself (`key = hashkey`), so a function counts too;
            # otherwise it holds what a call returned, known only when a class was called
            alias = value.startswith("=")
            kinds = _ALIAS_KINDS if alias else _CONTAINER_KINDS
            for target, weight in self._values.resolve(path, "", value.lstrip("=")):
                if target.kind == "symbol":
                    owner, _, held = target.key.rpartition("::")
                    symbol = self.symbols[owner].get(held)
                    if symbol is not None and symbol.kind in kinds:
                        found.append((target, weight))
        return _merge(found)

    def _holding(self, base: str) -> dict[str, list[str]]:
        """Attribute name → the direct subclasses of class node `base` that set it, in
        `_subclasses` order: a class with hundreds of subclasses (Django's Field) is asked
        for many names, and most of them set few attributes."""
        found = self._holders.get(base)
        if found is None:
            found = self._holders[base] = defaultdict(list)
            for derived in self._subclasses().get(base, ()):
                path, _, qual = derived.rpartition("::")
                for name in self.attrs[path].get(qual, ()):
                    found[name].append(derived)
        return found

    def _subclasses(self) -> dict[str, list[str]]:
        """Base class node → the classes that derive from it (directly)."""
        if self._derived is None:
            self._derived = defaultdict(list)
            for sub, bases in sorted(self.bases.items()):
                for base in bases:
                    self._derived[base].append(sub)
        return self._derived

    def follow(self, path: str, imports: list[Import], depth: int) -> Candidates:
        """What an import binding denotes (the first import that resolves)."""
        lang = self.lang[path]
        for imp in imports:
            if imp.name in ("", "default"):
                spec = imp.module
                if lang == "python" and not imp.alias and not imp.name:
                    spec = imp.module.split(".")[0]  # `import a.b` binds `a`
                module = self.modules.find(path, spec)
                if module is None:
                    continue
                if imp.name == "default":
                    return self.member(module, "default", depth) or [(module, 1.0)]
                return [(module, 1.0)]
            module = self.modules.find(path, imp.module)
            if module is None:
                continue
            if lang == "rust":  # `use crate::a::b;` may name the module a/b.rs itself
                sub = self.modules.find(path, f"{imp.module}::{imp.name}")
                if sub is not None:
                    return [(sub, 1.0)]
            found = self.member(module, imp.name, depth)
            if found:
                return found
        return EXTERNAL if imports else []

    # -- references ----------------------------------------------------------------------------

    def resolve(self, path: str, scope: str, name: str, guess: bool = True) -> Candidates:
        """Candidate targets of `name` used in `scope` of `path`, each with its weight share.

        Without `guess`, only what scopes, imports and attribute chains name: no same-named
        global from elsewhere, no method of an unknown receiver (for names used as values,
        most of which are plain variables).
        """
        head, _, rest = name.partition(".")
        if head in ("self", "cls", "this") and rest:
            owner = self._enclosing_class(path, scope)
            found = self._chain([(owner, 1.0)], rest) if owner else []
            if not guess:
                return found
            return found or self._unknown_receiver(path, rest.rpartition(".")[2])
        if head == "super" and rest:
            owner = self._enclosing_class(path, scope)
            found = []
            for base in self.bases.get(owner.key, ()) if owner else ():
                found += self._chain([(Target("symbol", base), 1.0)], rest)
            return _merge(found)
        if head == "?":
            return self._unknown_receiver(path, rest) if guess else []
        start = self._name(path, scope, head, guess)
        if not rest:
            return start
        if start == EXTERNAL:
            return start
        found = self._chain(start, rest) if start else []
        if not guess:
            return found
        return found or self._unknown_receiver(path, rest.rpartition(".")[2])

    def _chain(self, start: Candidates, rest: str) -> Candidates:
        key = (tuple(start), rest)
        found = self._chains.get(key)
        if found is None:
            found = self._chains[key] = self._walk(start, rest)
        return found

    def _walk(self, start: Candidates, rest: str) -> Candidates:
        current = start
        for part in rest.split("."):
            following: Candidates = []
            for target, weight in current:
                following += [(t, w * weight) for t, w in self.member(target, part)]
            current = following
            if not current:
                return []
        return current

    def _name(self, path: str, scope: str, name: str, guess: bool = True) -> Candidates:
        if scope and name in self._inner_names(path):
            symbols = self.symbols[path]
            lang = self.lang[path]
            prefix = scope
            while prefix:
                qual = f"{prefix}.{name}"
                if qual in symbols and (lang != "python" or
                                        symbols[prefix].kind not in _CONTAINER_KINDS):
                    return [(Target("symbol", f"{path}::{qual}"), 1.0)]
                prefix = prefix.rpartition(".")[0]
        key = (path, name, guess)
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = self._file_name(path, name, guess)
        return found

    def _inner_names(self, path: str) -> set[str]:
        """The last parts of the qualnames of a file's nested definitions: the only names an
        enclosing scope can bind (most names used in a function are bound elsewhere)."""
        found = self._inner.get(path)
        if found is None:
            found = self._inner[path] = {qualname.rpartition(".")[2]
                                         for qualname in self.symbols[path] if "." in qualname}
        return found

    def _file_name(self, path: str, name: str, guess: bool = True) -> Candidates:
        """`name` at file level: own definitions, imports, star imports, package, globals."""
        symbols = self.symbols[path]
        lang = self.lang[path]
        if name in symbols:
            return [(Target("symbol", f"{path}::{name}"), 1.0)]
        bound = self.bindings(path).get(name)
        if bound:
            return self.follow(path, bound, 0)
        for imp in self.bindings(path).get("*", ()):
            module = self.modules.find(path, imp.module)
            if module:
                found = self.member(module, name, 0)
                if found:
                    return found
        if lang == "python" and name in PYTHON_BUILTINS:
            return EXTERNAL
        lang_family = family(lang)
        if lang in ("go", "java", "rust"):
            for other in self.modules.dir_files.get((posixpath.dirname(path), lang_family), ()):
                if name in self.symbols[other]:
                    return [(Target("symbol", f"{other}::{name}"), 1.0)]
        return _share(self.by_name.get((lang_family, name), ()), path) if guess else []

    def _unknown_receiver(self, path: str, method: str) -> Candidates:
        """`x.m()` with `x` unknown: methods named m, same file first; shared, and halved."""
        key = (path, method)
        found = self._receivers.get(key)
        if found is None and self.lang[path] == "python" and method in PYTHON_BUILTIN_METHODS:
            # `x.append(...)` is far likelier a list than the one class here with an append
            found = self._receivers[key] = []
        if found is None:
            candidates = self.methods.get((family(self.lang[path]), method), ())
            found = [(t, w * RECEIVER_WEIGHT) for t, w in _share(candidates, path)]
            self._receivers[key] = found
        return found

    def _enclosing_class(self, path: str, scope: str) -> Target | None:
        """The class (or other container) whose members `self`/`cls`/`this` in `scope`
        name; worked out once per scope."""
        key = (path, scope)
        if key not in self._classes:
            self._classes[key] = self._find_enclosing_class(path, scope)
        return self._classes[key]

    def _find_enclosing_class(self, path: str, scope: str) -> Target | None:
        symbols = self.symbols[path]
        prefix = scope
        while prefix:
            symbol = symbols.get(prefix)
            if symbol is not None and symbol.kind in _CONTAINER_KINDS:
                return Target("symbol", f"{path}::{prefix}")
            if symbol is None and "." not in prefix:
                # a Rust impl / Go receiver scope whose type lives in another file
                found = self._name(path, "", prefix)
                return found[0][0] if len(found) == 1 else None
            prefix = prefix.rpartition(".")[0]
        return None


def _merge(found: Candidates) -> Candidates:
    """Candidates found along several routes: each distinct target, weight shared equally."""
    if len(found) <= 1:
        return found
    targets = sorted({target for target, _ in found})
    return [(t, 1.0 / len(targets)) for t in targets]


def _share(nodes: Sequence[str], path: str) -> Candidates:
    """Same-file candidates if any, else all of them; none when too many to mean anything."""
    prefix = path + "::"
    local = [n for n in nodes if n.startswith(prefix)]
    if local:
        nodes = local
    if not nodes or len(nodes) > MAX_CANDIDATES:
        return []
    return [(Target("symbol", n), 1.0 / len(nodes)) for n in nodes]


def _bound_name(imp: Import, lang: str) -> str:
    if imp.alias:
        return imp.alias
    if imp.name and imp.name != "default":
        return imp.name.rpartition(".")[2]
    if lang == "python":
        return imp.module.split(".")[0]
    return imp.module.replace("::", "/").rstrip("/").rpartition("/")[2]
