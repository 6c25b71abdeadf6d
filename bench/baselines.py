"""The two baselines gitgraph is scored against, both cut to the same token budget.

- changed files alone: the full text of the diff's files, truncated to the budget. It names
  no tests; it shows the changed body only when the body lies inside the truncated prefix.
- reverse import BFS: Python imports parsed with `ast`; breadth-first from the changed files
  over "is imported by" edges; the test files reached, ranked by depth then path, listed as
  their test functions (pytest ids) until the budget is full.
"""

from __future__ import annotations

import ast
import posixpath
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

Count = Callable[[str], int]
Truncate = Callable[[str, int], str]

_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")


@dataclass(frozen=True)
class BaselineResult:
    """What a baseline returns: files shown, test ids (rank order), text, tokens, seconds."""

    files: tuple[str, ...]
    tests: tuple[str, ...]
    tokens: int
    seconds: float
    body_shown: dict[str, bool] = field(default_factory=dict)  # changed node id → shown


def changed_files_only(
    repo: Path,
    changed: list[str],
    budget: int,
    count: Count,
    truncate: Truncate,
    spans: dict[str, tuple[str, int, int]],
) -> BaselineResult:
    """The changed files' full text (path header + content), cut to `budget` tokens.

    `spans` maps a changed node id to (path, first line, last line); a body counts as shown
    when its last line lies inside the truncated text.
    """
    start = time.perf_counter()
    parts = []
    for path in changed:
        try:
            text = (repo / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        parts.append(f"# {path}\n{text}")
    full = "\n".join(parts)
    shown = truncate(full, budget)
    seconds = time.perf_counter() - start
    visible: dict[str, bool] = {}
    for node, (path, _, last) in spans.items():
        header = f"# {path}\n"
        offset = shown.find(header)
        if offset < 0:
            visible[node] = False
            continue
        lines_shown = shown[offset + len(header) :].split("\n")
        # the last visible line may be cut mid-line: require the line after it to show too
        visible[node] = len(lines_shown) > last
    files = tuple(p for p in changed if f"# {p}\n" in shown)
    return BaselineResult(files, (), count(shown), seconds, visible)


@dataclass(frozen=True)
class ImportGraph:
    """File-level Python import edges of a repo: importer → imported files."""

    imports: dict[str, frozenset[str]]

    @classmethod
    def parse(cls, repo: Path, paths: Iterable[str]) -> ImportGraph:
        """Parse every Python file of `paths` (repo-relative) and resolve its imports."""
        paths = sorted(p for p in paths if p.endswith(".py"))
        modules: dict[str, str] = {}
        for path in paths:
            for name in _module_names(path):
                modules.setdefault(name, path)
        imports: dict[str, frozenset[str]] = {}
        for path in paths:
            try:
                tree = ast.parse((repo / path).read_bytes())
            except (SyntaxError, ValueError, OSError):
                imports[path] = frozenset()
                continue
            targets: set[str] = set()
            for name in _imported_modules(tree, path):
                for prefix in _prefixes(name):
                    found = modules.get(prefix)
                    if found is not None and found != path:
                        targets.add(found)
            imports[path] = frozenset(targets)
        return cls(imports)

    def importers(self) -> dict[str, list[str]]:
        """Reverse edges: imported file → sorted importers."""
        reverse: dict[str, list[str]] = {}
        for source, targets in sorted(self.imports.items()):
            for target in targets:
                reverse.setdefault(target, []).append(source)
        return reverse


def _module_names(path: str) -> list[str]:
    """Dotted names a file can be imported as: from the repo root, and below `src/`."""
    stem = path[:-3]
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    names = [stem.replace("/", ".")]
    if stem.startswith("src/"):
        names.append(stem[4:].replace("/", "."))
    return names


def _prefixes(name: str) -> list[str]:
    """`a.b.c` → `a`, `a.b`, `a.b.c`: importing a module runs its packages' __init__ too."""
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _imported_modules(tree: ast.Module, path: str) -> list[str]:
    package = posixpath.dirname(path).replace("/", ".")
    if path.startswith("src/"):
        package = package[4:]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module:
                found.append(module)
                found.extend(f"{module}.{alias.name}" for alias in node.names)
            else:
                found.extend(alias.name for alias in node.names)
    return found


def test_ids(repo: Path, path: str) -> list[str]:
    """pytest-style ids of the test functions and methods a test file defines, in order."""
    try:
        tree = ast.parse((repo / path).read_bytes())
    except (SyntaxError, ValueError, OSError):
        return []
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            found.append(f"{path}::{node.name}")
        elif isinstance(node, ast.ClassDef):
            found.extend(
                f"{path}::{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and item.name.startswith("test")
            )
    return found


def import_bfs(
    repo: Path, tracked: list[str], changed: list[str], budget: int, count: Count
) -> BaselineResult:
    """Test files reached from `changed` over reverse imports, as test ids within `budget`."""
    start = time.perf_counter()
    importers = ImportGraph.parse(repo, tracked).importers()
    depth: dict[str, int] = {path: 0 for path in changed}
    queue = deque(changed)
    while queue:
        current = queue.popleft()
        for other in importers.get(current, []):
            if other not in depth:
                depth[other] = depth[current] + 1
                queue.append(other)
    test_files = sorted((d, p) for p, d in depth.items() if _TEST_FILE.search(p))
    lines: list[str] = []
    used = 0
    files: list[str] = []
    for _, path in test_files:
        for test in test_ids(repo, path):
            cost = count(test + "\n")
            if used + cost > budget:
                break
            lines.append(test)
            used += cost
            if path not in files:
                files.append(path)
        else:
            continue
        break
    text = "\n".join(lines) + ("\n" if lines else "")
    seconds = time.perf_counter() - start
    return BaselineResult(tuple(files), tuple(lines), count(text), seconds)
