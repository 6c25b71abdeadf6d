"""File name → language: the hook asks this of every tracked file, so it is hand-inlined;
it must keep `posixpath.splitext`'s meaning of an extension."""

from __future__ import annotations

import posixpath

from hypothesis import given
from hypothesis import strategies as st

from gitgraph.languages import EXTENSIONS, language_of

PARTS = ["a", ".", "..", "py", ".py", ".PY", "/", "d.ts", ".d.ts", "ts", "x.y/", " ", "é"]


def by_splitext(path: str) -> str | None:
    if path.endswith(".d.ts"):
        return "typescript"
    return EXTENSIONS.get(posixpath.splitext(path)[1].lower())


@given(st.lists(st.sampled_from(PARTS), max_size=6).map("".join))
def test_language_of_agrees_with_splitext(path: str) -> None:
    assert language_of(path) == by_splitext(path)


def test_language_of_examples() -> None:
    assert language_of("pkg/mod.py") == "python"
    assert language_of("pkg.v2/README") is None  # a dot in a directory is no extension
    assert language_of("pkg/.py") is None  # a hidden file named ".py"
    assert language_of("src/App.TSX") == "tsx"
    assert language_of("types/index.d.ts") == "typescript"
