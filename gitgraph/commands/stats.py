"""`gitgraph stats`: what the graph of a tree holds, and how much of it resolved."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gitgraph import config as config_mod
from gitgraph import git
from gitgraph.index import build_tree_graph, snapshot


def stats(*, cwd: Path, rev: str | None) -> int:
    """Print files, symbols, edges by kind, languages, skipped files and call resolution."""
    from rich.console import Console
    from rich.table import Table

    root = git.repo_root(cwd)
    config = config_mod.load(root)
    graph, files, report, _ = build_tree_graph(root, snapshot(root, rev=rev), config)
    kinds = Counter(n["kind"] for n in graph.nodes.values() if n["kind"] != "file")
    edges = Counter(kind for kind, _ in graph.edges.values())
    langs = Counter(f.lang for f in files)
    tests = sum(1 for n in graph.nodes.values() if n.get("test") and n["kind"] != "file")
    calls = graph.counts["calls"]

    table = Table(title=f"gitgraph stats ({root.name})", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("files", str(len(files)))
    for lang, count in sorted(langs.items()):
        table.add_row(f"  {lang}", str(count))
    table.add_row("symbols", str(sum(kinds.values())))
    for kind, count in sorted(kinds.items()):
        table.add_row(f"  {kind}", str(count))
    table.add_row("  tests", str(tests))
    table.add_row("edges", str(len(graph.edges)))
    for kind, count in sorted(edges.items()):
        table.add_row(f"  {kind}", str(count))
    table.add_row("calls", str(calls))
    for part in ("resolved", "external", "unresolved"):
        count = graph.counts[f"calls_{part}"]
        share = f" ({count / calls:.1%})" if calls else ""
        table.add_row(f"  {part}", f"{count}{share}")
    skipped = report.skipped + Counter({"syntax-error": graph.counts["status_syntax-error"]})
    if +skipped:
        table.add_row("skipped or partial files", str(sum(skipped.values())))
        for reason, count in sorted((+skipped).items()):
            table.add_row(f"  {reason}", str(count))
    Console().print(table)
    return 0
