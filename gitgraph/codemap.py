"""A code map of HEAD for CLAUDE.md: entry points, main modules and their roles, the most
central symbols (global PageRank), clusters of related code, and where the tests live.

Everything is derived from the committed tree only, so the map is the same on every machine
and does not move when the work tree does. Lists are chosen by rank but the renderer shows
them in path order, so a small shift in scores elsewhere in the repository cannot reorder
the block: it changes only when a module enters or leaves a list.
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import git
from .config import Config
from .graph import Graph
from .index import build_tree_graph, snapshot

# How much each kind of dependency makes its target central. Tests are left out: a helper
# that many tests call is not what a newcomer should read first.
EDGE_WEIGHTS = {"calls": 1.0, "inherits": 1.0, "imports": 0.5}
DAMPING = 0.85
ROLE_CHARS = 120
CANDIDATES = 40  # per list; the renderer's budget decides how many are shown
_PY_DOC = re.compile(r'\A(?:\s*#[^\n]*\n|\s*\n)*\s*[rRuU]?("""|\'\'\'|"|\')(.*?)\1', re.DOTALL)
_LICENSE = re.compile(r"copyright|license|spdx|\(c\)", re.IGNORECASE)
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*\*?|\*/|\*|//!?|#)\s?")
# Code under these directories is tests, fixtures or test data, never the map's subject.
TEST_DIRECTORIES = frozenset({"test", "tests", "testdata", "__tests__", "spec", "specs",
                              "fixtures", "__fixtures__", "e2e"})


@dataclass(frozen=True)
class EntryPoint:
    """Where execution starts: a node id (or path) and how it is reached."""

    target: str
    how: str


@dataclass(frozen=True)
class Module:
    """A main source file and what it is for (its docstring or leading comment)."""

    path: str
    role: str
    defines: tuple[str, ...]  # its most central symbols' names


@dataclass(frozen=True)
class CentralSymbol:
    """A symbol much of the code depends on."""

    id: str
    kind: str
    doc: str


@dataclass(frozen=True)
class Cluster:
    """A directory of related source files and the clusters it uses."""

    directory: str
    files: tuple[str, ...]  # base names, most central first
    uses: tuple[str, ...]  # other clusters' directories, most used first


@dataclass(frozen=True)
class SuiteLocation:
    """Where one language's tests live, and the usual command to run them."""

    language: str
    directories: tuple[str, ...]
    command: str


@dataclass(frozen=True)
class CodeMap:
    """The facts of the map, each list best first."""

    entry_points: tuple[EntryPoint, ...]
    modules: tuple[Module, ...]
    symbols: tuple[CentralSymbol, ...]
    clusters: tuple[Cluster, ...]
    tests: tuple[SuiteLocation, ...]


def build_codemap(root: Path, config: Config) -> CodeMap:
    """The code map of HEAD's tree (built in memory from the blob cache)."""
    tree = snapshot(root, rev="HEAD")
    graph = build_tree_graph(root, tree, config).graph
    blobs = {entry.path: entry.blob for entry in tree.entries}
    score = pagerank(graph)
    test_paths = {p for p, node in graph.nodes.items()
                  if node["kind"] == "file" and (node.get("test") or _test_area(p))}
    file_score: dict[str, float] = defaultdict(float)
    for node_id, node in graph.nodes.items():
        if node["path"] not in test_paths:
            file_score[node["path"]] += score.get(node_id, 0.0)
    ranked_files = _best(file_score)[:CANDIDATES]
    sources = git.read_blobs(root, [blobs[p] for p in ranked_files if p in blobs])
    modules = []
    for path in ranked_files:
        lang = str(graph.nodes[path].get("lang", ""))
        role = module_role(sources.get(blobs.get(path, ""), b""), lang)
        modules.append(Module(path, role, _defines(graph, score, path)))
    # Only what other code uses: a symbol nothing depends on is central to nothing.
    used = {target for (source, target), (kind, _) in graph.edges.items()
            if kind in EDGE_WEIGHTS and graph.nodes[source]["path"] not in test_paths}
    symbols = [
        CentralSymbol(node_id, graph.nodes[node_id]["kind"], graph.nodes[node_id].get("doc", ""))
        for node_id in _best(score)
        if node_id in used and graph.nodes[node_id]["kind"] != "file"
        and graph.nodes[node_id]["path"] not in test_paths
    ][:CANDIDATES]
    return CodeMap(
        entry_points=tuple(entry_points(root, graph, blobs, test_paths)),
        modules=tuple(modules), symbols=tuple(symbols),
        clusters=tuple(clusters(graph, file_score, test_paths)),
        tests=tuple(test_locations(graph, blobs, test_paths)),
    )


