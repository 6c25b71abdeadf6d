"""How long the pre-commit hook takes on Django, as a Markdown table.

Run from the repo root: `python bench/hook_speed.py [--runs 5] [--keep]`.
Every time is one whole process, median of the runs: `gitgraph hook` run directly, and
`pre-commit run gitgraph` with a `repo: local` config (pre-commit's start-up, its stash of
unstaged files and the hook). Each run stages fresh edits (new blob ids every run, so the
parse of the edited files is timed too) on top of the previous run's commit, as in a day of
commits: graph.json is the one the hook wrote for the last commit.

- body: a statement added inside a function of each file (the incremental splice);
- body after checkout: the same, but first `git checkout` rewrote graph.json (as a branch
  switch or pull does), so the hook scans the whole file once before trusting it;
- interface: a function appended to each file (spliced too: the files that mention its
  name are resolved again);
- docs only: README.rst edited (no source file changed: graph.json is not rewritten).

A report, not a test: a missed target prints ✗ and still exits 0; exit 1 means a run failed.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from common import Timing, clone_repo, git, sdist_repo, timed

TARGET_DIRECT_1 = 0.5  # seconds, `gitgraph hook` on a 1-file body-only commit (the issue)
GRAPH = ".gitgraph/graph.json"
BIN = Path(sys.executable).parent
_RETURN = re.compile(r"^( {4,8})return\b", re.MULTILINE)


class Case(NamedTuple):
    """One row: what is edited, in how many files."""

    edit: str  # body | interface | docs
    files: int
    after_checkout: bool = False


CASES = (
    Case("body", 1),
    Case("body", 1, after_checkout=True),
    Case("body", 10),
    Case("interface", 1),
    Case("interface", 10),
    Case("docs", 1),
)


def hook_command() -> list[str]:
    """`gitgraph hook` in this interpreter's environment."""
    return [sys.executable, "-m", "gitgraph", "hook"]


def pre_commit_command() -> list[str]:
    return [str(BIN / "pre-commit"), "run", "gitgraph"]


CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: gitgraph
        name: gitgraph
        entry: {entry}
        language: system
        pass_filenames: false
        require_serial: true
        always_run: true
"""


def pick_files(repo: Path, count: int) -> list[str]:
    """`count` Python files of the package spread over it, each with an indented `return`."""
    listed = git(repo, "ls-files", "-z", "--", "django/*.py").split("\0")
    usable = [p for p in listed if p and _RETURN.search((repo / p).read_text("utf-8"))]
    return [usable[i * len(usable) // count] for i in range(count)]


# Numbers the edits of the whole run: every edit makes blobs no earlier case made (each case
# starts from the base commit, so a per-case number would repeat a cached blob).
_EDITS = itertools.count()


def edit(repo: Path, case: Case, paths: list[str], run: int) -> None:
    """Apply and stage this run's edit (unique text, so every blob is new to the cache)."""
    if case.edit == "docs":
        with (repo / "README.rst").open("a", encoding="utf-8") as handle:
            handle.write(f"\nbench run {run}\n")
        git(repo, "add", "README.rst")
        return
    for n, path in enumerate(paths):
        file = repo / path
        text = file.read_text("utf-8")
        if case.edit == "body":
            match = _RETURN.search(text)
            assert match is not None
            indent = match.group(1)
            text = f"{text[: match.start()]}{indent}_bench = {run}\n{text[match.start() :]}"
        else:
            text += f"\n\ndef gitgraph_bench_{run}_{n}(value):\n    return value\n"
        file.write_text(text, "utf-8")
    git(repo, "add", "--", *paths)


