"""File name → language, where each language's tags query lives, and what a language has
built in (names resolution must not take for the repository's own)."""

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

# Fixed here (not read from `builtins`) so the graph does not depend on the Python running us.
PYTHON_BUILTINS = frozenset("""
abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod
compile complex delattr dict dir divmod enumerate eval exec filter float format frozenset
getattr globals hasattr hash help hex id input int isinstance issubclass iter len list locals
map max memoryview min next object oct open ord pow print property range repr reversed round
set setattr slice sorted staticmethod str sum super tuple type vars zip __import__
BaseException BaseExceptionGroup Exception ExceptionGroup ArithmeticError AssertionError
AttributeError BlockingIOError BrokenPipeError BufferError ConnectionError EOFError
FileExistsError FileNotFoundError FloatingPointError ImportError IndexError InterruptedError
IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError
NameError NotADirectoryError NotImplementedError OSError OverflowError PermissionError
ProcessLookupError RecursionError ReferenceError RuntimeError StopAsyncIteration StopIteration
SyntaxError SystemError SystemExit TimeoutError TypeError UnboundLocalError UnicodeDecodeError
UnicodeEncodeError UnicodeError ValueError ZeroDivisionError DeprecationWarning UserWarning
RuntimeWarning Warning
""".split())


# Methods of Python's built-in containers, strings and files: an unknown receiver calling one
# is not evidence for a same-named method of the repository.
PYTHON_BUILTIN_METHODS = frozenset("""
append extend insert pop remove clear copy index count sort reverse get setdefault popitem
update keys values items add discard union intersection difference join split rsplit strip
lstrip rstrip replace startswith endswith lower upper format encode decode find read write
readline readlines close seek tell flush
""".split())


def language_of(path: str) -> str | None:
    """The language of a repo-relative path, by extension; None when unsupported."""
    # posixpath.splitext's rule (leading dots of a name start no extension), inlined: the
    # hook asks this of every tracked file
    start = path.rfind("/") + 1
    dot = path.rfind(".")
    if dot <= start or not path[start:dot].lstrip("."):
        return None
    if path.endswith(".d.ts"):
        return "typescript"
    return EXTENSIONS.get(path[dot:].lower())


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
