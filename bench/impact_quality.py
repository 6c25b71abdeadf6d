"""Does `gitgraph diff` find the tests a change breaks? Injected faults in real packages.

Run from the repo root: `python bench/impact_quality.py [--packages humanize,cachetools]
[--faults 10] [--budgets 1000,2000,4000] [--jobs 2] [--json results.json]`.

For each pinned sdist (see `faults.PACKAGES`), library functions the package's own tests
exercise get their body replaced by `raise RuntimeError("gitgraph-fault")`; the failing tests
are the ground truth (cached in bench/.cache/impact_truth/). Each fault is then committed and
`gitgraph diff HEAD~1 -f json -b B` and `gitgraph diff HEAD~1 --tests` are scored against that
truth, next to two baselines (the changed files alone; a reverse import BFS to test files).
A report, not a test: missed targets print ✗ and the script still exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from baselines import changed_files_only, import_bfs
from common import bench_env, git
from faults import (
    PACKAGES,
    Fault,
    Truth,
    ground_truth,
    inherited_tests,
    inject,
    normalise_test,
    reset,
)

from gitgraph import tokens

try:
    from gitgraph.select import BODY_SHARE
except ImportError:  # the selection module moved: use the design's share
    BODY_SHARE = 0.5

BUDGETS = (1000, 2000, 4000)
TARGET_BUDGET = 2000
TARGETS = {"fn_recall": 0.90, "mrr": 0.80, "precision": 0.60, "bodies": 1.0, "overruns": 0}
SYSTEMS = ("gitgraph", "changed files", "import BFS")


def count(text: str) -> int:
    """cl100k_base tokens, special-token strings counted as plain text (as gitgraph does)."""
    return tokens.count(text)


def truncate(text: str, budget: int) -> str:
    """The longest token prefix of `text` within `budget` tokens."""
    encoding = tokens.encoding("cl100k_base")
    ids = encoding.encode_ordinary(text)
    return text if len(ids) <= budget else encoding.decode(ids[:budget])


# -- running gitgraph ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One gitgraph process: its output, exit code and wall time."""

    stdout: str
    stderr: str
    returncode: int
    seconds: float


