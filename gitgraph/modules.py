"""Module specifiers → the file or package directory they name, per language's rules:
Python dotted and relative imports, relative JavaScript/TypeScript paths, Go and Java package
directories, Rust `mod` paths."""

from __future__ import annotations

import posixpath
from typing import NamedTuple

from .tables import JS_LANGS, Tables, absolute_python, python_module_name

_JS_SUFFIXES = ("", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts",
                "/index.tsx", "/index.js", "/index.jsx")


class Target(NamedTuple):
    """What a name can denote: a module (file or package directory) or a symbol node."""

    kind: str  # "file" | "dir" | "symbol" | "external"
    key: str  # path, directory, or node id
    family: str = ""  # for "dir": which languages' files make up the package


class Modules:
    """Finds the module a specifier names in one tree; memoises each answer."""

    def __init__(self, tables: Tables) -> None:
        self.lang = tables.lang
        self.dir_files, self.py_modules = tables.layout()
        self._found: dict[tuple[str, str], Target | None] = {}

    def find(self, importer: str, spec: str) -> Target | None:
        """The file or package a module specifier names, from `importer`'s point of view."""
        key = (importer if spec.startswith(".") else self.lang[importer], spec)
        if key not in self._found:
            self._found[key] = self._find(importer, spec)
        return self._found[key]

    def _find(self, importer: str, spec: str) -> Target | None:
        lang = self.lang[importer]
        if lang == "python":
            dotted = absolute_python(self.py_module_name(importer), importer, spec)
            path = self.py_modules.get(dotted) if dotted is not None else None
            return Target("file", path) if path else None
        if lang in JS_LANGS:
            if not spec.startswith("."):
                return None
            base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
            for suffix in _JS_SUFFIXES:
                if base + suffix in self.lang:
                    return Target("file", base + suffix)
            return None
        if lang == "go":
            return self._package_dir(spec.split("/"), "go")
        if lang == "java":
            return self._package_dir(spec.split("."), "java")
        if lang == "rust":
            parts = [p for p in spec.split("::") if p not in ("crate", "self", "super", "")]
            for tail in (".rs", "/mod.rs"):
                found = self._path_ending("/".join(parts) + tail, "rust") if parts else None
                if found:
                    return Target("file", found)
            return None
        return None

    def _package_dir(self, parts: list[str], family: str) -> Target | None:
        for start in range(len(parts)):
            directory = "/".join(parts[start:])
            matches = [d for (d, fam) in self.dir_files if fam == family and
                       (d == directory or d.endswith("/" + directory))]
            if len(matches) == 1:
                return Target("dir", matches[0], family)
            if matches:
                return None
        return None

    def _path_ending(self, tail: str, lang: str) -> str | None:
        hits = [p for p, lg in self.lang.items() if lg == lang and
                (p == tail or p.endswith("/" + tail))]
        return hits[0] if len(hits) == 1 else None

    def py_module_name(self, path: str) -> str:
        """Dotted module name of a Python file, from the `__init__.py` chain above it."""
        return python_module_name(path, self.lang)
