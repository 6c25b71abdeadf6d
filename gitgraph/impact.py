"""Changed symbols → ranked, budgeted Impact: the pipeline behind `gitgraph diff`.

It never writes graph.json: the head graph is built in memory from the blob cache (parsing
only what the cache lacks), with removed symbols kept as ghost nodes so that their callers,
now broken, are found.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import git
from .cache import BlobCache
from .changes import ZERO, FileChange, Sides, changed_files, symbol_changes
from .config import Config
from .extract import extract, extractor_digest
from .headgraph import Ghosts, Stored, extraction_loader, head_view
from .index import Report, source_files
from .languages import language_of
from .model import Change, Extraction, Impact
from .rank import ImpactGraph, Ranking, personalized_pagerank, seed_weights
from .select import MAX_CANDIDATES, Candidate, Sources, hunk, select
from .testids import impacted_tests as runnable_tests
from .view import View

BODY_CANDIDATES = 40  # impacted nodes offered with their body (a budget holds far fewer)
REACH_DEPTH = 4  # how far (in impact arcs) a test may be from a change to count as reaching it
_WHY = {
    "calls": "calls", "tests": "tests", "inherits": "subclass of", "imports": "imports",
    "contains": "contains",
    "uses:calls": "called by", "uses:tests": "tested by", "uses:inherits": "base of",
    "uses:imports": "imported by", "uses:contains": "inside",
}


@dataclass(frozen=True)
class Analysis:
    """Everything computed for a diff before rendering."""

    root: Path
    sides: Sides
    changes: list[Change]
    view: View
    ranking: Ranking
    sources: Sources
    changed_paths: list[str]
    old_spans: dict[str, dict[str, Any]]  # changed node → its base-side path and lines
    weights: dict[str, float] = field(default_factory=dict)  # the config's weights


def analyse(root: Path, sides: Sides, config: Config, stored: Stored | None = None
            ) -> Analysis:
    """Changed symbols, the head graph (with ghosts of removed symbols) and the ranking
    (`stored`: the stored view, if already read)."""
    raw = changed_files(root, sides)
    files = source_files(sides.head_tree, config, Report())
    cache = BlobCache(git.common_dir(root), extractor_digest(config.max_file_bytes))
    load = extraction_loader(root, sides.head_tree, config)
    head_files = {f.path: f for f in files}
    # Only source files are read: a changed graph.json (33 MB on Django, in every commit
    # the hook makes) or any other data file is listed, never parsed.
    old_contents = git.read_blobs(root, [c.old_blob for c in raw if c.old_blob != ZERO
                                         and language_of(c.old_path)])
    new_contents = _head_contents(root, sides, {c.new_path: c.new_blob for c in raw
                                                if c.status != "D" and c.new_path in head_files})
    changes: list[Change] = []
    old_sources: dict[str, list[str]] = {}
    ghosts: Ghosts = {}
    old_spans: dict[str, dict[str, Any]] = {}
    for c in raw:
        old_lang = language_of(c.old_path)
        old_ext = new_ext = None
        old_src = old_contents.get(c.old_blob, b"")
        new_src = new_contents.get(c.new_path, b"")
        if old_lang and c.status != "A" and old_src:
            old_ext = _extraction(cache, c.old_blob, old_lang, old_src, config)
        if c.status != "D" and c.new_path in head_files:
            new_ext = load(head_files[c.new_path])
        change = FileChange(c.old_path, c.new_path, c.status, c.old_blob, c.new_blob,
                            old_ext, new_ext, old_src, new_src)
        found = symbol_changes(change)
        changes.extend(found)
        old_sources[c.old_path] = _lines(old_src)
        old_symbols = {s.qualname: s for s in old_ext.symbols} if old_ext else {}
        for ch in found:
            before = old_symbols.get(ch.node.rpartition("::")[2])
            if before is not None and ch.kind in ("body", "signature"):
                old_spans[ch.node] = {"path": c.old_path, "start_line": before.start_line,
                                      "end_line": before.end_line}
        removed = {ch.node.rpartition("::")[2] for ch in found if ch.kind == "removed"}
        if removed and old_ext is not None:
            ghosts.setdefault(c.old_path, []).extend(
                s for s in old_ext.symbols if s.qualname in removed)
    view = head_view(root, config, sides.head_tree, files, load, ghosts, stored)
    weights = config.weights
    seeds = _with_owners(seed_weights([ch for ch in changes if view.node(ch.node) is not None],
                                      weights), view)
    ranking = personalized_pagerank(ImpactGraph.from_view(view, weights), seeds,
                                    weights["damping"])
    new_sources = {p: _lines(src) for p, src in new_contents.items()}
    return Analysis(root, sides, changes, view, ranking, Sources(new_sources, old_sources),
                    sorted({c.new_path for c in raw} | {c.old_path for c in raw}), old_spans,
                    dict(weights))


def _with_owners(seeds: dict[str, float], view: View) -> dict[str, float]:
    """A changed dunder (`__len__`, `__iadd__`...) is called by operators and builtins, which
    leave no call edges: its class is seeded with the same weight, so the class's users are
    reached."""
    extra: dict[str, float] = {}
    for node_id, weight in seeds.items():
        path, _, qual = node_id.rpartition("::")
        owner, _, name = qual.rpartition(".")
        if owner and name.startswith("__") and name.endswith("__") and name != "__init__":
            extra[f"{path}::{owner}"] = extra.get(f"{path}::{owner}", 0.0) + weight
    if not extra:
        return seeds
    merged = dict(seeds)
    for node_id, weight in extra.items():
        if view.node(node_id) is not None:
            merged[node_id] = merged.get(node_id, 0.0) + weight
    total = sum(merged.values())
    return {node: weight / total for node, weight in merged.items()}


def _lines(source: bytes) -> list[str]:
    return source.decode("utf-8", "replace").splitlines()


def _load_sources(analysis: Analysis, paths: set[str]) -> None:
    """Read (in one batch) the head-side files of candidate nodes not read yet."""
    new = analysis.sources.new
    assert isinstance(new, dict)
    missing = {e.path: e.blob for e in analysis.sides.head_tree.entries
               if e.path in paths and e.path not in new}
    for path, source in _head_contents(analysis.root, analysis.sides, missing).items():
        new[path] = _lines(source)


def _extraction(cache: BlobCache, blob: str, lang: str, source: bytes,
                config: Config) -> Extraction:
    found = cache.get(blob, lang)
    if found is None:
        found = extract(source, lang, config.max_file_bytes)
        cache.put(blob, lang, found)
    return found


def _head_contents(root: Path, sides: Sides, paths: dict[str, str]) -> dict[str, bytes]:
    """Contents of head-side files by path (the work tree is read from disk)."""
    if sides.head == "WORKTREE":
        contents = {}
        for path in paths:
            try:
                contents[path] = (root / path).read_bytes()
            except OSError:
                continue
        return contents
    blobs = git.read_blobs(root, paths.values())
    return {path: blobs[blob] for path, blob in paths.items() if blob in blobs}


def candidates(analysis: Analysis, code: bool) -> tuple[list[Candidate], list[Candidate]]:
    """Changed and impacted candidates, each with its resolutions richest first."""
    view, ranking, sources = analysis.view, analysis.ranking, analysis.sources
    by_node = {c.node: c for c in analysis.changes}
    order = {"removed": 0, "signature": 1, "body": 2, "added": 3}
    changed: list[Candidate] = []
    for change in sorted(analysis.changes, key=lambda c: (c.cosmetic, order[c.kind],
                                                            -ranking.score.get(c.node, 0), c.node)):
        node = view.node(change.node)
        if node is None:
            continue
        options: list[tuple[str, str]] = []
        if code and node["kind"] != "file" and change.kind != "removed":
            body = sources.body(node)
            options.append(("body", body))
            old_node = analysis.old_spans.get(change.node)
            if old_node is not None:
                options.append(("hunk", hunk(sources.body(old_node, old=True), body)))
        if node.get("signature"):
            options.append(("signature", node["signature"]))
        options.append(("line", ""))
        why = (f"changed: {change.kind}" + (" (whitespace/comments only)"
                                             if change.cosmetic else ""),)
        changed.append(_candidate(analysis, node, change, options, why))
    impacted: list[Candidate] = []
    ranked = sorted(ranking.score.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_CANDIDATES]
    nodes = {n: view.node(n) for n, _ in ranked}
    with_body = {n for n, _ in ranked[:BODY_CANDIDATES]} if code else set()
    _load_sources(analysis, {node["path"] for n, node in nodes.items()
                             if node is not None and n in with_body})
    for node_id, _ in ranked:
        node = nodes[node_id]
        if node is None or node_id in by_node:
            continue
        options = []
        if node_id in with_body and node["kind"] != "file":
            options.append(("body", sources.body(node)))
        if node.get("signature"):
            options.append(("signature", node["signature"]))
        options.append(("line", ""))
        impacted.append(_candidate(analysis, node, None, options, _why(analysis, node_id)))
    return changed, impacted


def _candidate(analysis: Analysis, node: dict[str, Any], change: Change | None,
               options: list[tuple[str, str]], why: tuple[str, ...]) -> Candidate:
    ranking = analysis.ranking
    parts = tuple(sorted((k, round(v, 6)) for k, v in ranking.parts.get(node["id"], {}).items()))
    return Candidate(node, ranking.score.get(node["id"], 0.0), change, tuple(options), why,
                     parts, tuple(ranking.path(node["id"])))


def _why(analysis: Analysis, node_id: str) -> tuple[str, ...]:
    via = analysis.ranking.via.get(node_id)
    if via is None:
        return ()
    previous, kind = via
    return (f"{_WHY.get(kind, kind)} {previous}",)


def impacted_tests(analysis: Analysis, limit: int | None = None) -> list[str]:
    """Runnable ids of the impacted tests, best first (the first `limit` of them)."""
    seeds = [c.node for c in analysis.changes if analysis.view.node(c.node) is not None]
    return runnable_tests(analysis.view, analysis.ranking, seeds,
                          analysis.weights.get("class_tests", 0.0),
                          analysis.weights.get("test_name", 0.0),
                          analysis.weights.get("test_group_share", 2.0), limit)


def untested(analysis: Analysis) -> list[str]:
    """Changed functions/methods from which no test is reachable within REACH_DEPTH arcs."""
    view = analysis.view

    def arcs(node: str) -> list[str]:
        return [source for source, kind, _ in view.incoming(node) if kind != "contains"]

    result = []
    for change in analysis.changes:
        node = view.node(change.node)
        if (node is None or node["kind"] not in ("function", "method") or node.get("test")
                or change.kind == "removed"):
            continue
        seen = {change.node}
        queue = deque([(change.node, 0)])
        reached = False
        while queue and not reached:
            current, depth = queue.popleft()
            for other in arcs(current):
                if other in seen or depth >= REACH_DEPTH:
                    continue
                seen.add(other)
                if (view.node(other) or {}).get("test"):
                    reached = True
                    break
                queue.append((other, depth + 1))
        if not reached:
            result.append(change.node)
    return sorted(result)


def build_impact(analysis: Analysis, config: Config, budget: int, render: Callable[[Impact], str],
                 count: Callable[[str], int], code: bool) -> Impact:
    """The budgeted Impact for one rendering format."""
    changed, impacted = candidates(analysis, code)
    max_tests = int(config.weights["max_tests"])
    tests_shown = max_tests if max_tests >= 0 else None  # select shows tests[:max_tests]
    frame = Impact(
        base=analysis.sides.base, head=analysis.sides.head, budget=budget,
        encoding=config.encoding, seeds=tuple(sorted(c.node for c in analysis.changes)),
        nodes=(), edges=(), tests=tuple(impacted_tests(analysis, tests_shown)),
        changed_files=tuple(analysis.changed_paths),
        untested=tuple(untested(analysis)),
    )
    edges = {(node.node["id"], target): kind for node in changed + impacted
             for target, kind, _ in analysis.view.outgoing(node.node["id"])}
    return select(frame, changed, impacted, edges, render, count,
                  tests_share=config.weights["tests_share"],
                  max_tests=max_tests)
