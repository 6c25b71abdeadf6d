"""Command line: parse arguments, dispatch to `commands/*`, map errors to exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from . import __version__, gc_paused, log
from .errors import GitGraphError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gitgraph", description="A code graph of a git repository, kept current from git.")
    parser.add_argument("--version", action="version", version=f"gitgraph {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log cache decisions")
    parser.add_argument("-C", dest="cwd", default=".", help="run as if started in this directory")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("index", help="build graph.json (reuses the blob cache)")
    p.add_argument("--rev", help="index this revision instead of the work tree")
    p.add_argument("--staged", action="store_true", help="index the staged content (git index)")
    p.add_argument("-o", "--output", help="write here instead of the configured graph path")

    p = sub.add_parser("update", help="bring graph.json up to date, re-parsing changed blobs only")
    p.add_argument("--staged", action="store_true", help="describe the index, not the work tree")
    p.add_argument("--stage", action="store_true", help="`git add` graph.json afterwards")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line")

    p = sub.add_parser("check", help="exit 1 when graph.json does not describe the index")
    p.add_argument("--rev", help="compare with this revision instead of the index")

    p = sub.add_parser("diff", help="what a change touches, within a token budget")
    p.add_argument("revisions", nargs="*", metavar="REV",
                   help="as for git diff: none, R, A B, A..B or A...B")
    p.add_argument("--staged", "--cached", action="store_true", help="index vs HEAD (or REV)")
    p.add_argument("-b", "--budget", type=int, help="token budget (default 2000, or config)")
    p.add_argument("-f", "--format", dest="fmt",
                   choices=("text", "markdown", "json", "yaml", "claude-md"),
                   help="output format (default: text on a terminal, else markdown)")
    p.add_argument("--tests", action="store_true",
                   help="print the impacted tests as runnable ids, one per line")
    p.add_argument("--code", action=argparse.BooleanOptionalAction, default=True,
                   help="include code (default) or only locations and signatures")
    p.add_argument("--explain", action="store_true",
                   help="show score parts and the path from a changed symbol")

    p = sub.add_parser("hook", help="pre-commit hook: index the staged tree into graph.json")
    p.add_argument("--no-stage", dest="stage", action="store_false",
                   help="rewrite graph.json and fail (pre-commit's convention) instead of staging")
    p.add_argument("--strict", action="store_true", help="fail on internal errors (default: warn)")

    p = sub.add_parser("warm", help="post-checkout/merge/rewrite hook: warm the blob cache")
    p.add_argument("--rev", default="HEAD", help="revision whose blobs to parse (default HEAD)")
    p.add_argument("--strict", action="store_true", help="fail on internal errors (default: warn)")

    p = sub.add_parser("install", help="set up git integration for graph.json")
    p.add_argument("--merge-driver", action="store_true", required=True,
                   help="regenerate graph.json on merge (git config + .gitattributes)")

    p = sub.add_parser("merge-driver", help="(run by git) 3-way merge of graph.json records")
    p.add_argument("base", help="%%O: the common ancestor's version")
    p.add_argument("ours", help="%%A: our version; the result is written here")
    p.add_argument("theirs", help="%%B: their version")

    p = sub.add_parser("comment", help="post or update the sticky impact comment on a PR")
    p.add_argument("revisions", nargs="*", metavar="REV", help="as for diff (default: from the "
                   "pull_request event: base.sha head.sha)")
    p.add_argument("-b", "--budget", type=int, help="token budget for the context")
    p.add_argument("--pr", type=int, help="pull request number (default: from the event)")
    p.add_argument("--repo", help="owner/name (default: $GITHUB_REPOSITORY)")
    p.add_argument("-o", "--output", help="write the comment body here instead of posting it")
    p.add_argument("--summary", action="store_true", help="also write $GITHUB_STEP_SUMMARY")

    p = sub.add_parser("claude-md", help="keep a code map block in CLAUDE.md current")
    p.add_argument("--file", default="CLAUDE.md", help="the file holding the block")
    p.add_argument("-b", "--budget", type=int, help="token budget for the block")
    p.add_argument("--check", action="store_true", help="exit 1 when the block is stale")

    p = sub.add_parser("stats", help="files, symbols, edges by kind, languages, resolution")
    p.add_argument("--rev", help="describe this revision instead of the work tree")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code."""
    with gc_paused():  # a whole run: see gc_paused
        return _run(argv)


def run() -> NoReturn:
    """The `gitgraph` console script: `main`, then exit without tearing the interpreter
    down (freeing a graph object by object costs a warm index ~30 ms, a hook or a diff
    ~10 ms). Every file gitgraph writes is closed by then; stdout and stderr are flushed."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that went away, a closed stream
            pass
    os._exit(code)


def _run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    log.verbose = args.verbose
    cwd = Path(args.cwd)
    try:
        if args.command == "index":
            from .commands.index import index
            return index(cwd=cwd, rev=args.rev, staged=args.staged, output=args.output)
        if args.command == "update":
            from .commands.index import update
            return update(cwd=cwd, staged=args.staged, stage=args.stage, quiet=args.quiet)
        if args.command == "check":
            from .commands.index import check
            return check(cwd=cwd, rev=args.rev)
        if args.command == "diff":
            from .commands.diff import diff
            return diff(cwd=cwd, revisions=args.revisions, staged=args.staged,
                        budget=args.budget, fmt=args.fmt, tests=args.tests, code=args.code,
                        explain=args.explain)
        if args.command == "hook":
            from .commands.hook import hook
            return hook(cwd=cwd, stage=args.stage, strict=args.strict)
        if args.command == "warm":
            from .commands.hook import warm
            return warm(cwd=cwd, rev=args.rev, strict=args.strict)
        if args.command == "install":
            from .commands.install import install_merge_driver
            return install_merge_driver(cwd=cwd)
        if args.command == "merge-driver":
            from .commands.install import merge_driver
            return merge_driver(base=Path(args.base), ours=Path(args.ours),
                                theirs=Path(args.theirs))
        if args.command == "comment":
            from .commands.comment import comment
            return comment(cwd=cwd, revisions=args.revisions, budget=args.budget, pr=args.pr,
                           repo=args.repo, output=args.output, summary=args.summary)
        if args.command == "claude-md":
            from .commands.claude_md import claude_md
            return claude_md(cwd=cwd, file=args.file, budget=args.budget, check=args.check)
        if args.command == "stats":
            from .commands.stats import stats
            return stats(cwd=cwd, rev=args.rev)
        raise AssertionError(args.command)
    except GitGraphError as exc:
        print(f"gitgraph: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so in one line, keep the traceback for -v
        log.crash(exc)
        print(f"gitgraph: internal error: {type(exc).__name__}: {exc} "
              "(please report it; -v shows the traceback)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    run()
