"""Fault injection and its ground truth for the impact-quality benchmark.

For each pinned package: a work clone of its sdist repo, a venv with the package installed
editable plus its test dependencies, a baseline test run (pre-existing failures are
excluded from every later run), one coverage run (to know which library functions the tests
exercise), then faults: one function body replaced by `raise RuntimeError("gitgraph-fault")`,
the whole suite run, and the failing test ids recorded. Everything slow is cached in
`bench/.cache/impact_truth/NAME-VERSION.json`, keyed by fault, so a second run runs no tests.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common import BASE_TAG, CACHE_DIR, bench_env, clone_repo, git, sdist_repo

WORK_DIR = CACHE_DIR / "impact" / "work"
VENV_DIR = CACHE_DIR / "impact" / "venvs"
PLUGIN_DIR = CACHE_DIR / "impact" / "plugin"
TRUTH_DIR = CACHE_DIR / "impact_truth"

FAULT_LINE = 'raise RuntimeError("gitgraph-fault")'
SEED = 20240601
TRUTH_FORMAT = 2  # bump when the meaning of a cached truth record changes
BREAKS_IMPORT = 0.5  # a fault that leaves fewer than this share of tests collected

# Test dependencies, pinned so the ground truth is the same on every machine.
PYTEST = "pytest==9.2.0"
COVERAGE = "coverage==7.17.5"


@dataclass(frozen=True)
class Package:
    """A pinned sdist, where its library code lives and how its tests run."""

    name: str
    version: str
    library: tuple[str, ...]  # folders of library code: fault sites come from here
    tests: tuple[str, ...]  # what pytest is given
    deps: tuple[str, ...] = ()  # extra requirements of the test suite (pinned)
    pytest_args: tuple[str, ...] = ()  # replaces the project's addopts (doctests stay off)
    note: str = ""

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"


PACKAGES: dict[str, Package] = {
    p.name: p
    for p in (
        Package("more-itertools", "11.2.1", ("more_itertools",), ("tests",)),
        Package("tomlkit", "0.15.2", ("tomlkit",), ("tests",)),
        Package(
            "humanize",
            "4.17.0",
            ("src/humanize",),
            ("tests",),
            ("freezegun==1.5.5",),
            note="tests/test_benchmarks.py needs pytest-codspeed (not installed)",
        ),
        Package("cachetools", "8.0.2", ("src/cachetools",), ("tests",)),
        Package(
            "inflect",
            "7.6.0",
            ("inflect",),
            ("tests",),
            ("typeguard==4.6.1", "jaraco.functools==4.6.0", "more-itertools==11.2.1"),
            ("--import-mode=importlib",),
        ),
        Package(
            "pyparsing",
            "3.3.3",
            ("pyparsing",),
            ("tests", "examples/tiny/tests"),
            ("railroad-diagrams==3.0.1", "jinja2==3.1.6"),
            note="matplotlib-based tests are not run (matplotlib not installed)",
        ),
    )
}

# Records the id of every failed test phase (and failed collection) to $GITGRAPH_BENCH_FAILED.
_PLUGIN = """\
import json, os

_out = open(os.environ["GITGRAPH_BENCH_FAILED"], "a", encoding="utf-8")

def pytest_runtest_logreport(report):
    if report.failed:
        _out.write(json.dumps(report.nodeid) + "\\n")
        _out.flush()

def pytest_collectreport(report):
    if report.failed:
        _out.write(json.dumps(report.nodeid) + "\\n")
        _out.flush()

def pytest_collection_finish(session):
    if os.environ.get("GITGRAPH_BENCH_COLLECTED"):
        with open(os.environ["GITGRAPH_BENCH_COLLECTED"], "w", encoding="utf-8") as out:
            json.dump([item.nodeid for item in session.items], out)

def pytest_terminal_summary(terminalreporter):
    _out.write(json.dumps("<collected:%d>" % terminalreporter._numcollected) + "\\n")
    _out.flush()
