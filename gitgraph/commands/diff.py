"""`gitgraph diff`: the token-budgeted change-impact subgraph of a diff."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gitgraph import config as config_mod
from gitgraph import git
from gitgraph.errors import GitGraphError

if TYPE_CHECKING:
    from gitgraph.model import Impact


def diff(*, cwd: Path, revisions: list[str], staged: bool, budget: int | None,
         fmt: str | None, tests: bool, code: bool, explain: bool) -> int:
    """Print the impact of a diff (git diff's revision semantics) within `budget` tokens."""
    from gitgraph import counting, render

    root = git.repo_root(cwd)
    config = config_mod.load(root)
    budget = config.budget if budget is None else budget
    if budget <= 0:
        raise GitGraphError(f"budget must be positive, not {budget}")
    fmt = fmt or ("text" if sys.stdout.isatty() else "markdown")
    if fmt not in render.FORMATS:
        raise GitGraphError(f"unknown format '{fmt}' (choose from {', '.join(render.FORMATS)})")
    if tests:
        from gitgraph.changes import parse_sides
        from gitgraph.impact import analyse, impacted_tests

        analysis = analyse(root, parse_sides(root, revisions, staged), config)
        for test in impacted_tests(analysis):
            print(test)
        return 0
    # Exact counts, from remembered text parts (selection renders similar texts often); the
    # tokenizer is built on another core while the graph work goes on. It is forked first,
    # before the graph modules are even imported: the build is the longest thing a diff
    # waits for, and forked later, from a larger heap, it would make the pages this
    # process then writes (reference counts of the view's objects) copies, one fault each.
    with counting.Counter(config.encoding, background=True) as count:
        from gitgraph.changes import parse_sides
        from gitgraph.headgraph import Stored
        from gitgraph.impact import analyse, build_impact

        stored = Stored(root, config)
        sides = parse_sides(root, revisions, staged, meanwhile=stored.view)  # while git works
        analysis = analyse(root, sides, config, stored)
        if not analysis.changed_paths:
            print("gitgraph: no changes", file=sys.stderr)
            if fmt not in ("json", "yaml"):
                return 0

        def show(impact: Impact) -> str:
            return render.render(impact, fmt, explain=explain, code=code)

        impact = build_impact(analysis, config, budget, show, count, code)
        text = show(impact)
    if fmt == "text" and sys.stdout.isatty():
        from rich.console import Console

        from gitgraph.render.text import print_text

        print_text(text, Console())
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
