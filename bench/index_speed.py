"""How fast `gitgraph index` and `gitgraph update` run on Django and Flask, as a Markdown table.

Run from the repo root: `python bench/index_speed.py [--repos django,flask] [--runs 5] [--keep]`.
Every time is one whole `python -m gitgraph ...` process (imports included), median of the runs.
A report, not a test: a missed target prints ✗ and still exits 0; exit 1 means gitgraph failed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from common import BASE_TAG, Timing, clone_repo, git, sdist_repo, timed


class Subject(NamedTuple):
    """A pinned sdist to index, and the folder whose files the update runs edit."""

    name: str
    version: str
    package: str


SUBJECTS = {
    "django": Subject("django", "5.1.4", "django/"),
    "flask": Subject("flask", "3.1.0", "src/flask/"),
}

# Django targets this report checks. DESIGN.md's budgets differ: cold ≤ 6 s, hook ≤ 0.3 s.
TARGETS = {"cold": 4.0, "warm": 1.0, "update_1": 0.5, "rss_mb": 300.0}

GRAPH_PATH = Path(".gitgraph") / "graph.json"
MB = 1024 * 1024


class GitGraphFailed(Exception):
    """A gitgraph command exited non-zero, so the repo's numbers are meaningless."""


@dataclass(frozen=True)
class GraphStats:
    """What one graph.json holds."""

    files: int
    symbols: int
    edges: int
    edges_by_kind: dict[str, int]
    size_bytes: int


@dataclass
class Measurements:
    """Every timing of one repo, one entry per run."""

    cold: list[Timing] = field(default_factory=list)
    warm: list[Timing] = field(default_factory=list)
    warm_switch: list[Timing] = field(default_factory=list)
    warm_full: list[Timing] = field(default_factory=list)
    update_1: list[Timing] = field(default_factory=list)
    update_10: list[Timing] = field(default_factory=list)
    update_body: list[Timing] = field(default_factory=list)
    update_first: list[Timing] = field(default_factory=list)
    inconsistencies: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RepoResult:
    """The measurements and graph of one repo, or why there are none."""

    name: str
    stats: GraphStats | None
    measurements: Measurements
    error: str | None = None


def gitgraph(*args: str) -> list[str]:
    """The command line running gitgraph in this interpreter's environment."""
    return [sys.executable, "-m", "gitgraph", *args]


def run_gitgraph(repo: Path, *args: str) -> Timing:
    """Run and time one gitgraph command; raise GitGraphFailed when it fails."""
    timing = timed(gitgraph(*args), cwd=repo)
    if timing.returncode != 0:
        raise GitGraphFailed(f"`gitgraph {' '.join(args)}` exited {timing.returncode}")
    return timing


def blob_cache_dir(repo: Path) -> Path:
    """Where gitgraph keeps its blob cache for `repo` (shared by all its worktrees)."""
    common_dir = git(repo, "rev-parse", "--git-common-dir").strip()
    return (repo / common_dir).resolve() / "gitgraph"


def graph_stats(graph_file: Path) -> GraphStats:
    """Count the files, symbols and edges of a node-link graph.json."""
    content = graph_file.read_bytes()
    graph = json.loads(content)
    links = graph["links"]
    return GraphStats(
        files=len(graph["graph"]["files"]),
        symbols=sum(1 for node in graph["nodes"] if node.get("kind") != "file"),
        edges=len(links),
        edges_by_kind=dict(sorted(Counter(str(link.get("kind")) for link in links).items())),
        size_bytes=len(content),
    )


def difference(expected: bytes, actual: bytes) -> str | None:
    """Why two graph.json contents differ, or None when they are identical."""
    if expected == actual:
        return None
    extractors = [json.loads(content)["graph"].get("extractor") for content in (expected, actual)]
    if extractors[0] != extractors[1]:
        return "extractor digest changed (was gitgraph edited during the run?)"
    return "different bytes"