def gitgraph(repo: Path, *args: str) -> Run:
    """`python -m gitgraph ARGS` in `repo`, under the benchmark's git identity."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "gitgraph", *args],
        cwd=repo,
        env=bench_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    return Run(done.stdout, done.stderr, done.returncode, time.perf_counter() - start)


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def evaluate_fault(
    truth: Truth, fault: Fault, budgets: Sequence[int], tracked: list[str]
) -> dict[str, Any]:
    """Commit the fault, run gitgraph and the baselines at each budget, reset. Raw results."""
    repo, site = truth.repo, fault.site
    target = repo / site.path
    source = target.read_text(encoding="utf-8")
    faulty = inject(source, site)
    target.write_text(faulty, encoding="utf-8")
    git(repo, "commit", "-q", "-a", "-m", f"fault: {site.key}")
    try:
        changed = [p for p in git(repo, "diff", "--name-only", "-z", "HEAD~1").split("\0") if p]
        naive_text = git(repo, "diff", "HEAD~1") + "".join(
            (repo / p).read_text(encoding="utf-8", errors="replace")
            for p in changed
            if (repo / p).is_file()
        )
        lines = faulty.splitlines()
        changed_text = "\n".join(lines[site.def_line - 1 : site.body_start])
        spans = {site.node: (site.path, site.def_line, site.body_start)}
        record: dict[str, Any] = {
            "package": truth.package.key,
            "fault": site.key,
            "node": site.node,
            "failed": list(fault.failed),
            "failed_files": sorted(fault.failed_files),
            "changed_files": changed,
            "naive_tokens": count(naive_text),
            "changed_body_tokens": count(changed_text),
            "budgets": {},
        }
        tests_run = gitgraph(repo, "diff", "HEAD~1", "--tests")
        listed = [line for line in tests_run.stdout.splitlines() if line.strip()]
        runnable = set().union(*map(_selectors, truth.collected_ids))  # ids that run a test
        record["tests_cmd"] = {
            "tests": listed,
            "selected": selected_count(listed, truth.collected_ids),
            "not_collected": [t for t in listed if normalise_test(t) not in runnable],
            "seconds": tests_run.seconds,
            "returncode": tests_run.returncode,
            "stderr": tests_run.stderr[-2000:],
        }
        for budget in budgets:
            run = gitgraph(repo, "diff", "HEAD~1", "-f", "json", "-b", str(budget))
            entry: dict[str, Any] = {
                "seconds": run.seconds,
                "returncode": run.returncode,
                "counted_tokens": count(run.stdout),
            }
            try:
                impact = json.loads(run.stdout)
            except ValueError:
                entry["error"] = (run.stderr or run.stdout)[-2000:]
                impact = {}
            entry["tokens_used"] = impact.get("tokens_used")
            entry["tests"] = list(impact.get("tests", []))
            entry["selected"] = selected_count(entry["tests"], truth.collected_ids)
            entry["nodes"] = [
                {
                    "id": n.get("id"),
                    "path": n.get("path"),
                    "kind": n.get("kind"),
                    "changed": bool(n.get("changed")),
                    "tokens": n.get("tokens"),
                    "score": n.get("score"),
                    "why": n.get("why"),
                    "resolution": n.get("resolution") or _resolution(n),
                }
                for n in impact.get("nodes", [])
            ]
            entry["omitted"] = impact.get("omitted")
            plain = changed_files_only(repo, changed, budget, count, truncate, spans)
            bfs = import_bfs(repo, tracked, changed, budget, count)
            entry["changed_files"] = {
                "files": list(plain.files),
                "tokens": plain.tokens,
                "seconds": plain.seconds,
                "body": plain.body_shown,
            }
            entry["import_bfs"] = {
                "files": list(bfs.files),
                "tests": list(bfs.tests),
                "tokens": bfs.tokens,
                "seconds": bfs.seconds,
            }
            record["budgets"][str(budget)] = entry
        return record
    finally:
        git(repo, "reset", "-q", "--hard", "HEAD~1")
        reset(repo)


def _resolution(node: dict[str, Any]) -> str:
    """A node's resolution when the JSON does not say: code shown means body."""
    text = node.get("text") or node.get("code") or ""
    if not text:
        return "line"
    return "hunk" if text.lstrip().startswith("@@") else "body"


# -- scoring -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """Metrics of one system on one fault at one budget (None: not applicable)."""

    file_recall: float
    fn_recall: float
    capped: float | None  # found / min(failing, returned): how good the list it had room for is
    mrr: float
    hit: float
    precision: float | None
    body: float | None  # changed body shown (None when it does not fit the budget)
    tokens: int
    selected: int | None  # tests the returned ids make pytest run (None: no ids)
    overrun: bool
    seconds: float


def _file_of(test: str) -> str:
    return test.partition("::")[0]


def _selectors(test: str) -> set[str]:
    """The ids that make pytest run `test` (normalised): itself, each class it is in, its file."""
    parts = test.split("::")
    return {"::".join(parts[:i]) for i in range(1, len(parts) + 1)}


def _found(returned: Iterable[str], failed: set[str]) -> set[str]:
    """The failing tests that the returned ids make pytest run."""
    ids = set(returned)
    return {t for t in failed if not ids.isdisjoint(_selectors(t))}


def selected_count(ids: Iterable[str], collected: Iterable[str]) -> int:
    """How many collected tests the ids make pytest run (a class or file id runs all of it)."""
    wanted = {normalise_test(t) for t in ids}
    return sum(not wanted.isdisjoint(_selectors(t)) for t in collected)


class RankMetrics(NamedTuple):
    """How a ranked list of test ids covers the failing tests."""

    recall: float
    capped: float  # recall against min(failing, returned): a short list is not penalised
    mrr: float
    hit: float  # 1.0 when at least one failing test is listed


def _rank_metrics(
    returned: list[str], failed: set[str], selected: int | None = None
) -> RankMetrics:
    """`selected`: how many tests the ids run, when some name a class or a file."""
    found = _found(returned, failed)
    recall = len(found) / len(failed) if failed else 0.0
    room = min(len(failed), len(returned) if selected is None else selected)
    mrr = next((1.0 / rank for rank, t in enumerate(returned, 1) if _found([t], failed)), 0.0)
    return RankMetrics(recall, len(found) / room if room else 0.0, mrr, 1.0 if found else 0.0)


