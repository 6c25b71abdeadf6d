"""The pre-commit hooks in every commit flow: real git, the real `pre-commit`, `repo: local`.

Each flow ends with the same question: does the graph.json a commit carries describe exactly
that commit's tree (`assert_exact`: byte for byte what a full index of the commit gives)?
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hookrepo import (
    GITGRAPH,
    GRAPH,
    assert_exact,
    commit,
    committed,
    install,
    local_config,
    manifest,
    node_ids,
    pre_commit,
)

from gitgraph import git, store
from gitgraph.cache import BlobCache
from gitgraph.extract import extractor_digest

if TYPE_CHECKING:
    from conftest import Repo

LIB = "def helper(x):\n    return x + 1\n"
APP = "from lib import helper\n\n\ndef run():\n    return helper(1)\n"
# zz_tail.py sorts last: records appended at the end of an array change the line before them
# (it gains a comma), so an edit there would touch every other branch's appended records.
FILES = {"lib.py": LIB, "app.py": APP, "zz_tail.py": "def tail():\n    return 0\n",
         "README.md": "# demo\n"}
HEAVY = ("scipy", "networkx", "tiktoken", "rich", "numpy", "yaml")


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(autouse=True)
def _pre_commit_env(monkeypatch: pytest.MonkeyPatch, pre_commit_home: Path) -> Iterator[None]:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.delenv("SKIP", raising=False)
    yield


@pytest.fixture
def hooked(repo: Repo) -> Repo:
    """`gitgraph` and `gitgraph-warm` installed through pre-commit; no source committed yet."""
    install(repo, local_config({"gitgraph": [], "gitgraph-warm": []}))
    return repo


def commit_ok(repo: Repo, *args: str, env: dict[str, str] | None = None,
              cwd: Path | None = None) -> str:
    proc = commit(repo, *args, env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stdout
    return proc.stdout


def start(repo: Repo) -> None:
    """The project's first commit, through the hook."""
    for path, text in FILES.items():
        repo.write(path, text)
    repo.git("add", "-A")
    commit_ok(repo, "-q", "-m", "init")


def changed_in(repo: Repo, rev: str = "HEAD") -> list[str]:
    return repo.git("diff-tree", "--no-commit-id", "--name-only", "-r", rev).split()


# -- the manifest ------------------------------------------------------------------------------