"""
_PLUGIN_NAME = "gitgraph_bench_failed"


@dataclass(frozen=True)
class Site:
    """A library function or method: where its body lines are."""

    path: str  # repo-relative POSIX path
    qualname: str  # Class.method or function
    def_line: int  # first line of the def (decorators excluded)
    end_line: int
    body_start: int  # first line replaced (after the docstring)
    indent: str
    shared: bool = False  # another def in the file has the same qualname (overload, setter)

    @property
    def node(self) -> str:
        """The gitgraph node id of the function."""
        return f"{self.path}::{self.qualname}"

    @property
    def key(self) -> str:
        """Unique within the package: the node id, plus the line when the name is shared."""
        return f"{self.node}@{self.def_line}" if self.shared else self.node


@dataclass(frozen=True)
class Fault:
    """A kept fault and the tests it breaks (ids normalised, no parametrisation)."""

    site: Site
    failed: tuple[str, ...]

    @property
    def failed_files(self) -> frozenset[str]:
        return frozenset(test.partition("::")[0] for test in self.failed)


def normalise_test(test_id: str) -> str:
    """`path::Class::func` without parametrisation brackets or a leading `./`."""
    test_id = test_id.strip()
    if test_id.startswith("./"):
        test_id = test_id[2:]
    return re.sub(r"\[.*\]$", "", test_id)


# -- setup ---------------------------------------------------------------------------------------


def work_repo(package: Package) -> Path:
    """The package's work clone, checked out clean at the base commit."""
    repo = WORK_DIR / package.key
    if not (repo / ".git").is_dir():
        base = sdist_repo(package.name, package.version)
        shutil.rmtree(repo, ignore_errors=True)
        repo.parent.mkdir(parents=True, exist_ok=True)
        clone_repo(base, repo)
    reset(repo)
    return repo


def reset(repo: Path) -> None:
    """Back to the base commit with no tracked change (a crashed run may have left a fault)."""
    git(repo, "checkout", "-q", "-f", "-B", "main", BASE_TAG)
    git(repo, "reset", "-q", "--hard", BASE_TAG)


def venv_python(package: Package, repo: Path) -> Path:
    """The package's venv (created once): the package editable plus pytest and its test deps."""
    venv = VENV_DIR / package.key
    python = venv / "bin" / "python"
    requirements = [PYTEST, COVERAGE, *package.deps]
    stamp = venv / "gitgraph-bench.json"
    wanted = {"repo": str(repo), "requirements": requirements}
    if python.exists() and stamp.exists() and json.loads(stamp.read_text()) == wanted:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-e",
            str(repo),
            *requirements,
        ],
        check=True,
        cwd=repo,
    )
    reset(repo)  # a build may rewrite tracked files (inflect ships its egg-info)
    stamp.write_text(json.dumps(wanted))
    return python


def _plugin_path() -> Path:
    PLUGIN_DIR.mkdir(parents=True, exist_ok=True)
    plugin = PLUGIN_DIR / f"{_PLUGIN_NAME}.py"
    if not plugin.exists() or plugin.read_text() != _PLUGIN:
        plugin.write_text(_PLUGIN)
    return PLUGIN_DIR


@dataclass(frozen=True)
class SuiteRun:
    """One full run of a package's tests: the failed ids, what was collected, the time."""

    failed: list[str]
    collected: int
    seconds: float
    timed_out: bool
    collected_ids: list[str]


def _config_args(repo: Path) -> list[str]:
    """Pin pytest's rootdir to the repo; without a config of its own, give it an empty one.

    Otherwise pytest keeps looking upwards and adopts the gitgraph checkout (whose
    pyproject.toml configures pytest) as rootdir: node ids would start with bench/.cache/...
    """
    own = (
        (repo / "pytest.ini").is_file()
        or (repo / ".pytest.ini").is_file()
        or _mentions(repo / "pyproject.toml", "[tool.pytest")
        or _mentions(repo / "tox.ini", "[pytest]")
        or _mentions(repo / "setup.cfg", "[tool:pytest]")
    )
    if own:
        return [f"--rootdir={repo}"]
    empty = _plugin_path() / "pytest.ini"
    if not empty.exists():
        empty.write_text("[pytest]\n")
    return [f"--rootdir={repo}", "-c", str(empty)]