def score(record: dict[str, Any], budget: int) -> dict[str, Score]:
    """gitgraph and the baselines on one fault at one budget."""
    entry = record["budgets"][str(budget)]
    failed = set(record["failed"])
    failed_files = set(record["failed_files"])
    relevant_files = failed_files | set(record["changed_files"])
    fault_node = record["node"]
    fits = record["changed_body_tokens"] <= budget * BODY_SHARE

    tests = _dedupe(normalise_test(t) for t in entry["tests"])
    nodes = entry["nodes"]
    seen_files = {n["path"] for n in nodes} | {_file_of(t) for t in tests}
    ranked = _rank_metrics(tests, failed, entry.get("selected"))
    shown = any(
        n["id"] == fault_node and n["changed"] and n["resolution"] in ("body", "hunk")
        for n in nodes
    )
    used = entry["tokens_used"] if entry["tokens_used"] is not None else entry["counted_tokens"]
    scores = {
        "gitgraph": Score(
            file_recall=len(failed_files & seen_files) / len(failed_files),
            fn_recall=ranked.recall,
            capped=ranked.capped,
            mrr=ranked.mrr,
            hit=ranked.hit,
            precision=(
                sum(n["path"] in relevant_files for n in nodes) / len(nodes) if nodes else 0.0
            ),
            body=(1.0 if shown else 0.0) if fits else None,
            tokens=int(used),
            selected=entry.get("selected", len(tests)),
            overrun=bool("error" in entry or used > budget or entry["counted_tokens"] > budget),
            seconds=entry["seconds"],
        )
    }
    plain = entry["changed_files"]
    scores["changed files"] = Score(
        file_recall=len(failed_files & set(plain["files"])) / len(failed_files),
        fn_recall=0.0,
        capped=None,
        mrr=0.0,
        hit=0.0,
        precision=1.0 if plain["files"] else 0.0,
        body=(1.0 if plain["body"].get(fault_node) else 0.0) if fits else None,
        tokens=plain["tokens"],
        selected=None,
        overrun=plain["tokens"] > budget,
        seconds=plain["seconds"],
    )
    bfs = entry["import_bfs"]
    bfs_tests = [normalise_test(t) for t in bfs["tests"]]
    ranked = _rank_metrics(bfs_tests, failed)
    scores["import BFS"] = Score(
        file_recall=len(failed_files & set(bfs["files"])) / len(failed_files),
        fn_recall=ranked.recall,
        capped=ranked.capped,
        mrr=ranked.mrr,
        hit=ranked.hit,
        precision=(
            sum(_file_of(t) in relevant_files for t in bfs_tests) / len(bfs_tests)
            if bfs_tests
            else 0.0
        ),
        body=None,
        tokens=bfs["tokens"],
        selected=len(bfs_tests),
        overrun=bfs["tokens"] > budget,
        seconds=bfs["seconds"],
    )
    return scores


class TestsScore(NamedTuple):
    """`gitgraph diff --tests` on one fault."""

    recall: float
    precision: float | None  # None when it lists nothing
    mrr: float
    hit: float
    listed: int
    selected: int  # tests the ids make pytest run
    runnable: float | None  # share of the listed ids that pytest collects


def tests_cmd_score(record: dict[str, Any]) -> TestsScore:
    """Score the `--tests` list of one fault."""
    returned = _dedupe(normalise_test(t) for t in record["tests_cmd"]["tests"])
    failed = set(record["failed"])
    selected = record["tests_cmd"].get("selected", len(returned))
    ranked = _rank_metrics(returned, failed, selected)
    precision = len(_found(returned, failed)) / selected if selected else None
    stray = {normalise_test(t) for t in record["tests_cmd"]["not_collected"]}
    runnable = sum(t not in stray for t in returned) / len(returned) if returned else None
    return TestsScore(
        ranked.recall, precision, ranked.mrr, ranked.hit, len(returned), selected, runnable
    )


# -- tables --------------------------------------------------------------------------------------


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def _median(values: Iterable[int | None]) -> str:
    present = [v for v in values if v is not None]
    return f"{statistics.median(present):.0f}" if present else "–"


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


