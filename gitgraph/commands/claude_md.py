"""`gitgraph claude-md`: keep the code map block in CLAUDE.md current (or check that it is)."""

from __future__ import annotations

import sys
from pathlib import Path

from gitgraph import actions, git
from gitgraph import config as config_mod
from gitgraph.claudemd import block_is_current, write_block
from gitgraph.errors import GitGraphError

DEFAULT_BUDGET = 1000  # CLAUDE.md should stay short: this is about 60 lines


def claude_md(*, cwd: Path, file: str, budget: int | None, check: bool) -> int:
    """Write the code map of HEAD between the gitgraph markers of `file`; with `check`,
    exit 1 when the block there differs (or is missing) instead of writing it."""
    from gitgraph import tokens
    from gitgraph.codemap import build_codemap
    from gitgraph.render.codemap import fit_codemap

    root = git.repo_root(cwd)
    config = config_mod.load(root)
    budget = DEFAULT_BUDGET if budget is None else budget
    if budget <= 0:
        raise GitGraphError(f"budget must be positive, not {budget}")
    path = cwd / file
    encoding = tokens.encoding(config.encoding)
    content = fit_codemap(build_codemap(root, config), budget,
                          lambda text: len(encoding.encode_ordinary(text)))
    if check:
        if block_is_current(path, content):
            return 0
        print(f"gitgraph: the code map in {file} is stale (run `gitgraph claude-md`)",
              file=sys.stderr)
        return 1
    written = write_block(path, content)
    actions.set_output("claude-md-changed", "true" if written else "false")
    actions.set_output("claude-md-file", str(path.resolve()))
    print(f"gitgraph: {'updated' if written else 'unchanged'} {file}", file=sys.stderr)
    return 0
