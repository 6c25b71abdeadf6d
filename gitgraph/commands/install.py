"""`gitgraph install --merge-driver`, and `gitgraph merge-driver`, the command git then runs.

The driver is a convenience, not a guarantee: it lives in `.git/config`, so fresh clones and
GitHub's merge button never run it and merge graph.json as text. Whatever merged it, the
pre-commit hook on the merge commit (or `gitgraph update --staged --stage`) makes it exact.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gitgraph import config as config_mod
from gitgraph import git, merge, store

DRIVER = "gitgraph merge-driver %O %A %B"  # found on PATH: no interpreter path in .git/config
ATTRIBUTES = "merge=gitgraph linguist-generated=true"


def install_merge_driver(*, cwd: Path) -> int:
    """Define the `gitgraph` merge driver in git config and assign it to graph.json in
    `.gitattributes` (with `linguist-generated`); running it again changes nothing."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    git.config_set(root, "merge.gitgraph.name", "gitgraph: 3-way merge of graph.json records")
    git.config_set(root, "merge.gitgraph.driver", DRIVER)
    print("gitgraph: merge driver set in .git/config (each clone needs "
          "`gitgraph install --merge-driver`; `gitgraph` must be on PATH)", file=sys.stderr)
    pattern = _pattern(config.graph)
    path = root / ".gitattributes"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    if any(_assigns_driver(line, pattern) for line in text.splitlines()):
        return 0
    if text and not text.endswith("\n"):
        text += "\n"
    line = f"{pattern} {ATTRIBUTES}"
    store.write_atomic(path, (text + line + "\n").encode("utf-8"))
    print(f"gitgraph: added `{line}` to .gitattributes (commit it)", file=sys.stderr)
    return 0


def _pattern(graph: str) -> str:
    """graph.json's path as a .gitattributes pattern (quoted when it has blanks)."""
    escaped = "".join("\\" + c if c in "*?[\\" else c for c in graph)
    if any(c in escaped for c in ' \t"'):
        return '"' + escaped.replace('"', '\\"') + '"'
    return escaped


def _assigns_driver(line: str, pattern: str) -> bool:
    fields = line.split()
    return bool(fields) and fields[0] == pattern and "merge=gitgraph" in fields[1:]


def merge_driver(*, base: Path, ours: Path, theirs: Path) -> int:
    """Merge graph.json's records three ways into `ours` (exit 0); exit 1 when an input is
    unreadable, so that git reports an ordinary conflict."""
    try:
        old, mine, other = (_read(path) for path in (base, ours, theirs))
    except (OSError, store.CorruptGraph) as exc:
        print(f"gitgraph: merge-driver: {exc} (left as a conflict; `gitgraph update --staged "
              "--stage` regenerates graph.json)", file=sys.stderr)
        return 1
    if mine is None or other is None:
        print("gitgraph: merge-driver: one side has no graph.json (left as a conflict)",
              file=sys.stderr)
        return 1
    merged = merge.merge(old or merge.empty(mine.header), mine, other)
    store.write_atomic(ours, store.dumps(merged.lines))
    if merged.clashes:
        shown = ", ".join(merged.clashes[:3]) + (", ..." if len(merged.clashes) > 3 else "")
        print(f"gitgraph: merge-driver: {len(merged.clashes)} file(s) changed on both sides "
              f"kept our records ({shown}); the pre-commit hook or `gitgraph update --staged "
              "--stage` makes graph.json exact", file=sys.stderr)
    return 0


def _read(path: Path) -> store.GraphLines | None:
    """One side's graph; None for an empty file (git's stand-in for a missing side)."""
    if path.stat().st_size == 0:
        return None
    lines = store.read_lines(path)
    if lines is None:
        raise FileNotFoundError(f"{path.name}: no such file")
    return lines