def _mentions(path: Path, text: str) -> bool:
    try:
        return text in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def run_suite(
    package: Package, repo: Path, python: Path, timeout: float, coverage_json: Path | None = None
) -> SuiteRun:
    """Run the whole suite (no -x), optionally under coverage; collect failing node ids."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as out:
        failed_file = Path(out.name)
    collected_file = failed_file.with_suffix(".collected.json")
    env = {
        **bench_env(),
        "GITGRAPH_BENCH_FAILED": str(failed_file),
        "GITGRAPH_BENCH_COLLECTED": str(collected_file),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": str(_plugin_path()),
    }
    pytest = [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        _PLUGIN_NAME,
        "--tb=no",
        "-o",
        "addopts=",
        "--continue-on-collection-errors",
        "-W",
        "ignore::pytest.PytestUnraisableExceptionWarning",
        *_config_args(repo),
        *package.pytest_args,
        *package.tests,
    ]
    data_file = failed_file.with_suffix(".coverage")
    if coverage_json is not None:
        sources = ",".join(package.library)
        cmd = [
            str(python),
            "-m",
            "coverage",
            "run",
            f"--data-file={data_file}",
            f"--source={sources}",
            *pytest,
        ]
    else:
        cmd = [str(python), *pytest]
    start = time.perf_counter()
    timed_out = False
    try:
        subprocess.run(
            cmd,
            cwd=repo,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        timed_out = True
    seconds = time.perf_counter() - start
    failed: list[str] = []
    collected = 0
    for line in failed_file.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item.startswith("<collected:"):
            collected = int(item[len("<collected:") : -1])
        elif item not in failed:
            failed.append(item)
    failed_file.unlink()
    collected_ids: list[str] = []
    if collected_file.exists():
        collected_ids = json.loads(collected_file.read_text(encoding="utf-8"))
        collected_file.unlink()
    if coverage_json is not None and not timed_out:
        subprocess.run(
            [
                str(python),
                "-m",
                "coverage",
                "json",
                f"--data-file={data_file}",
                "-o",
                str(coverage_json),
                "-q",
            ],
            cwd=repo,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        data_file.unlink(missing_ok=True)
    return SuiteRun(failed, collected, seconds, timed_out, collected_ids)


# -- fault sites ---------------------------------------------------------------------------------


def library_files(package: Package, repo: Path) -> list[str]:
    """Tracked .py files of the library (tests excluded), sorted."""
    listed = git(repo, "ls-files", "-z", "--", *package.library).split("\0")
    return sorted(
        p
        for p in listed
        if p.endswith(".py")
        and not re.search(r"(^|/)(tests?|testing)(/|\.py$)|(^|/)test_[^/]*\.py$", p)
    )


def sites_in(path: str, source: str) -> list[Site]:
    """Functions and methods (not nested in functions) whose body can be replaced."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[Site] = []
    defined: dict[str, int] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{prefix}{node.name}"
                defined[qualname] = defined.get(qualname, 0) + 1
                site = _site(path, qualname, node, lines)
                if site is not None:
                    found.append(site)

    visit(tree.body, "")
    return [replace(s, shared=defined[s.qualname] > 1) for s in found]