def probe_files(repo: Path, package: str, count: int) -> list[Path]:
    """`count` tracked Python files spread evenly over `package`, always the same ones."""
    listed = git(repo, "ls-files", "-z", "--", f"{package}*.py").split("\0")
    paths = [path for path in listed if path and not path.endswith("__init__.py")]
    if len(paths) < count:
        raise RuntimeError(f"only {len(paths)} Python files under {package}, need {count}")
    return [repo / paths[index * len(paths) // count] for index in range(count)]


def commit_probes(repo: Path, files: list[Path], tag: str) -> None:
    """Append a small new function to each file and commit them all."""
    for number, path in enumerate(files):
        with path.open("a", encoding="utf-8") as source:
            source.write(f"\n\ndef gitgraph_bench_{tag}_{number}(value):\n    return value\n")
    git(repo, "commit", "-q", "-am", f"bench: probe {len(files)} files")


_RETURN = re.compile(r"^( +)return\b", re.MULTILINE)


def commit_body_edit(repo: Path, files: list[Path], run: int) -> None:
    """Add a statement before the first indented `return` of the first such file; commit."""
    for path in files:
        text = path.read_text("utf-8")
        match = _RETURN.search(text)
        if match:
            indent = match.group(1)
            path.write_text(f"{text[:match.start()]}{indent}_bench = {run}\n"
                            f"{text[match.start():]}", "utf-8")
            git(repo, "commit", "-q", "-am", f"bench: body edit {run}")
            return
    raise RuntimeError("no probe file has an indented return")


def restore(repo: Path) -> None:
    """Return to the base commit and bring graph.json back in line with it (untimed)."""
    git(repo, "reset", "-q", "--hard", BASE_TAG)
    run_gitgraph(repo, "update", "--staged")


def measure(repo: Path, subject: Subject, runs: int, progress: bool) -> RepoResult:
    """Time cold index, warm index and two incremental updates `runs` times in `repo`."""
    measurements = Measurements()
    probes = probe_files(repo, subject.package, 10)
    graph_file = repo / GRAPH_PATH
    full_graph = b""
    stats = None
    try:
        for run in range(runs):
            if progress:
                print(f"{subject.name}: run {run + 1}/{runs}", file=sys.stderr)
            shutil.rmtree(blob_cache_dir(repo), ignore_errors=True)
            graph_file.unlink(missing_ok=True)
            measurements.cold.append(run_gitgraph(repo, "index"))
            full_graph = graph_file.read_bytes()
            stats = stats or graph_stats(graph_file)

            graph_file.unlink()
            measurements.warm.append(run_gitgraph(repo, "index"))
            if why := difference(full_graph, graph_file.read_bytes()):
                measurements.inconsistencies.append(f"run {run + 1}: warm != cold index, {why}")

            # A branch switch: a tree 10 files away (a function added to each), no graph.json
            commit_probes(repo, probes, "switch")
            graph_file.unlink()
            measurements.warm_switch.append(run_gitgraph(repo, "index"))
            restore(repo)
            if why := difference(full_graph, graph_file.read_bytes()):
                measurements.inconsistencies.append(
                    f"run {run + 1}: update back to base after a switch != full index, {why}")

            # The whole graph from the blob cache: no graph.json, no last graph kept
            for kept in blob_cache_dir(repo).glob("last-*.json"):
                kept.unlink()
            graph_file.unlink()
            measurements.warm_full.append(run_gitgraph(repo, "index"))
            if why := difference(full_graph, graph_file.read_bytes()):
                measurements.inconsistencies.append(
                    f"run {run + 1}: warm full build != cold index, {why}")

            commit_body_edit(repo, probes, run)
            measurements.update_body.append(run_gitgraph(repo, "update", "--staged"))
            restore(repo)
            if why := difference(full_graph, graph_file.read_bytes()):
                measurements.inconsistencies.append(
                    f"run {run + 1}: update back to base after a body edit != full index, {why}")

            # The first interface change after a fresh index also builds the index of which
            # files mention which names (kept beside the cache); later ones reuse it.
            for tag, count, timings in (("first", 1, measurements.update_first),
                                        ("probe", 1, measurements.update_1),
                                        ("probes", 10, measurements.update_10)):
                if tag == "first":  # as after a fresh index: no index of mentioned names yet
                    for kept in blob_cache_dir(repo).glob("mentions-*.bin"):
                        kept.unlink()
                commit_probes(repo, probes[:count], tag)
                timings.append(run_gitgraph(repo, "update", "--staged"))
                restore(repo)
                if why := difference(full_graph, graph_file.read_bytes()):
                    measurements.inconsistencies.append(
                        f"run {run + 1}: update back to base after {count}-file commit "
                        f"!= full index, {why}"
                    )
    except GitGraphFailed as failure:
        return RepoResult(subject.name, stats, measurements, error=str(failure))
    return RepoResult(subject.name, stats, measurements)


def median_seconds(timings: list[Timing]) -> float:
    """Median wall time of `timings`."""
    return statistics.median(timing.seconds for timing in timings)


def peak_rss_mb(timings: list[Timing]) -> float:
    """Largest peak RSS among `timings`, in MiB."""
    return max(timing.maxrss_kib for timing in timings) / 1024


def results_table(results: list[RepoResult]) -> list[str]:
    """One Markdown row per repo."""
    lines = [
        "| repo | files | symbols | edges | cold s | warm s | warm, 10 files away s "
        "| warm full build s | update 1-file body s | update 1-file, first s "
        "| update 1-file s | update 10-file s | peak RSS MB | graph.json MB |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for result in results:
        stats, times = result.stats, result.measurements
        cells = [result.name + (" (failed)" if result.error else "")]
        if stats is None:
            cells += ["—"] * 3
        else:
            cells += [f"{stats.files:,}", f"{stats.symbols:,}", f"{stats.edges:,}"]
        for timings in (times.cold, times.warm, times.warm_switch, times.warm_full,
                        times.update_body, times.update_first, times.update_1, times.update_10):
            cells.append(f"{median_seconds(timings):.2f}" if timings else "—")
        cells.append(f"{peak_rss_mb(times.cold):.0f}" if times.cold else "—")
        cells.append(f"{stats.size_bytes / MB:.2f}" if stats else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def targets_table(result: RepoResult) -> list[str]:
    """The Django targets beside what was measured, each with ✓ or ✗."""
    times = result.measurements
    rows = [
        ("cold index", "s", TARGETS["cold"], times.cold, median_seconds),
        ("warm index (graph.json deleted, same tree)", "s", TARGETS["warm"], times.warm,
         median_seconds),
        ("warm index after a branch switch (10 files away)", "s", TARGETS["warm"],
         times.warm_switch, median_seconds),
        ("update after 1-file body edit", "s", TARGETS["update_1"], times.update_body,
         median_seconds),
        ("update after 1-file commit adding a function", "s", TARGETS["update_1"],
         times.update_1, median_seconds),
        ("the same, first after a fresh index", "s", TARGETS["update_1"], times.update_first,
         median_seconds),
        ("peak RSS of cold index", "MB", TARGETS["rss_mb"], times.cold, peak_rss_mb),
    ]
    lines = [
        "| Django target | limit | measured | range | CPU s | ok |",
        "|---|--:|--:|--:|--:|:-:|",
    ]
    for label, unit, limit, timings, statistic in rows:
        if not timings:
            lines.append(f"| {label} | ≤ {limit:g} {unit} | — | — | — | ✗ |")
            continue
        value = statistic(timings)
        if unit == "s":
            low, high = min(t.seconds for t in timings), max(t.seconds for t in timings)
            spread = f"{low:.2f}–{high:.2f}"
            shown = f"{value:.2f}"
            cpu = f"{statistics.median(t.cpu_seconds for t in timings):.2f}"
        else:
            spread, shown, cpu = "max of runs", f"{value:.0f}", ""
        mark = "✓" if value <= limit else "✗"
        lines.append(f"| {label} | ≤ {limit:g} {unit} | {shown} | {spread} | {cpu} | {mark} |")
    return lines


def edge_kinds_table(results: list[RepoResult]) -> list[str]:
    """Edge counts by kind, one row per measured repo."""
    measured = [(result.name, result.stats) for result in results if result.stats is not None]
    kinds = sorted({kind for _, stats in measured for kind in stats.edges_by_kind})
    lines = ["| repo | " + " | ".join(kinds) + " |", "|---|" + "--:|" * len(kinds)]
    for name, stats in measured:
        counts = [f"{stats.edges_by_kind.get(kind, 0):,}" for kind in kinds]
        lines.append(f"| {name} | " + " | ".join(counts) + " |")
    return lines


def environment_line(runs: int, load_at_start: float) -> str:
    """The machine facts that explain the numbers, including how busy it was."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    git_version = subprocess.run(
        ["git", "--version"], capture_output=True, text=True, check=True
    ).stdout.split()[-1]
    return (
        f"nproc {cores} · Python {platform.python_version()} · git {git_version} · "
        f"{platform.system()} {platform.machine()} · median of {runs} runs · MB = 2^20 bytes · "
        f"load average {load_at_start:.2f} before, {os.getloadavg()[0]:.2f} after"
    )


def report(results: list[RepoResult], runs: int, load_at_start: float) -> str:
    """The whole Markdown report."""
    lines = ["## gitgraph index speed", "", environment_line(runs, load_at_start), ""]
    lines += results_table(results)
    django = next((result for result in results if result.name == "django"), None)
    if django is not None:
        lines += ["", *targets_table(django)]
    if any(result.stats is not None for result in results):
        lines += ["", "Edges by kind:", "", *edge_kinds_table(results)]
    failures = [f"- {result.name}: {result.error}" for result in results if result.error]
    if failures:
        lines += ["", "Failed (later measurements of that repo skipped):", *failures]
    notes = [
        f"- {result.name}: {note}"
        for result in results
        for note in result.measurements.inconsistencies
    ]
    if notes:
        lines += ["", "Not byte-identical (DESIGN.md: incremental == full rebuild):", *notes]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repos", default="django,flask", help="comma-separated, from: " + ",".join(SUBJECTS)
    )
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--keep", action="store_true", help="keep the work dir and print it")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    args.repos = [name.strip() for name in args.repos.split(",") if name.strip()]
    unknown = sorted(set(args.repos) - set(SUBJECTS))
    if unknown:
        parser.error(f"unknown repo {', '.join(unknown)} (choose from {', '.join(SUBJECTS)})")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    """Build the repos, measure each, print the report."""
    args = parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="gitgraph-bench-"))
    # Probe from the work dir, as the measured runs do: `-m` puts the cwd first on sys.path.
    probe = subprocess.run(gitgraph("index", "--help"), cwd=work, capture_output=True, text=True)
    if probe.returncode != 0:
        shutil.rmtree(work)
        print(
            f"index_speed: error: `{sys.executable} -m gitgraph index --help` failed "
            f"(install gitgraph in this environment: pip install -e .)\n{probe.stderr.strip()}",
            file=sys.stderr,
        )
        return 1
    results = []
    load_at_start = os.getloadavg()[0]  # other work on the machine makes every number noisy
    try:
        for name in args.repos:
            subject = SUBJECTS[name]
            if not args.quiet:
                print(f"{name}: preparing {name}=={subject.version}", file=sys.stderr)
            repo = clone_repo(sdist_repo(subject.name, subject.version), work / name)
            results.append(measure(repo, subject, args.runs, progress=not args.quiet))
    finally:
        if args.keep:
            print(f"index_speed: work dir kept at {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(report(results, args.runs, load_at_start))
    return 1 if any(result.error for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