SUMMARY_HEADER = (
    "system",
    "test-file recall",
    "test-fn recall",
    "test-fn recall (capped)",
    "MRR",
    "≥1 failing test",
    "precision",
    "changed bodies",
    "tests run (median)",
    "tokens (median)",
    "overruns",
    "latency median s",
)


def summary_row(name: str, scores: list[Score]) -> list[str]:
    """One row of the per-budget table."""
    if not scores:
        return [name, *("–" for _ in SUMMARY_HEADER[1:])]
    return [
        name,
        _fmt(_mean(s.file_recall for s in scores)),
        _fmt(_mean(s.fn_recall for s in scores)),
        _fmt(_mean(s.capped for s in scores)),
        _fmt(_mean(s.mrr for s in scores)),
        _pct(_mean(s.hit for s in scores)),
        _fmt(_mean(s.precision for s in scores)),
        _pct(_mean(s.body for s in scores)),
        _median(s.selected for s in scores),
        f"{statistics.median(s.tokens for s in scores):.0f}",
        str(sum(s.overrun for s in scores)),
        f"{statistics.median(s.seconds for s in scores):.3f}",
    ]


def report(
    truths: list[Truth],
    records: list[dict[str, Any]],
    budgets: Sequence[int],
    out: Callable[[str], None] = print,
) -> None:
    """Print every table."""
    scores = {b: [score(r, b) for r in records] for b in budgets}
    out("## Ground truth\n")
    out(truth_table(truths))
    for budget in budgets:
        out(f"\n## Budget {budget} tokens ({len(records)} faults)\n")
        rows = [summary_row(name, [s[name] for s in scores[budget]]) for name in SYSTEMS]
        out(_table(SUMMARY_HEADER, rows))
    keys = [t.package.key for t in truths]
    out("\n## gitgraph per package\n")
    out(package_table(keys, records, budgets))
    out("\n## Where gitgraph's test-fn recall is lost\n")
    out(losses_table(keys, records, budgets))
    out("\n## gitgraph diff --tests (every impacted test, no budget)\n")
    out(tests_table(keys, records))
    out("\n## Tokens against the naive context (git diff + full text of touched files)\n")
    out(naive_table(keys, records, budgets))
    if TARGET_BUDGET in budgets and records:
        out(f"\n## Targets at {TARGET_BUDGET} tokens (gitgraph)\n")
        out(targets_table([s["gitgraph"] for s in scores[TARGET_BUDGET]]))
        out(f"\n## Worst misses at {TARGET_BUDGET} tokens (gitgraph)\n")
        out(misses_table(truths, records))
    errors = [(r, b) for r in records for b in budgets if "error" in r["budgets"][str(b)]]
    if errors:
        record, budget = errors[0]
        message = record["budgets"][str(budget)]["error"][:300]
        out(
            f"\n{len(errors)} gitgraph runs printed no JSON, e.g. {record['fault']} at "
            f"-b {budget}: {message}"
        )


def truth_table(truths: list[Truth]) -> str:
    """What each package's ground truth holds."""
    rows = []
    for truth in truths:
        sizes = [len(f.failed) for f in truth.faults]
        inherited = sum(len(inherited_tests(truth.repo, f.failed)) for f in truth.faults)
        dropped = ", ".join(
            f"{n} {what}" for what, n in sorted(truth.outcomes.items()) if what != "kept"
        )
        rows.append(
            [
                truth.package.key,
                str(truth.collected),
                str(len(truth.baseline_failed)),
                str(len(truth.candidates)),
                str(sum(truth.outcomes.values())),
                str(len(truth.faults)),
                dropped or "–",
                f"{statistics.median(sizes):.0f}" if sizes else "–",
                f"{max(sizes)}" if sizes else "–",
                _pct(inherited / sum(sizes) if sizes else None),
                f"{truth.baseline_seconds:.1f}",
                truth.package.note or "",
            ]
        )
    header = (
        "package",
        "tests",
        "pre-existing failures (excluded)",
        "exercised sites",
        "faults tried",
        "kept",
        "dropped",
        "failing tests/fault (median)",
        "max",
        "inherited test ids",
        "suite s",
        "note",
    )
    return _table(header, rows)


