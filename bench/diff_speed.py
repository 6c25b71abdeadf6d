"""Whole-process latency of `gitgraph diff HEAD~1` on Django (target: 0.3 s).

Three situations, each timed as a fresh process after a commit:
  body      a 1-file commit that edits a function body (the stored view is overlaid)
  repeat    the same diff again (nothing changed since the last run)
  interface a 1-file commit that adds a function (an interface change: the files that
            mention a changed name are resolved again too; the first such run also builds
            the index of mentioned names)

Usage: python bench/diff_speed.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Timing, clone_repo, git, sdist_repo, timed  # noqa: E402

TARGET = 0.3
_RETURN = re.compile(r"^( +)return ", re.M)
DIFF = [sys.executable, "-m", "gitgraph", "diff", "HEAD~1", "-f", "json"]


def commit_edit(repo: Path, path: str, kind: str, run: int) -> None:
    """Edit one file (a body line, or a new function) and commit it."""
    file = repo / path
    text = file.read_text("utf-8")
    if kind == "body":
        match = _RETURN.search(text)
        assert match is not None
        text = f"{text[: match.start()]}{match.group(1)}_bench = {run}\n{text[match.start():]}"
    else:
        text += f"\n\ndef gitgraph_bench_{run}(value):\n    return value\n"
    file.write_text(text, "utf-8")
    git(repo, "commit", "-q", "-am", f"bench {kind} {run}")


def main(argv: list[str] | None = None) -> int:
    """Print the latency table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    base_repo = sdist_repo("django", "5.1.4")
    with tempfile.TemporaryDirectory() as scratch:
        repo = clone_repo(base_repo, Path(scratch) / "django")
        path = "django/utils/text.py"
        timed([sys.executable, "-m", "gitgraph", "index"], repo)  # warm the blob cache
        timed([*DIFF[:4], "HEAD", *DIFF[5:]], repo)  # stores the view of this tree
        rows: dict[str, list[Timing]] = {"body": [], "repeat": [], "interface": []}
        for run in range(args.runs):
            commit_edit(repo, path, "body", run)
            rows["body"].append(timed(DIFF, repo))
            rows["repeat"].append(timed(DIFF, repo))
            commit_edit(repo, path, "function", run)
            rows["interface"].append(timed(DIFF, repo))
    load = os.getloadavg()
    print(f"`gitgraph diff HEAD~1 -f json` on Django 5.1.4, {args.runs} runs, nproc "
          f"{os.cpu_count()}, load {load[0]:.2f}, Python {sys.version.split()[0]}\n")
    print("| situation | median s | range s | CPU s | peak RSS MB | target |")
    print("|---|--:|--:|--:|--:|:-:|")
    for name, timings in rows.items():
        seconds = [t.seconds for t in timings]
        median = statistics.median(seconds)
        cpu = statistics.median(t.cpu_seconds for t in timings)
        rss = max(t.maxrss_kib for t in timings) / 1024
        ok = ("✓" if median <= TARGET else "✗") if name != "interface" else ""
        print(f"| {name} | {median:.2f} | {min(seconds):.2f}–{max(seconds):.2f} | {cpu:.2f} | "
              f"{rss:.0f} | {ok} |")
    failed = [t for ts in rows.values() for t in ts if t.returncode]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