def test_manifest_is_valid_and_says_what_the_issue_asks(repo: Repo) -> None:
    pre_commit(repo, "validate-manifest", str(Path(__file__).parents[1] /
                                              ".pre-commit-hooks.yaml"))
    hooks = manifest()
    assert set(hooks) == {"gitgraph", "gitgraph-check", "gitgraph-warm"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["minimum_pre_commit_version"] == "3.2.0"
        assert hook["pass_filenames"] is False and hook["require_serial"] is True
        assert hook["always_run"] is True  # deletions and renames are never passed as files
    assert hooks["gitgraph"]["entry"] == "gitgraph hook"
    assert "pre-push" in hooks["gitgraph-check"]["stages"]
    assert set(hooks["gitgraph-warm"]["stages"]) == {"post-checkout", "post-merge",
                                                      "post-rewrite"}


def test_example_config_is_valid(repo: Repo) -> None:
    example = Path(__file__).parents[1] / "examples" / "pre-commit" / ".pre-commit-config.yaml"
    pre_commit(repo, "validate-config", str(example))


# -- commit flows ------------------------------------------------------------------------------


def test_first_commit_creates_and_stages_graph_json(hooked: Repo, tmp_path: Path) -> None:
    start(hooked)
    assert GRAPH in changed_in(hooked)
    assert_exact(hooked, "HEAD", tmp_path)
    assert hooked.git("status", "--porcelain") == ""


def test_no_stage_mode_fails_until_graph_json_is_staged(repo: Repo, tmp_path: Path) -> None:
    install(repo, local_config({"gitgraph": ["--no-stage"]}))
    head = repo.git("rev-parse", "HEAD")
    for path, text in FILES.items():
        repo.write(path, text)
    repo.git("add", "-A")
    first = commit(repo, "-q", "-m", "init")  # graph.json is new: pre-commit cannot see it
    assert first.returncode == 1
    assert f"gitgraph: wrote {GRAPH} to describe the staged files; `git add {GRAPH}`" in (
        first.stdout)
    again = commit(repo, "-q", "-m", "init")  # written already, still not staged
    assert again.returncode == 1 and f"gitgraph: {GRAPH} is not staged" in again.stdout
    assert repo.git("rev-parse", "HEAD") == head
    repo.git("add", GRAPH)
    commit_ok(repo, "-q", "-m", "init")
    assert_exact(repo, "HEAD", tmp_path)

    repo.write("lib.py", LIB.replace("x + 1", "x + 2"))  # tracked now: the usual convention
    repo.git("add", "lib.py")
    failed = commit(repo, "-q", "-m", "two")
    assert failed.returncode == 1 and "files were modified by this hook" in failed.stdout
    repo.git("add", GRAPH)
    commit_ok(repo, "-q", "-m", "two")
    assert_exact(repo, "HEAD", tmp_path)
    assert repo.git("status", "--porcelain") == ""


def test_partial_staging_commits_the_graph_of_the_staged_content(
    hooked: Repo, tmp_path: Path
) -> None:
    start(hooked)
    staged = LIB + "\n\ndef staged():\n    return 1\n"
    hooked.write("lib.py", staged)
    hooked.git("add", "lib.py")
    hooked.write("lib.py", staged + "\n\ndef unstaged():\n    return 2\n")
    hooked.write("app.py", APP.replace("helper(1)", "helper(2)"))  # unstaged, body only
    commit_ok(hooked, "-q", "-m", "partial")
    assert_exact(hooked, "HEAD", tmp_path)
    ids = node_ids(committed(hooked))
    assert "lib.py::staged" in ids and "lib.py::unstaged" not in ids
    assert hooked.git("status", "--porcelain").splitlines() == [" M app.py", " M lib.py"]
    assert b"def unstaged" in hooked.read("lib.py")  # pre-commit's stash came back


def test_partial_staging_of_a_body_only_edit_takes_the_incremental_path(
    hooked: Repo, tmp_path: Path
) -> None:
    start(hooked)
    hooked.write("lib.py", LIB.replace("x + 1", "x + 10"))
    hooked.git("add", "lib.py")
    hooked.write("lib.py", LIB.replace("x + 1", "x + 20"))
    commit_ok(hooked, "-q", "-m", "body")
    assert_exact(hooked, "HEAD", tmp_path)
    assert hooked.git("show", "HEAD:lib.py") == LIB.replace("x + 1", "x + 10")


def test_commit_all_and_commit_with_paths(hooked: Repo, tmp_path: Path) -> None:
    start(hooked)
    hooked.write("lib.py", LIB + "\n\ndef more():\n    return 3\n")
    hooked.write("app.py", APP + "\n\ndef extra():\n    return run()\n")
    commit_ok(hooked, "-q", "-a", "-m", "all")
    assert_exact(hooked, "HEAD", tmp_path)
    assert {"lib.py::more", "app.py::extra"} <= node_ids(committed(hooked))

    hooked.write("lib.py", LIB)
    hooked.write("app.py", APP)
    commit_ok(hooked, "-q", "-m", "only lib", "--", "lib.py")  # git's temporary index
    assert_exact(hooked, "HEAD", tmp_path)
    assert "lib.py::more" not in node_ids(committed(hooked))
    assert "app.py::extra" in node_ids(committed(hooked))


def test_amend(hooked: Repo, tmp_path: Path) -> None:
    start(hooked)
    hooked.write("lib.py", LIB + "\n\ndef first():\n    return 1\n")
    hooked.git("add", "lib.py")
    commit_ok(hooked, "-q", "-m", "first")
    hooked.write("lib.py", LIB + "\n\ndef second():\n    return 1\n")
    hooked.git("add", "lib.py")
    commit_ok(hooked, "-q", "--amend", "--no-edit")
    assert_exact(hooked, "HEAD", tmp_path)
    assert "lib.py::second" in node_ids(committed(hooked))
    assert "lib.py::first" not in node_ids(committed(hooked))
    commit_ok(hooked, "-q", "--amend", "-m", "reworded")  # nothing staged: nothing rewritten
    assert_exact(hooked, "HEAD", tmp_path)


def test_merge_commit_indexes_the_whole_merged_tree(hooked: Repo, tmp_path: Path) -> None:
    start(hooked)
    hooked.write("notes.txt", "base\n")
    hooked.git("add", "notes.txt")
    commit_ok(hooked, "-q", "-m", "notes")
    hooked.git("checkout", "-q", "-b", "left")
    hooked.write("a_first.py", "def a_new():\n    return 1\n")
    hooked.write("notes.txt", "left\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "left")
    hooked.git("checkout", "-q", "main")
    # z_last.py calls a_new, which exists only on the other branch: only a graph of the
    # merged tree resolves that call.
    hooked.write("z_last.py", "from a_first import a_new\n\n\ndef z_last():\n"
                              "    return a_new()\n")
    hooked.write("notes.txt", "main\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "main")

    merge = hooked.git("merge", "--no-edit", "left", check=False)
    assert "CONFLICT (content): Merge conflict in notes.txt" in merge
    assert GRAPH not in hooked.git("diff", "--name-only", "--diff-filter=U")  # merged as text
    text_merged = hooked.git("show", f":{GRAPH}").encode()
    hooked.write("notes.txt", "both\n")
    hooked.git("add", "notes.txt")
    commit_ok(hooked, "--no-edit")  # pre-commit passes the hook only notes.txt
    assert hooked.git("rev-parse", "HEAD^2") == hooked.git("rev-parse", "left")
    assert_exact(hooked, "HEAD", tmp_path)
    assert committed(hooked) != text_merged
    assert hooked.git("status", "--porcelain") == ""


def test_clean_merge_stops_only_when_its_text_merged_graph_is_inexact(
    hooked: Repo, tmp_path: Path
) -> None:
    start(hooked)
    hooked.git("checkout", "-q", "-b", "left")
    hooked.write("a_first.py", "def a_new():\n    return 1\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "left")
    hooked.git("checkout", "-q", "main")
    hooked.write("y_last.py", "def y_last():\n    return 2\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "main")
    out = hooked.git("merge", "--no-edit", "left")  # pre-merge-commit: nothing to fix
    assert "Merge made by" in out
    assert_exact(hooked, "HEAD", tmp_path)

    hooked.git("checkout", "-q", "-b", "right", "HEAD~1")
    hooked.write("b_second.py", "def b_new():\n    return 1\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "right")
    hooked.git("checkout", "-q", "main")
    # calls b_new, which exists only on the other branch: the text merge misses the link
    hooked.write("y_last.py", "from b_second import b_new\n\n\ndef y_last():\n"
                              "    return b_new()\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "main calls b_new")
    stopped = subprocess.run(["git", "merge", "--no-edit", "right"], cwd=hooked.path,
                             capture_output=True, text=True, check=False)
    assert stopped.returncode == 1
    assert "`git commit --no-edit` finishes the merge" in stopped.stdout + stopped.stderr
    assert hooked.git("status", "--porcelain").splitlines() == [f"M  {GRAPH}", "A  b_second.py"]
    commit_ok(hooked, "-q", "--no-edit")
    assert hooked.git("rev-parse", "HEAD^2") == hooked.git("rev-parse", "right")
    assert_exact(hooked, "HEAD", tmp_path)
    assert hooked.git("status", "--porcelain") == ""


def test_squash_merge_is_rebuilt_on_commit(hooked: Repo, tmp_path: Path) -> None:
    start(hooked)
    hooked.git("checkout", "-q", "-b", "left")
    hooked.write("b_second.py", "def b_new():\n    return 1\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "left")
    hooked.git("checkout", "-q", "main")
    hooked.write("y_last.py", "from b_second import b_new\n\n\ndef y_last():\n"
                              "    return b_new()\n")
    hooked.git("add", "-A")
    commit_ok(hooked, "-q", "-m", "main calls b_new")
    hooked.git("merge", "-q", "--squash", "left")
    commit_ok(hooked, "-q", "-m", "squashed")
    assert_exact(hooked, "HEAD", tmp_path)


def test_run_all_files_is_idempotent(hooked: Repo) -> None:
    start(hooked)
    hooked.write("lib.py", LIB + "\n\ndef staged():\n    return 1\n")
    hooked.git("add", "lib.py")
    hooked.write("app.py", APP + "\n\ndef unstaged():\n    return 1\n")  # seen: no stash
    pre_commit(hooked, "run", "gitgraph", "--all-files")
    after_first = hooked.read(GRAPH)
    pre_commit(hooked, "run", "gitgraph", "--all-files")
    assert hooked.read(GRAPH) == after_first
    assert hooked.gitgraph("check")[0] == 0  # describes the index, not the unstaged edit
    assert "app.py::unstaged" not in node_ids(after_first)
    assert hooked.git("status", "--porcelain").splitlines() == ["M  .gitgraph/graph.json",
                                                                 " M app.py", "M  lib.py"]


def test_run_all_files_no_stage_fails_once_then_passes(repo: Repo) -> None:
    install(repo, local_config({"gitgraph": ["--no-stage"]}))
    for path, text in FILES.items():
        repo.write(path, text)
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "no graph yet")
    assert pre_commit(repo, "run", "gitgraph", "--all-files", check=False).returncode == 1
    repo.git("add", GRAPH)
    repo.git("commit", "-q", "--no-verify", "-m", "graph")
    repo.write("lib.py", LIB + "\n\ndef later():\n    return 1\n")
    repo.git("add", "lib.py")
    assert pre_commit(repo, "run", "gitgraph", "--all-files", check=False).returncode == 1
    assert pre_commit(repo, "run", "gitgraph", "--all-files", check=False).returncode == 0


def test_skip_leaves_the_graph_stale_and_the_next_commit_heals_it(
    hooked: Repo, tmp_path: Path
) -> None:
    start(hooked)
    hooked.write("lib.py", LIB + "\n\ndef skipped():\n    return 1\n")
    hooked.git("add", "lib.py")
    commit_ok(hooked, "-q", "-m", "skipped", env={"SKIP": "gitgraph"})
    assert GRAPH not in changed_in(hooked)
    code, out, _ = hooked.gitgraph("check", "--rev", "HEAD")
    assert code == 1 and out.split() == ["lib.py"]
    hooked.write("README.md", "# docs only\n")
    hooked.git("add", "README.md")
    commit_ok(hooked, "-q", "-m", "next")
    assert_exact(hooked, "HEAD", tmp_path)


def test_commit_of_non_source_files_does_not_rewrite_graph_json(hooked: Repo) -> None:
    start(hooked)
    before = os.stat(hooked.path / GRAPH)
    hooked.write("README.md", "# more docs\n")
    hooked.git("add", "README.md")
    commit_ok(hooked, "-q", "-m", "docs")
    after = os.stat(hooked.path / GRAPH)
    assert changed_in(hooked) == ["README.md"]
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_commit_that_only_deletes_a_source_file(hooked: Repo, tmp_path: Path) -> None:
    start(hooked)
    hooked.git("rm", "-q", "lib.py")  # pre-commit passes no file: always_run makes it run
    commit_ok(hooked, "-q", "-m", "delete")
    assert_exact(hooked, "HEAD", tmp_path)
    assert not any(i.startswith("lib.py") for i in node_ids(committed(hooked)))


def test_linked_worktree_commits_its_own_graph_and_shares_the_cache(
    hooked: Repo, tmp_path: Path
) -> None:
    start(hooked)
    main_graph = hooked.read(GRAPH)
    hooked.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    tree = hooked.at(tmp_path / "wt")
    tree.write("lib.py", LIB + "\n\ndef side():\n    return 1\n")
    tree.git("add", "lib.py")
    commit_ok(tree, "-q", "-m", "side", cwd=tree.path)
    assert_exact(tree, "HEAD", tmp_path)
    assert "lib.py::side" in node_ids(committed(tree))
    assert hooked.read(GRAPH) == main_graph
    assert not (hooked.path / ".git" / "worktrees" / "wt" / "gitgraph").exists()
    assert (hooked.path / ".git" / "gitgraph" / "cache").is_dir()


# -- failing open ------------------------------------------------------------------------------


def test_internal_error_warns_and_commits_unless_strict(repo: Repo) -> None:
    install(repo, local_config({"gitgraph": []}, verbose=True))  # show a passing hook's output
    repo.write("lib.py", LIB)
    (repo.path / GRAPH).mkdir(parents=True)  # a directory where graph.json should be
    repo.git("add", "lib.py")
    out = commit_ok(repo, "-q", "-m", "not blocked")
    assert "gitgraph: warning: cannot write" in out
    assert "(commit not blocked; --strict to fail)" in out and "Traceback" not in out

    install(repo, local_config({"gitgraph": ["--strict"]}), message="strict")
    repo.write("lib.py", LIB + "\n\ndef more():\n    return 1\n")
    repo.git("add", "lib.py")
    blocked = commit(repo, "-q", "-m", "blocked")
    assert blocked.returncode == 1 and "gitgraph: error: cannot write" in blocked.stdout


def test_a_crash_fails_open_too(repo: Repo) -> None:
    repo.write("lib.py", LIB)
    repo.git("add", "lib.py")
    (repo.path / ".git" / "gitgraph").write_text("a file where a directory should be")
    code, _, err = repo.gitgraph("hook")
    assert code == 0
    assert err.startswith("gitgraph: warning: internal error: ")
    assert err.rstrip().endswith("(commit not blocked; --strict to fail)")
    code, _, err = repo.gitgraph("hook", "--strict")
    assert code == 3 and "gitgraph: internal error:" in err
    code, _, err = repo.gitgraph("hook", "--no-stage")
    assert code == 0 and "warning" in err and "Traceback" not in err
    # -v shows where it happened, both fail-open and strict
    code, _, err = repo.gitgraph("-v", "hook")
    assert code == 0 and "Traceback (most recent call last)" in err
    code, _, err = repo.gitgraph("-v", "hook", "--strict")
    assert code == 3 and "Traceback (most recent call last)" in err


def test_outside_a_repository_fails_open(tmp_path: Path) -> None:
    proc = subprocess.run([GITGRAPH, "hook"], cwd=tmp_path, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0 and "gitgraph: warning: not a git repository" in proc.stderr


def test_check_hook_is_strict(repo: Repo) -> None:
    install(repo, local_config({"gitgraph-check": []}))
    repo.write("lib.py", LIB)
    repo.git("add", "lib.py")
    missing = pre_commit(repo, "run", "gitgraph-check", "--all-files", check=False)
    assert missing.returncode == 1 and "(no graph.json)" in missing.stdout
    assert repo.gitgraph("update", "--staged", "--stage")[0] == 0
    pre_commit(repo, "run", "gitgraph-check", "--all-files")
    repo.write("lib.py", LIB + "\n\ndef more():\n    return 1\n")
    repo.git("add", "lib.py")
    stale = pre_commit(repo, "run", "gitgraph-check", "--all-files", check=False)
    assert stale.returncode == 1 and "\n  lib.py\n" in stale.stdout
    assert repo.gitgraph("update", "--staged", "--stage")[0] == 0
    repo.git("commit", "-q", "--no-verify", "-m", "with graph")
    pre_commit(repo, "run", "--hook-stage", "pre-push", "gitgraph-check", "--all-files")


# -- warming the cache after checkouts ---------------------------------------------------------


def cached(repo: Repo, rev: str) -> set[str]:
    """Paths of `rev`'s Python files whose blob is in the blob cache."""
    cache = BlobCache(git.common_dir(repo.path), extractor_digest(1_000_000))
    return {entry.path for entry in git.ls_tree(repo.path, rev)
            if entry.path.endswith(".py") and cache.get(entry.blob, "python") is not None}


def test_warm_hooks_fill_the_cache_and_never_write_graph_json(hooked: Repo) -> None:
    start(hooked)
    hooked.git("checkout", "-q", "-b", "feature")
    hooked.write("new_a.py", "def a():\n    return 1\n")
    hooked.git("add", "-A")
    hooked.git("commit", "-q", "--no-verify", "-m", "uncached")  # no hook: nothing parsed
    hooked.git("checkout", "-q", "main")
    assert "new_a.py" not in cached(hooked, "feature")

    hooked.git("checkout", "-q", "feature")  # post-checkout
    assert "new_a.py" in cached(hooked, "feature")
    assert hooked.read(GRAPH) == committed(hooked, "feature")
    assert hooked.git("status", "--porcelain") == ""

    hooked.git("checkout", "-q", "-b", "other", "main")
    hooked.write("new_b.py", "def b():\n    return 1\n")
    hooked.git("add", "-A")
    hooked.git("commit", "-q", "--no-verify", "-m", "uncached too")
    hooked.git("checkout", "-q", "main")
    assert "new_b.py" not in cached(hooked, "other")
    hooked.git("merge", "-q", "--ff-only", "other")  # post-merge
    assert "new_b.py" in cached(hooked, "HEAD")

    hooked.write("new_c.py", "def c():\n    return 1\n")
    hooked.git("add", "-A")
    hooked.git("commit", "-q", "--no-verify", "--amend", "--no-edit")  # post-rewrite
    assert "new_c.py" in cached(hooked, "HEAD")
    assert hooked.git("status", "--porcelain") == ""


def test_warm_hook_prepares_graph_json_so_the_next_commit_reads_little(hooked: Repo) -> None:
    start(hooked)
    hooked.git("checkout", "-q", "-b", "feature")
    hooked.write("lib.py", hooked.read("lib.py").decode() + "\n\ndef extra():\n    return 2\n")
    hooked.commit("interface change")  # the hook rebuilds: its stored tables fit `feature`
    for hooks in (None, "/dev/null"):  # a checkout with, then without the post-checkout hook
        config = ["-c", f"core.hooksPath={hooks}"] if hooks else []
        hooked.git(*config, "checkout", "-q", "main")
        text = hooked.read("lib.py").decode()
        hooked.write("lib.py", text.replace("return", "return 1 +", 1))
        hooked.git("add", "lib.py")
        code, _, err = hooked.gitgraph("-v", "update", "--staged")
        assert code == 0 and "incrementally" in err
        assert ("graph.json: read whole" in err) == (hooks is not None), err
        assert ("no stored tables fit" in err) == (hooks is not None), err
        hooked.git("reset", "-q", "--hard")
        hooked.git("checkout", "-q", "feature")


def test_warm_skips_file_checkouts_and_fails_open(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write("lib.py", LIB)
    repo.commit("one")
    monkeypatch.setenv("PRE_COMMIT_CHECKOUT_TYPE", "0")
    assert repo.gitgraph("warm") == (0, "", "")
    assert "lib.py" not in cached(repo, "HEAD")
    monkeypatch.setenv("PRE_COMMIT_CHECKOUT_TYPE", "1")
    code, _, err = repo.gitgraph("warm")
    assert code == 0 and "cached 1 new file version(s)" in err
    assert "lib.py" in cached(repo, "HEAD")
    assert not (repo.path / GRAPH).exists()
    assert repo.gitgraph("warm") == (0, "", "")  # all cached: silent
    code, _, err = repo.gitgraph("warm", "--rev", "no-such-branch")
    assert code == 0 and "(cache not warmed; --strict to fail)" in err
    assert repo.gitgraph("warm", "--rev", "no-such-branch", "--strict")[0] == 1


def test_warm_in_an_empty_repository_does_nothing(repo: Repo) -> None:
    assert repo.gitgraph("warm") == (0, "", "")


# -- what the hook imports ---------------------------------------------------------------------


def imported(repo: Repo, *args: str) -> set[str]:
    """Modules a whole `gitgraph ARGS` process imported (from -X importtime)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gitgraph", *args],
                          cwd=repo.path, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return {line.rpartition("|")[2].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:")}


def test_hook_path_keeps_heavy_imports_off(repo: Repo) -> None:
    for path, text in FILES.items():
        repo.write(path, text)
    repo.git("add", "-A")
    full = imported(repo, "hook")  # the first commit: a full build
    repo.commit("init", add=False)
    repo.write("lib.py", LIB.replace("x + 1", "x + 2"))
    repo.git("add", "lib.py")
    spliced = imported(repo, "hook")  # a body-only edit: the incremental splice
    assert store.read_lines(repo.path / GRAPH) is not None
    warm = imported(repo, "warm")
    for modules in (full, spliced, warm):
        assert "gitgraph.commands.hook" in modules
        assert not {m.split(".")[0] for m in modules} & set(HEAVY)


def test_graph_json_is_never_racily_clean_in_the_commit_index(repo: Repo) -> None:
    """graph.json is dated back: staged and committed within one timestamp tick of being
    written, git would keep its index entry 'racily clean' and re-hash the whole file on
    every diff and status until the index is written again."""
    repo.write("lib.py", LIB)
    repo.git("add", "lib.py")
    code, _, _ = repo.gitgraph("update", "--staged", "--stage", "-q")
    assert code == 0
    graph = repo.path / ".gitgraph" / "graph.json"
    assert graph.stat().st_mtime_ns <= time.time_ns() - 1_500_000_000
    repo.git("commit", "-q", "-m", "at once")
    debug = repo.git("ls-files", "--debug", ".gitgraph/graph.json")
    assert f"size: {graph.stat().st_size}\t" in debug  # not smudged to 0
