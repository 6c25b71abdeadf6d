"""Whole-process latency of `gitgraph diff HEAD~1` on Django (target: 0.3 s).

"With a current graph" (the issue's words): every commit is made the way the pre-commit
hook makes it, `gitgraph hook` (untimed) updating graph.json and the blob cache before
`git commit`. Each situation is timed as a fresh process after a commit:
  body      a 1-file commit that edits a function body (the stored view is overlaid)
  repeat    the same diff again (nothing changed since the last run)
  interface a 1-file commit that adds a function (an interface change: the files that
            mention a changed name are resolved again too; the first such run also builds
            the index of mentioned names)
  body, no hook   like body, committed with plain `git commit` (graph.json and the blob
            cache know nothing of it: the diff parses the new blob itself); no target

Usage: python bench/diff_speed.py [--runs N]

"CPU s" counts every process of a run (gitgraph, git, and the helper process that builds
the tokenizer on another core); "own CPU s" counts the diff process alone, the critical
path on an idle machine with two cores. On a shared machine, judge by these two columns:
wall time there mostly measures the other work.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Timing, bench_env, clone_repo, git, sdist_repo, timed  # noqa: E402

TARGET = 0.3
_RETURN = re.compile(r"^( +)return ", re.M)
DIFF = [sys.executable, "-m", "gitgraph", "diff", "HEAD~1", "-f", "json"]


# The launcher of common.timed, also reading the command's own CPU time from /proc before
# reaping it (waitid with WNOWAIT leaves the exited process's counters readable).
_LAUNCHER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
seconds = time.perf_counter() - start
with open(f"/proc/{process.pid}/stat") as stat:
    fields = stat.read().rpartition(")")[2].split()
own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
_, status, usage = os.wait4(process.pid, 0)
code = os.waitstatus_to_exitcode(status)
print(json.dumps([seconds, usage.ru_maxrss, code, usage.ru_utime + usage.ru_stime, own]))
"""


def timed_own(cmd: list[str], cwd: Path) -> tuple[Timing, float]:
    """`common.timed`, plus the CPU seconds of the command's own process (Linux)."""
    if not sys.platform.startswith("linux"):
        return timed(cmd, cwd), float("nan")
    launched = subprocess.run([sys.executable, "-S", "-c", _LAUNCHER, *cmd], cwd=cwd,
                              env=bench_env(), stdout=subprocess.PIPE, check=True)
    seconds, maxrss_kib, returncode, cpu_seconds, own = json.loads(launched.stdout)
    return Timing(seconds, maxrss_kib, returncode, cpu_seconds), own


def commit_edit(repo: Path, path: str, kind: str, run: int, hook: bool = True) -> None:
    """Edit one file (a body line, or a new function) and commit it (through the
    pre-commit hook's command unless `hook` is false)."""
    file = repo / path
    text = file.read_text("utf-8")
    if kind == "body":
        match = _RETURN.search(text)
        assert match is not None
        text = f"{text[: match.start()]}{match.group(1)}_bench = {run}\n{text[match.start():]}"
    else:
        text += f"\n\ndef gitgraph_bench_{run}(value):\n    return value\n"
    file.write_text(text, "utf-8")
    git(repo, "add", path)
    if hook:
        subprocess.run([sys.executable, "-m", "gitgraph", "hook"], cwd=repo, env=bench_env(),
                       check=True, stdout=subprocess.DEVNULL)
    git(repo, "commit", "-q", "-m", f"bench {kind} {run}")


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
        rows: dict[str, list[tuple[Timing, float]]] = {"body": [], "repeat": [],
                                                       "interface": [], "body, no hook": []}
        for run in range(args.runs):
            commit_edit(repo, path, "body", run)
            rows["body"].append(timed_own(DIFF, repo))
            rows["repeat"].append(timed_own(DIFF, repo))
            commit_edit(repo, path, "function", run)
            rows["interface"].append(timed_own(DIFF, repo))
            commit_edit(repo, path, "body", run + args.runs, hook=False)
            rows["body, no hook"].append(timed_own(DIFF, repo))
            timed([sys.executable, "-m", "gitgraph", "update"], repo)  # current again
    load = os.getloadavg()
    print(f"`gitgraph diff HEAD~1 -f json` on Django 5.1.4, {args.runs} runs, nproc "
          f"{os.cpu_count()}, load {load[0]:.2f}, Python {sys.version.split()[0]}\n")
    print("| situation | median s | range s | CPU s | own CPU s | peak RSS MB | target |")
    print("|---|--:|--:|--:|--:|--:|:-:|")
    for name, measured in rows.items():
        timings = [t for t, _ in measured]
        seconds = [t.seconds for t in timings]
        median = statistics.median(seconds)
        cpu = statistics.median(t.cpu_seconds for t in timings)
        own = statistics.median(own for _, own in measured)
        rss = max(t.maxrss_kib for t in timings) / 1024
        ok = ("✓" if median <= TARGET else "✗") if name in ("body", "repeat") else ""
        print(f"| {name} | {median:.2f} | {min(seconds):.2f}–{max(seconds):.2f} | {cpu:.2f} | "
              f"{own:.2f} | {rss:.0f} | {ok} |")
    failed = [t for ts in rows.values() for t, _ in ts if t.returncode]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
