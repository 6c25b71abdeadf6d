"""Shared pieces of the benchmarks: pinned sdists turned into git repos, and timed processes."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

BENCH_DIR = Path(__file__).resolve().parent
CACHE_DIR = BENCH_DIR / ".cache"
SDIST_DIR = CACHE_DIR / "sdists"
REPOS_DIR = CACHE_DIR / "repos"

# The tag every benchmark resets to; the repo's only commit.
BASE_TAG = "bench-base"

# Pinned so a re-published or tampered file is noticed; other sdists are fetched unverified.
SDIST_SHA256 = {
    ("django", "5.1.4"): "de450c09e91879fa5a307f696e57c851955c910a438a35e6b4c895e86bedc82a",
    ("flask", "3.1.0"): "5f873c5184c897c8d9d1b05df1e3d01b14910ce69607a117bd3277098a5836ac",
}

# Fixed identity and dates make every commit id reproducible; the user's git config
# (signing, hooks, autocrlf) must not leak into the benchmark, and no background
# `gc --auto` may run while a repo is built or timed.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "gitgraph bench",
    "GIT_AUTHOR_EMAIL": "bench@gitgraph.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_COMMITTER_NAME": "gitgraph bench",
    "GIT_COMMITTER_EMAIL": "bench@gitgraph.invalid",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_COUNT": "2",
    "GIT_CONFIG_KEY_0": "gc.auto",
    "GIT_CONFIG_VALUE_0": "0",
    "GIT_CONFIG_KEY_1": "maintenance.auto",
    "GIT_CONFIG_VALUE_1": "false",
}


class Timing(NamedTuple):
    """Wall time, peak resident memory, exit code and CPU time of one finished process."""

    seconds: float
    maxrss_kib: int
    returncode: int
    # user + system time of the process and the children it waited for: unlike wall time,
    # barely moved by other work on a shared machine.
    cpu_seconds: float


def bench_env() -> dict[str, str]:
    """The process environment with the fixed git identity applied.

    PYTHONDONTWRITEBYTECODE is dropped: an installed gitgraph runs from cached bytecode, so a
    timed run that recompiles every module would measure the wrong thing.
    """
    env = {**os.environ, **GIT_ENV}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` under the fixed identity; return its stdout."""
    result = subprocess.run(
        ["git", *args], cwd=repo, env=bench_env(), check=True, capture_output=True, text=True
    )
    return result.stdout


# Starts, waits for and reports on the measured command. A forked child inherits its
# parent's RSS high-water mark (Linux copies it on fork and keeps it across exec), so a
# benchmark that has loaded a 30 MB graph.json would pass that peak on to every command it
# runs; this small fresh interpreter passes on only its own ~10 MB.
_LAUNCHER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
seconds = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
print(json.dumps([seconds, usage.ru_maxrss, code, usage.ru_utime + usage.ru_stime]))
"""


def timed(cmd: list[str], cwd: Path) -> Timing:
    """Run `cmd` to completion in `cwd`; stdout is discarded, stderr is echoed on failure.

    `maxrss_kib` is the peak RSS of the command or of any child it waited for (Linux reports
    KiB); it comes from `wait4` in a small launcher process, so this process's size does not
    leak into it. `seconds` is wall time from the command's start to its exit.
    """
    with tempfile.TemporaryFile() as stderr:
        launched = subprocess.run(
            [sys.executable, "-S", "-c", _LAUNCHER, *cmd],
            cwd=cwd,
            env=bench_env(),
            stdout=subprocess.PIPE,
            stderr=stderr,
            check=True,
        )
        seconds, maxrss_kib, returncode, cpu_seconds = json.loads(launched.stdout)
        if returncode != 0:
            stderr.seek(0)
            message = stderr.read().decode(errors="replace").strip()
            print(f"$ {' '.join(cmd)}  (in {cwd}) exited {returncode}", file=sys.stderr)
            print(message[-4000:], file=sys.stderr)
    return Timing(seconds, maxrss_kib, returncode, cpu_seconds)


def fetch_sdist(name: str, version: str) -> Path:
    """Download the sdist of `name==version` from PyPI once; return its cached path."""
    target = SDIST_DIR / f"{name}-{version}"
    found = sorted(target.glob("*.tar.gz")) if target.is_dir() else []
    if not found:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", f"{name}=={version}", "-d", str(target)],
            check=True,
        )  # fmt: skip
        found = sorted(target.glob("*.tar.gz"))
        if len(found) != 1:
            raise RuntimeError(f"expected one .tar.gz for {name}=={version} in {target}")
    sdist = found[0]
    expected = SDIST_SHA256.get((name.lower(), version))
    actual = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if expected is not None and actual != expected:
        raise RuntimeError(f"{sdist} has sha256 {actual}, expected {expected} (delete it)")
    return sdist


def sdist_repo(name: str, version: str) -> Path:
    """A git repo holding the unpacked sdist of `name==version` as one commit tagged BASE_TAG.

    Built once under bench/.cache/repos/NAME-VERSION and rebuilt when missing or broken; the
    commit id is the same on every machine. Benchmarks should work on a `clone_repo` copy.
    """
    repo = REPOS_DIR / f"{name.lower()}-{version}"
    if _is_base_repo(repo):
        return repo
    sdist = fetch_sdist(name, version)
    REPOS_DIR.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f"{repo.name}.", dir=REPOS_DIR))
    try:
        with tarfile.open(sdist) as archive:
            if hasattr(tarfile, "data_filter"):
                archive.extractall(building, filter="data")
            else:  # Python < 3.10.12 has no extraction filters; PyPI sdists are trusted here.
                archive.extractall(building)
        (top,) = building.iterdir()  # an sdist unpacks to one NAME-VERSION/ directory
        git(top, "init", "-q", "-b", "main")
        git(top, "add", "-A")
        git(top, "commit", "-q", "-m", f"{name} {version} sdist")
        git(top, "tag", BASE_TAG)
        git(top, "repack", "-a", "-d", "-q")  # packed, like a real clone
        shutil.rmtree(repo, ignore_errors=True)
        top.rename(repo)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return repo


def clone_repo(repo: Path, destination: Path) -> Path:
    """Clone `repo` (hard-linked objects) into `destination`, checked out at BASE_TAG."""
    git(destination.parent, "clone", "-q", "--local", str(repo), str(destination))
    git(destination, "checkout", "-q", "-B", "main", BASE_TAG)
    # A checkout writes its files and the index within one timestamp tick: git keeps such
    # entries "racily clean" and hashes every one of them again in each diff until the
    # index is refreshed (which `git status` does): as in any repository someone works in.
    time.sleep(0.05)
    git(destination, "update-index", "-q", "--refresh")
    return destination


def _is_base_repo(repo: Path) -> bool:
    """Whether `repo` is a complete repo built by `sdist_repo` (a crash leaves no tag)."""
    if not (repo / ".git").is_dir():
        return False
    try:
        git(repo, "rev-parse", "--verify", "-q", f"refs/tags/{BASE_TAG}")
    except subprocess.CalledProcessError:
        return False
    return True