def package_table(keys: list[str], records: list[dict[str, Any]], budgets: Sequence[int]) -> str:
    """gitgraph's row of the summary, per package and budget."""
    rows = []
    for budget in budgets:
        for key in keys:
            mine = [score(r, budget)["gitgraph"] for r in records if r["package"] == key]
            rows.append([str(budget), *summary_row(key, mine)])
    return _table(("budget", "package", *SUMMARY_HEADER[1:]), rows)


def tests_table(keys: list[str], records: list[dict[str, Any]]) -> str:
    """`gitgraph diff --tests` per package."""
    rows = []
    for key in [*keys, "all"]:
        mine = [r for r in records if key in ("all", r["package"])]
        if not mine:
            continue
        parts = [tests_cmd_score(r) for r in mine]
        rows.append(
            [
                key,
                str(len(mine)),
                _fmt(_mean(p.recall for p in parts)),
                _fmt(_mean(p.precision for p in parts)),
                _fmt(_mean(p.mrr for p in parts)),
                _pct(_mean(p.hit for p in parts)),
                f"{statistics.median(p.listed for p in parts):.0f}",
                f"{statistics.median(p.selected for p in parts):.0f}",
                _pct(_mean(p.runnable for p in parts)),
                f"{statistics.median(r['tests_cmd']['seconds'] for r in mine):.3f}",
            ]
        )
    header = (
        "package",
        "faults",
        "recall",
        "precision",
        "MRR",
        "≥1 failing test",
        "ids (median)",
        "tests run (median)",
        "ids in the collected suite",
        "latency median s",
    )
    return _table(header, rows)


def recall_losses(record: dict[str, Any], budget: int) -> tuple[float, float, float, float]:
    """gitgraph's test-fn recall on one fault and where the rest is lost, summing to 1:
    (found, list length, ranking, graph). Length: even a perfect list of as many ids as the
    budget held cannot name every failing test. Graph: failing tests the `--tests` list (every
    impacted test) never names. Ranking: named there, but below the budget's cut."""
    failed = set(record["failed"])
    entry = record["budgets"][str(budget)]
    returned = _dedupe(normalise_test(t) for t in entry["tests"])
    reached = _found((normalise_test(t) for t in record["tests_cmd"]["tests"]), failed)
    room = min(len(failed), entry.get("selected", len(returned)))
    found = len(_found(returned, failed))
    in_room = max(min(len(reached), room), found)  # a budget list may name a test --tests missed
    total = len(failed)
    return found / total, 1 - room / total, (in_room - found) / total, (room - in_room) / total


def losses_table(keys: list[str], records: list[dict[str, Any]], budgets: Sequence[int]) -> str:
    """Where gitgraph's test-fn recall is lost, per package and budget (means over faults)."""
    rows = []
    for budget in budgets:
        for key in [*keys, "all"]:
            parts = [recall_losses(r, budget) for r in records if key in ("all", r["package"])]
            if parts:
                means = (_fmt(_mean(p[i] for p in parts)) for i in range(4))
                rows.append([str(budget), key, *means])
    header = (
        "budget",
        "package",
        "test-fn recall",
        "lost: list length",
        "lost: ranked below the cut",
        "lost: not reached",
    )
    return _table(header, rows)


def naive_table(keys: list[str], records: list[dict[str, Any]], budgets: Sequence[int]) -> str:
    """gitgraph's tokens next to the diff plus the full touched files."""
    rows = []
    for key in [*keys, "all"]:
        mine = [r for r in records if key in ("all", r["package"])]
        if not mine:
            continue
        naive = statistics.median(r["naive_tokens"] for r in mine)
        row = [key, f"{naive:.0f}"]
        for budget in budgets:
            used = statistics.median(score(r, budget)["gitgraph"].tokens for r in mine)
            row.append(f"{used:.0f} ({used / naive:.2f}×)")
        rows.append(row)
    header = (
        "package",
        "naive tokens (median)",
        *(f"gitgraph -b {b} (median, × naive)" for b in budgets),
    )
    return _table(header, rows)