def measure(
    repo: Path, base: str, case: Case, runs: int, files: dict[int, list[str]]
) -> tuple[list[Timing], list[Timing]]:
    """Time the hook `runs` times per runner for one case; check every result."""
    direct: list[Timing] = []
    through: list[Timing] = []
    git(repo, "reset", "-q", "--hard", base)
    for run in range(runs):
        for command, timings in ((hook_command(), direct), (pre_commit_command(), through)):
            if case.after_checkout:
                (repo / GRAPH).unlink()
                git(repo, "checkout", "-q", "--", GRAPH)
            edit(repo, case, files[case.files], next(_EDITS))
            timing = timed(command, repo)
            if timing.returncode != 0:
                raise RuntimeError(f"{' '.join(command)} exited {timing.returncode}")
            check = timed([sys.executable, "-m", "gitgraph", "check"], repo)
            if check.returncode != 0:
                raise RuntimeError(f"graph.json stale after {case} ({' '.join(command)})")
            timings.append(timing)
            git(repo, "commit", "-q", "--no-verify", "-m", f"bench run {run}")
    git(repo, "reset", "-q", "--hard", base)
    return direct, through


def cell(timings: list[Timing]) -> tuple[str, str]:
    seconds = [t.seconds for t in timings]
    return f"{statistics.median(seconds):.2f}", f"{min(seconds):.2f}–{max(seconds):.2f}"


def report(
    rows: list[tuple[Case, list[Timing], list[Timing]]],
    runs: int,
    graph_mb: float,
    load_before: float,
) -> str:
    """The Markdown table."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    lines = [
        "## gitgraph hook speed (Django 5.1.4)",
        "",
        f"nproc {cores} · Python {platform.python_version()} · graph.json {graph_mb:.1f} MB · "
        f"median of {runs} runs · load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after",
        "",
        "| commit | files | `gitgraph hook` s | range | CPU s | `pre-commit run gitgraph` s "
        "| range | target |",
        "|---|--:|--:|--:|--:|--:|--:|:-:|",
    ]
    for case, direct, through in rows:
        target = ""
        if case == Case("body", 1):
            median = statistics.median(t.seconds for t in direct)
            target = f"≤ {TARGET_DIRECT_1} s {'✓' if median <= TARGET_DIRECT_1 else '✗'}"
        label = {"body": "body-only edit", "interface": "function added", "docs": "docs only"}[
            case.edit
        ] + (" after a checkout" if case.after_checkout else "")
        lines.append(
            f"| {label} | {case.files} | {' | '.join(cell(direct))} | "
            f"{statistics.median(t.cpu_seconds for t in direct):.2f} | "
            f"{' | '.join(cell(through))} | {target} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Build the Django repo, commit its graph, time every case, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per cell (median)")
    parser.add_argument("--keep", action="store_true", help="keep the work dir and print it")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="gitgraph-hook-bench-"))
    os.environ["PRE_COMMIT_HOME"] = str(work / "pre-commit-home")
    load_before = os.getloadavg()[0]
    try:
        repo = clone_repo(sdist_repo("django", "5.1.4"), work / "django")
        entry = " ".join(hook_command()[:-1] + ["hook"])
        (repo / ".pre-commit-config.yaml").write_text(CONFIG.format(entry=entry))
        git(repo, "add", ".pre-commit-config.yaml")
        prepared = timed(
            [sys.executable, "-m", "gitgraph", "update", "--staged", "--stage"], repo
        )  # the cold build, untimed
        if prepared.returncode != 0:
            return 1
        git(repo, "commit", "-q", "-m", "graph.json and pre-commit config")
        base = git(repo, "rev-parse", "HEAD").strip()
        files = {n: pick_files(repo, n) for n in {case.files for case in CASES}}
        rows = []
        for case in CASES:
            print(f"hook_speed: {case.edit}, {case.files} file(s)", file=sys.stderr)
            rows.append((case, *measure(repo, base, case, args.runs, files)))
        graph_mb = (repo / GRAPH).stat().st_size / 2**20
    except RuntimeError as exc:
        print(f"hook_speed: error: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"hook_speed: work dir kept at {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(report(rows, args.runs, graph_mb, load_before))
    return 0


if __name__ == "__main__":
    sys.exit(main())
