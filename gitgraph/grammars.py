"""tree-sitter grammars and tags queries, each loaded once per process, and the installed
versions that key the blob cache. With extract.py, the only modules that touch tree_sitter.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

from .languages import query_text


def installed(package: str) -> str:
    """The installed version of the distribution of a top-level package, from the name of
    its `.dist-info` folder: without importing it (the language pack has no __version__,
    and importing it loads three grammars) and without a scan of every installed package."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return ""
    found = sorted(p.name[len(package) + 1:-len(".dist-info")]
                   for p in Path(spec.origin).parent.parent.glob(f"{package}-*.dist-info"))
    if found:
        return ",".join(found)
    from importlib.metadata import PackageNotFoundError, version

    try:  # another layout (an egg, a zip): ask the slower way
        return version(package)
    except PackageNotFoundError:
        return ""


def language(lang: str) -> Any:
    """A grammar of tree-sitter-language-pack, loaded from its `bindings/` extension module
    directly: importing the package first loads ctypes and three other grammars (~10 ms of a
    hook's 0.5 s). Another layout falls back to the package's own `get_language`."""
    import importlib.machinery

    import tree_sitter

    spec = importlib.util.find_spec("tree_sitter_language_pack")
    if spec is not None and spec.origin is not None:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(spec.origin).parent / "bindings" / f"{lang}{suffix}"
            if path.is_file():
                name = f"tree_sitter_language_pack.bindings.{lang}"
                loader = importlib.machinery.ExtensionFileLoader(name, str(path))
                module = importlib.util.module_from_spec(
                    importlib.util.spec_from_loader(name, loader))  # type: ignore[arg-type]
                loader.exec_module(module)
                return tree_sitter.Language(module.language())
    import tree_sitter_language_pack

    return tree_sitter_language_pack.get_language(lang)  # type: ignore[arg-type]


@functools.cache
def parser(lang: str) -> Any:
    """A language's parser (without its tags query, whose compiling costs more: 20-50 ms for
    Python, than a parse for `code_digests`)."""
    import tree_sitter

    return tree_sitter.Parser(language(lang))


@functools.cache
def query(lang: str) -> Any:
    """A language's compiled tags query."""
    import tree_sitter

    return tree_sitter.Query(parser(lang).language, query_text(lang))
