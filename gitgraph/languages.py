"""File name → language, and where each language's tags query lives."""

from __future__ import annotations

from pathlib import Path

QUERY_DIR = Path(__file__).parent / "queries"

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}

LANGUAGES: tuple[str, ...] = tuple(sorted(set(EXTENSIONS.values())))


def language_of(path: str) -> str | None:
    """The language of a repo-relative path, by extension; None when unsupported."""
    if path.endswith(".d.ts"):
        return "typescript"
    # posixpath.splitext's extension, without its cost (this runs for every tracked file):
    # from the last dot, when the file name has another character before it (".py" has none)
    dot = path.rfind(".")
    lang = EXTENSIONS.get(path[dot:].lower()) if dot >= 0 else None
    if lang is None:
        return None
    name = path.rfind("/") + 1  # an extension holds no "/": its dot is in the file name
    return lang if path[name:dot].strip(".") else None


def query_path(lang: str) -> Path:
    """The tags query file for a language (`queries/<lang>-tags.scm`)."""
    return QUERY_DIR / f"{lang}-tags.scm"


def query_text(lang: str) -> str:
    """A language's tags query; a first line `; inherits: other` prepends other's query."""
    text = query_path(lang).read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    if first.startswith("; inherits:"):
        return "\n".join(query_text(base.strip()) for base in first[11:].split(",")) + text
    return text