def pagerank(graph: Graph) -> dict[str, float]:
    """Global PageRank over dependency edges (a node gains rank from what depends on it)."""
    import numpy as np
    from scipy import sparse

    ids = sorted(graph.nodes)
    if not ids:
        return {}
    index = {node_id: i for i, node_id in enumerate(ids)}
    rows, cols, weights = [], [], []
    for (source, target), (kind, weight) in sorted(graph.edges.items()):
        w = EDGE_WEIGHTS.get(kind, 0.0) * weight
        node = graph.nodes.get(source)
        if w <= 0 or node is None or graph.nodes.get(node["path"], {}).get("test"):
            continue
        rows.append(index[source])
        cols.append(index[target])
        weights.append(w)
    n = len(ids)
    matrix = sparse.csr_matrix((weights, (rows, cols)), shape=(n, n), dtype=np.float64)
    out = np.asarray(matrix.sum(axis=1)).ravel()
    dangling = out == 0
    scale = np.divide(1.0, out, out=np.zeros(n), where=~dangling)
    transition = (sparse.diags(scale) @ matrix).T.tocsr()
    rank = np.full(n, 1.0 / n)
    for _ in range(200):
        spread = DAMPING * (transition @ rank + rank[dangling].sum() / n)
        updated = spread + (1.0 - DAMPING) / n
        done = float(np.abs(updated - rank).sum()) < 1e-12
        rank = updated
        if done:
            break
    return {node_id: float(rank[i]) for i, node_id in enumerate(ids)}


def _best(score: dict[str, float]) -> list[str]:
    # Rounded so that the last bits of floating-point noise cannot break a tie differently.
    return sorted(score, key=lambda k: (-round(score[k], 12), k))


def _defines(graph: Graph, score: dict[str, float], path: str) -> tuple[str, ...]:
    prefix = path + "::"
    members = {k: v for k, v in score.items()
               if k.startswith(prefix) and "." not in k[len(prefix):]}
    return tuple(k[len(prefix):] for k in _best(members)[:3])


def module_role(source: bytes, lang: str) -> str:
    """The first line of a file's docstring or leading (non-licence) comment; "" if none."""
    text = source[:20_000].decode("utf-8", "replace")
    if lang == "python":
        match = _PY_DOC.match(text)
        return _first_line(match.group(2)) if match else ""
    if lang == "go":  # the package comment: the comment block right above `package x`
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("package "):
                block: list[str] = []
                for previous in reversed(lines[:i]):
                    if not previous.startswith("//"):
                        break
                    block.insert(0, previous)
                return _first_line("\n".join(block))
        return ""
    if lang == "rust":
        inner = [line for line in text.split("\n") if line.startswith("//!")]
        return _first_line("\n".join(inner))
    for comment in _leading_comments(text):
        if not _LICENSE.search(comment):
            return _first_line(comment)
    return ""


def _leading_comments(text: str) -> list[str]:
    """Comment blocks before the first line of code (C-style languages)."""
    comments: list[str] = []
    rest = text.lstrip()
    while rest.startswith(("/*", "//")):
        if rest.startswith("/*"):
            end = rest.find("*/")
            end = len(rest) if end < 0 else end + 2
        else:
            end = 0
            while rest[end:].startswith("//"):
                newline = rest.find("\n", end)
                end = len(rest) if newline < 0 else newline + 1
        comments.append(rest[:end])
        rest = rest[end:].lstrip()
    return comments


def _first_line(text: str) -> str:
    for line in text.split("\n"):
        line = _COMMENT_MARKS.sub("", line).strip().rstrip("*/").strip()
        if line:
            return line if len(line) <= ROLE_CHARS else line[: ROLE_CHARS - 1] + "…"
    return ""


def entry_points(root: Path, graph: Graph, blobs: dict[str, str],
                 test_paths: set[str]) -> list[EntryPoint]:
    """Console scripts, `__main__` modules, package.json bins and `main` functions."""
    found: list[EntryPoint] = []
    manifests = git.read_blobs(root, [blobs[p] for p in ("pyproject.toml", "package.json")
                                      if p in blobs])
    pyproject = manifests.get(blobs.get("pyproject.toml", ""))
    for name, target in _console_scripts(pyproject):
        module, _, function = target.partition(":")
        path = _python_path(module, graph)
        script = f"{path}::{function.strip()}" if path else target
        found.append(EntryPoint(script if script in graph.nodes else target,
                                f"console script {name}"))
    package = manifests.get(blobs.get("package.json", ""))
    for name, path in _package_bins(package):
        found.append(EntryPoint(path, f"bin {name}" if name else "package main"))
    for node_id, node in sorted(graph.nodes.items()):
        path = node["path"]
        if path in test_paths:
            continue
        base = posixpath.basename(path)
        if node["kind"] == "file" and base == "__main__.py":
            package_name = posixpath.dirname(path).replace("/", ".")
            found.append(EntryPoint(path, f"python -m {package_name}" if package_name
                                    else "python __main__.py"))
        elif node["kind"] == "function" and node["name"] == "main" and node_id == f"{path}::main":
            lang = node.get("lang") or graph.nodes[path].get("lang")
            how = f"go run ./{posixpath.dirname(path)}" if lang == "go" else "main function"
            found.append(EntryPoint(node_id, how))
        elif (node["kind"] == "method" and node["name"] == "main"
              and "static" in node.get("signature", "") and path.endswith(".java")):
            found.append(EntryPoint(node_id, "Java main"))
    unique: dict[str, EntryPoint] = {}
    for entry in found:
        unique.setdefault(entry.target, entry)
    return list(unique.values())[:CANDIDATES]