def _site(
    path: str, qualname: str, node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> Site | None:
    names = {_decorator_name(d) for d in node.decorator_list}
    if names & {"overload", "abstractmethod", "abc.abstractmethod", "typing.overload"}:
        return None
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if not body or all(
        isinstance(s, ast.Pass)
        or (
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Constant)
            and s.value.value is Ellipsis
        )
        for s in body
    ):
        return None  # a stub: nothing to break
    first = body[0]
    # A decorated statement starts at its first decorator, not at its `def`/`class` line.
    decorators = getattr(first, "decorator_list", [])
    start = min([first.lineno, *(d.lineno for d in decorators)])
    if first.lineno == node.lineno or (
        node.body[0] is not first and (node.body[0].end_lineno or 0) >= start
    ):
        return None  # body shares a line with the def or the docstring
    line = lines[first.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    if len(indent) != first.col_offset or not lines[start - 1].startswith(indent):
        return None
    end = node.end_lineno or node.lineno
    return Site(path, qualname, node.lineno, end, start, indent)


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_decorator_name(node.value)}.{node.attr}"
    return ""


def inject(source: str, site: Site) -> str:
    """`source` with `site`'s body (docstring kept) replaced by the fault line."""
    lines = source.splitlines(keepends=True)
    replaced = [
        *lines[: site.body_start - 1],
        f"{site.indent}{FAULT_LINE}\n",
        *lines[site.end_line :],
    ]
    result = "".join(replaced)
    ast.parse(result)  # the fault must still compile
    return result


def exercised(site: Site, executed: set[int]) -> bool:
    """Whether the tests ran any line of the site's body."""
    return any(line in executed for line in range(site.body_start, site.end_line + 1))


# -- ground truth --------------------------------------------------------------------------------


@dataclass
class Truth:
    """The cached ground truth of one package."""

    package: Package
    repo: Path
    baseline_failed: list[str]
    baseline_seconds: float
    collected: int
    candidates: list[Site]  # exercised sites, in the seeded order faults are tried
    faults: list[Fault]
    tried: dict[str, dict[str, Any]]  # site key → record (status, failed, seconds)
    outcomes: dict[str, int]  # of the faults tried in order: kept, breaks import, ...
    collected_ids: frozenset[str]  # every test the unmodified suite collects (normalised)


def _truth_path(package: Package) -> Path:
    return TRUTH_DIR / f"{package.key}.json"


def _load_cache(package: Package) -> dict[str, Any]:
    path = _truth_path(package)
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if cached.get("format") != TRUTH_FORMAT or cached.get("seed") != SEED:
        return {}
    return dict(cached)


