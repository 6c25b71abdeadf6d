"""`gitgraph hook` (pre-commit) and `gitgraph warm` (post-checkout, post-merge, post-rewrite).

Both fail open: an internal error (a gitgraph bug, an unreadable file, a git failure) prints
one warning and exits 0, so gitgraph never blocks a commit or a checkout; `--strict` makes
it fail instead. The work is imported inside the `try`, so even a broken install fails open.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gitgraph import log
from gitgraph.errors import GitGraphError


def hook(*, cwd: Path, stage: bool, strict: bool) -> int:
    """Index the staged tree into graph.json and stage it; with `stage=False`, exit 1 when
    graph.json had to be written (pre-commit's convention: the user re-stages it)."""
    try:
        from gitgraph import git
        from gitgraph.commands.index import refresh

        done = refresh(cwd=cwd, staged=True, stage=stage, quiet=True)
        automatic_merge = done.written and git.in_automatic_merge(done.root)
    except Exception as exc:
        if strict:
            raise
        return _warn(exc, "commit not blocked")
    if automatic_merge and stage:
        # git merge wrote the merge's tree before running its pre-merge-commit hook
        print(f"gitgraph: staged {done.graph} for the merged tree; `git commit --no-edit` "
              "finishes the merge", file=sys.stderr)
        return 1
    if stage or (done.tracked and not done.written):
        return 0
    # pre-commit notices a rewritten tracked file, but not a new untracked one, and a commit
    # without graph.json in the index would not carry it: say so ourselves.
    what = (f"wrote {done.graph} to describe the staged files" if done.written
            else f"{done.graph} is not staged")
    print(f"gitgraph: {what}; `git add {done.graph}` and commit again", file=sys.stderr)
    return 1


def warm(*, cwd: Path, rev: str, strict: bool) -> int:
    """Parse every source blob of `rev` missing from the blob cache into it, so that a later
    `diff` or hook finds them, and prepare what the next hook reads (graph.json checked, the
    tables that fit it stored); never writes graph.json."""
    if os.environ.get("PRE_COMMIT_CHECKOUT_TYPE") == "0":
        return 0  # a file checkout (`git checkout -- path`): HEAD did not move
    if rev == "HEAD":  # post-checkout: the commit just checked out (HEAD too, said explicitly)
        rev = os.environ.get("PRE_COMMIT_TO_REF") or rev
    try:
        from gitgraph import config as config_mod
        from gitgraph import git
        from gitgraph.commands.index import prepare
        from gitgraph.index import Report, load_extractions, snapshot, source_files

        root = git.repo_root(cwd)
        if set(rev) == {"0"} or (rev == "HEAD" and not git.has_commits(root)):
            return 0  # nothing checked out yet (a null id, an unborn branch)
        config = config_mod.load(root)
        tree = snapshot(root, rev=rev)
        report = Report()
        load_extractions(root, tree, source_files(tree, config, report), config, report)
        prepare(root=root, config=config)
    except Exception as exc:
        if strict:
            raise
        return _warn(exc, "cache not warmed")
    if report.extracted:
        print(f"gitgraph: cached {report.extracted} new file version(s) of {rev}",
              file=sys.stderr)
    return 0


def _warn(exc: Exception, consequence: str) -> int:
    """The fail-open path: one warning line (the traceback at -v), exit code 0."""
    if isinstance(exc, GitGraphError):
        what = str(exc)
    else:
        what = f"internal error: {type(exc).__name__}: {exc}"
        log.crash(exc)
    print(f"gitgraph: warning: {what} ({consequence}; --strict to fail)", file=sys.stderr)
    return 0