def targets_table(scores: list[Score]) -> str:
    """The targets at TARGET_BUDGET, each with ✓ or ✗."""
    got = {
        "fn_recall": _mean(s.fn_recall for s in scores),
        "mrr": _mean(s.mrr for s in scores),
        "precision": _mean(s.precision for s in scores),
        "bodies": _mean(s.body for s in scores),
        "overruns": float(sum(s.overrun for s in scores)),
    }
    labels = {
        "fn_recall": "test-function recall ≥ 0.90",
        "mrr": "MRR ≥ 0.80",
        "precision": "precision ≥ 0.60",
        "bodies": "changed bodies 100% (when they fit)",
        "overruns": "no overrun",
    }
    rows = []
    for key, label in labels.items():
        value = got[key]
        good = value is not None and (
            value <= TARGETS[key] if key == "overruns" else value >= TARGETS[key] - 1e-9
        )
        shown = f"{value:.0f}" if key == "overruns" else _fmt(value)
        rows.append([label, shown, "✓" if good else "✗"])
    return _table(("target", "measured", ""), rows)


def misses_table(truths: list[Truth], records: list[dict[str, Any]], limit: int = 15) -> str:
    """The faults whose failing tests gitgraph found least at TARGET_BUDGET."""
    repos = {t.package.key: t.repo for t in truths}

    def mine(record: dict[str, Any]) -> Score:
        return score(record, TARGET_BUDGET)["gitgraph"]

    ranked = sorted(records, key=lambda r: (mine(r).fn_recall, mine(r).mrr, r["fault"]))
    rows = []
    for record in ranked[:limit]:
        found = mine(record)
        inherited = len(inherited_tests(repos[record["package"]], record["failed"]))
        entry = record["budgets"][str(TARGET_BUDGET)]
        returned = _dedupe(normalise_test(t) for t in entry["tests"])
        rows.append(
            [
                record["fault"],
                f"{len(record['failed'])} ({inherited})",
                ", ".join(record["failed_files"][:3]),
                str(len(returned)),
                _fmt(found.fn_recall),
                _fmt(found.mrr),
                _fmt(tests_cmd_score(record).recall),
                returned[0] if returned else "–",
            ]
        )
    header = (
        "fault",
        "failing (inherited)",
        "failing files",
        "tests returned",
        "fn recall",
        "MRR",
        "--tests recall",
        "top returned test",
    )
    return _table(header, rows)


# -- main ----------------------------------------------------------------------------------------


def _truth_job(name: str, faults: int) -> Truth:
    return ground_truth(PACKAGES[name], faults, log=lambda m: print(m, file=sys.stderr, flush=True))


def main(argv: Sequence[str] | None = None) -> int:
    """Build the ground truth, score every kept fault, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--packages",
        default=",".join(PACKAGES),
        help=f"comma-separated, from {', '.join(PACKAGES)}",
    )
    parser.add_argument("--faults", type=int, default=10, help="faults kept per package")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--jobs", type=int, default=2, help="packages whose tests run at once")
    parser.add_argument("--json", dest="json_out", help="write raw per-fault results here")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.packages.split(",") if n.strip()]
    unknown = [n for n in names if n not in PACKAGES]
    if unknown:
        parser.error(f"unknown package(s): {', '.join(unknown)}")
    budgets = [int(b) for b in args.budgets.split(",")]
    started = time.perf_counter()

    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        truths = list(pool.map(_truth_job, names, [args.faults] * len(names)))
    truth_seconds = time.perf_counter() - started

    records: list[dict[str, Any]] = []
    for truth in truths:
        reset(truth.repo)
        indexed = gitgraph(truth.repo, "index")  # warms the blob cache; untimed
        if indexed.returncode != 0:
            print(
                f"{truth.package.key}: gitgraph index failed: {indexed.stderr[-500:]}",
                file=sys.stderr,
            )
        tracked = [p for p in git(truth.repo, "ls-files", "-z").split("\0") if p]
        for fault in truth.faults:
            records.append(evaluate_fault(truth, fault, budgets, tracked))
            print(f"{truth.package.key}: scored {fault.site.key}", file=sys.stderr, flush=True)

    report(truths, records, budgets)
    total = time.perf_counter() - started
    print(
        f"\nRuntime: {total:.0f} s ({truth_seconds:.0f} s building or loading the ground "
        f"truth, {total - truth_seconds:.0f} s scoring {len(records)} faults)."
    )
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps({"budgets": budgets, "records": records}, indent=1, sort_keys=True) + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