def _console_scripts(pyproject: bytes | None) -> list[tuple[str, str]]:
    """`[project.scripts]` of pyproject.toml (on Python 3.10, without tomllib: none)."""
    if not pyproject:
        return []
    if sys.version_info >= (3, 11):
        import tomllib

        try:
            data = tomllib.loads(pyproject.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return []
        scripts = data.get("project", {}).get("scripts", {})
        if isinstance(scripts, dict):
            return sorted((str(k), str(v)) for k, v in scripts.items() if isinstance(v, str))
    return []


def _python_path(module: str, graph: Graph) -> str | None:
    stem = module.strip().replace(".", "/")
    for prefix in ("", "src/"):
        for candidate in (f"{prefix}{stem}.py", f"{prefix}{stem}/__init__.py"):
            if candidate in graph.nodes:
                return candidate
    return None


def _package_bins(package: bytes | None) -> list[tuple[str, str]]:
    if not package:
        return []
    try:
        data: Any = json.loads(package)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    bins = data.get("bin")
    if isinstance(bins, str):
        return [(str(data.get("name", "")), posixpath.normpath(bins))]
    if isinstance(bins, dict):
        return sorted((str(k), posixpath.normpath(str(v))) for k, v in bins.items())
    main = data.get("main")
    return [("", posixpath.normpath(main))] if isinstance(main, str) else []


def clusters(graph: Graph, file_score: dict[str, float], test_paths: set[str]) -> list[Cluster]:
    """Source directories, most central first, with the other directories each one uses."""
    members: dict[str, list[str]] = defaultdict(list)
    for path in _best(file_score):
        if graph.nodes.get(path, {}).get("kind") == "file" and path not in test_paths:
            members[_directory(path)].append(path)
    uses: dict[str, Counter[str]] = defaultdict(Counter)
    for (source, target), (kind, _) in graph.edges.items():
        if kind not in EDGE_WEIGHTS:
            continue
        src, dst = graph.nodes.get(source), graph.nodes.get(target)
        if src is None or dst is None or src["path"] in test_paths:
            continue
        a, b = _directory(src["path"]), _directory(dst["path"])
        if a != b and b in members:
            uses[a][b] += 1
    weight = {d: sum(file_score[p] for p in paths) for d, paths in members.items()}
    result = []
    for directory in _best(weight):
        used = sorted(uses[directory].items(), key=lambda kv: (-kv[1], kv[0]))
        result.append(Cluster(directory, tuple(posixpath.basename(p) for p in members[directory]),
                              tuple(d for d, _ in used[:4])))
    return result[:CANDIDATES]


def _test_area(path: str) -> bool:
    return not TEST_DIRECTORIES.isdisjoint(path.split("/")[:-1])


def _directory(path: str) -> str:
    directory = posixpath.dirname(path)
    return directory + "/" if directory else "./"


_TEST_COMMANDS = {"python": "pytest", "go": "go test ./...", "rust": "cargo test"}


def test_locations(graph: Graph, blobs: dict[str, str], test_paths: set[str]
                   ) -> list[SuiteLocation]:
    """Per language with source outside test areas: the top directories of its test files
    and the usual command."""
    by_lang: dict[str, set[str]] = defaultdict(set)
    languages = {str(node.get("lang", "")) for path, node in graph.nodes.items()
                 if node["kind"] == "file" and path not in test_paths}
    for path in test_paths:
        node = graph.nodes[path]
        lang = str(node.get("lang", ""))
        if node.get("test") and lang in languages:
            by_lang[lang].add(path.split("/", 1)[0] + "/" if "/" in path else "./")
    commands = dict(_TEST_COMMANDS)
    if "pom.xml" in blobs:
        commands["java"] = "mvn test"
    elif "build.gradle" in blobs or "build.gradle.kts" in blobs:
        commands["java"] = "gradle test"
    if "package.json" in blobs:
        for lang in ("javascript", "typescript", "tsx"):
            commands[lang] = "npm test"
    return [SuiteLocation(lang, tuple(sorted(dirs)), commands.get(lang, ""))
            for lang, dirs in sorted(by_lang.items())]