def _save_cache(package: Package, cache: dict[str, Any]) -> None:
    TRUTH_DIR.mkdir(parents=True, exist_ok=True)
    path = _truth_path(package)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def ground_truth(package: Package, faults: int, log: Any = print) -> Truth:
    """Kept faults for `package` (up to `faults`), running tests only for uncached ones."""
    repo = work_repo(package)
    cache = _load_cache(package)
    cache.update(format=TRUTH_FORMAT, seed=SEED, package=package.key)
    python: Path | None = None
    if "baseline" not in cache:
        python = venv_python(package, repo)
        base = run_suite(package, repo, python, timeout=1800)
        if base.timed_out:
            raise RuntimeError(f"{package.key}: the unmodified test suite timed out")
        log(
            f"{package.key}: baseline {base.collected} tests, {len(base.failed)} failing "
            f"(excluded), {base.seconds:.1f} s"
        )
        cache["baseline"] = {
            "failed": base.failed,
            "seconds": base.seconds,
            "collected": base.collected,
            "ids": sorted({normalise_test(t) for t in base.collected_ids}),
        }
        _save_cache(package, cache)
    if "exercised" not in cache:
        python = python or venv_python(package, repo)
        report = CACHE_DIR / "impact" / f"{package.key}.coverage.json"
        run_suite(package, repo, python, timeout=3600, coverage_json=report)
        measured = json.loads(report.read_text())["files"]
        executed: dict[str, list[int]] = {}
        for name, record in measured.items():
            path = Path(name)
            rel = path.resolve().relative_to(repo.resolve()) if path.is_absolute() else path
            executed[rel.as_posix()] = sorted(record["executed_lines"])
        cache["exercised"] = executed
        _save_cache(package, cache)
    baseline = cache["baseline"]
    executed_lines = {p: set(lines) for p, lines in cache["exercised"].items()}
    sources = {p: (repo / p).read_text(encoding="utf-8") for p in library_files(package, repo)}
    candidates = [
        s
        for p, src in sources.items()
        for s in sites_in(p, src)
        if exercised(s, executed_lines.get(p, set()))
    ]
    candidates.sort(key=lambda s: (s.path, s.def_line))
    random.Random(f"{SEED}:{package.key}").shuffle(candidates)
    tried: dict[str, dict[str, Any]] = cache.setdefault("faults", {})
    pre_existing = {normalise_test(t) for t in baseline["failed"]}
    timeout = max(120.0, 10 * baseline["seconds"])
    kept: list[Fault] = []
    outcomes: dict[str, int] = {}
    for site in candidates:
        if len(kept) >= faults:
            break
        record = tried.get(site.key)
        if record is None:
            python = python or venv_python(package, repo)
            record = _try_fault(package, repo, python, site, sources[site.path], timeout)
            tried[site.key] = record
            _save_cache(package, cache)
            log(
                f"{package.key}: {site.key}: {record['status']}, "
                f"{len(record['failed'])} failing, {record['seconds']:.1f} s"
            )
        outcome, failed = fault_failures(record, baseline, pre_existing)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome == "kept":
            kept.append(Fault(site, tuple(failed)))
    reset(repo)
    return Truth(
        package,
        repo,
        baseline["failed"],
        baseline["seconds"],
        baseline["collected"],
        candidates,
        kept,
        tried,
        outcomes,
        frozenset(baseline["ids"]),
    )


def fault_failures(
    record: dict[str, Any], baseline: dict[str, Any], pre_existing: set[str]
) -> tuple[str, list[str]]:
    """Whether a fault is kept, and the tests it breaks (pre-existing failures excluded).

    A test file that no longer collects counts as all of its (baseline) tests failing; a fault
    that stops most of the suite from collecting breaks the package's import, which says
    nothing about impact (every test fails), so it is dropped.
    """
    if record["status"] != "ok":
        return record["status"], []
    if record["collected"] < BREAKS_IMPORT * baseline["collected"]:
        return "breaks import", []
    failed: set[str] = set()
    for test in (normalise_test(t) for t in record["failed"]):
        if "::" in test:
            failed.add(test)
        else:
            failed.update(t for t in baseline["ids"] if t.startswith((test + "::", test + "/")))
    failed -= pre_existing
    return ("kept" if failed else "no failing test"), sorted(failed)


def _try_fault(
    package: Package, repo: Path, python: Path, site: Site, source: str, timeout: float
) -> dict[str, Any]:
    target = repo / site.path
    target.write_text(inject(source, site), encoding="utf-8")
    try:
        run = run_suite(package, repo, python, timeout=timeout)
    finally:
        target.write_text(source, encoding="utf-8")
    status = "timeout" if run.timed_out else "ok"
    return {
        "status": status,
        "failed": run.failed,
        "seconds": round(run.seconds, 2),
        "collected": run.collected,
    }


def inherited_tests(repo: Path, tests: Iterable[str]) -> set[str]:
    """The test ids whose method the named class inherits (a mixin's, a base test class's).

    pytest runs `Base.test_x` again as `Sub::test_x` for each subclass; a tool that only knows
    where functions are defined can never name those ids.
    """
    defined: dict[str, set[str] | None] = {}
    found: set[str] = set()
    for test in tests:
        path, _, rest = test.partition("::")
        if path not in defined:
            defined[path] = _defined_tests(repo / path)
        names = defined[path]
        if names is not None and "::" in rest and rest not in names:
            found.add(test)
    return found


def _defined_tests(path: Path) -> set[str] | None:
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.update(
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return names
