"""The composite action, run step by step on real repositories against a local GitHub.

Each test builds an `origin` (a bare repository that allows fetching by commit id, as
GitHub does), a pull request (main + a feature branch), and a shallow clone of it as the
workspace, as actions/checkout leaves it. action.yml's `run:` steps then execute in order
with a simulated GITHUB_* environment and event file (tests/action_runner.py); the sticky
comment goes to tests/github_server.py, which holds every exchange to GitHub's OpenAPI
description. The `uses:` steps (setup-python, cache, upload-artifact) are checked, not run;
the install step is pointed at this interpreter through the `gitgraph-python` input.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Repo

try:  # tests/ may or may not become a package; the helpers are found either way
    from tests import github_server as fake
    from tests.action_runner import ActionRun, run_action
    from tests.github_events import pull_request_event, workflow_run_event, write_event
except ImportError:  # pragma: no cover - depends on how pytest was started
    import github_server as fake  # type: ignore[no-redef]
    from action_runner import ActionRun, run_action  # type: ignore[no-redef]
    from github_events import (  # type: ignore[no-redef]
        pull_request_event,
        workflow_run_event,
        write_event,
    )

ROOT = Path(__file__).resolve().parent.parent
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
TOKEN = fake.ACTIONS_TOKEN
PR = 42

PRICING = '''"""Prices and discounts."""


def price(item, qty):
    """Price of qty items."""
    return item.unit * qty


def discount(total, code):
    if code == "HALF":
        return total / 2
    return total
'''
CART = '''"""The shopping cart."""
from shop.pricing import discount, price


class Cart:
    """Items and their quantities."""

    def __init__(self):
        self.items = []

    def total(self, code=None):
        return discount(sum(price(i, q) for i, q in self.items), code)
'''
TEST_CART = '''from shop.cart import Cart


def test_total():
    assert Cart().total() == 0
'''


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[fake.FakeGitHub]:
    """A fake GitHub on 127.0.0.1; the test fails if any exchange broke the description."""
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("NO_PROXY", "*")
    with fake.FakeGitHub() as server:
        yield server
    assert len(server.statuses) == len(server.requests)
    assert server.violations == []


@dataclass
class PullRequest:
    """An origin with `main` and `feature`, and a shallow checkout of `feature`."""

    author: Repo
    origin: Path
    workspace: Path
    base: str
    head: str
    tmp: Path
    runs: int = 0

    def push_change(self, path: str, text: str) -> str:
        """Commit on `feature` in the author's clone and push; returns the new head."""
        self.author.write(path, text)
        self.head = self.author.commit("more")
        self.author.git("push", "-q", "origin", "feature")
        return self.head


@pytest.fixture
def pull_request(repo: Repo, tmp_path: Path) -> PullRequest:
    repo.write("shop/__init__.py", '"""A tiny shop."""\n')
    repo.write("shop/pricing.py", PRICING)
    repo.write("shop/cart.py", CART)
    repo.write("tests/test_cart.py", TEST_CART)
    base = repo.commit("shop")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    # GitHub serves any reachable commit by id; a local bare repository must be told to.
    subprocess.run(["git", "-C", str(origin), "config", "uploadpack.allowReachableSHA1InWant",
                    "true"], check=True)
    repo.git("remote", "add", "origin", str(origin))
    repo.git("push", "-q", "origin", "main")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("shop/pricing.py", PRICING.replace("return item.unit * qty",
                                                   "return round(item.unit * qty, 2)"))
    head = repo.commit("round prices")
    repo.git("push", "-q", "origin", "feature")
    return PullRequest(repo, origin, tmp_path / "workspace", base, head, tmp_path)


def checkout(pr: PullRequest, ref: str = "feature") -> Path:
    """actions/checkout with its default depth of 1."""
    if pr.workspace.exists():
        subprocess.run(["rm", "-rf", str(pr.workspace)], check=True)
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", ref,
                    f"file://{pr.origin}", str(pr.workspace)], check=True)
    return pr.workspace


def run(pr: PullRequest, github: fake.FakeGitHub, event: dict[str, Any], *,
        event_name: str = "pull_request", inputs: dict[str, str] | None = None,
        workspace: Path | None = None) -> ActionRun:
    """One job running the action; each gets a fresh RUNNER_TEMP."""
    pr.runs += 1
    temp = pr.tmp / f"runner-temp-{pr.runs}"
    temp.mkdir()
    workdir = workspace or pr.workspace
    event_path = write_event(temp / "event.json", event)
    head_ref = event.get("pull_request", {}).get("head", {}).get("ref", "")
    context = {
        "token": TOKEN, "event": event, "event_name": event_name, "sha": pr.head,
        "ref": f"refs/pull/{PR}/merge" if head_ref else "refs/heads/main",
        "head_ref": head_ref, "base_ref": "main" if head_ref else "",
        "repository": fake.REPO, "workspace": str(workdir), "action_path": str(ROOT),
        "run_id": str(1000 + pr.runs),
    }
    env = {key: value for key, value in os.environ.items()
           if key in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CACHE_HOME")
           or key.startswith("GIT_") or key.lower() == "no_proxy"}
    env.update({
        "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_API_URL": github.url,
        "GITHUB_REPOSITORY": fake.REPO, "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path), "GITHUB_SHA": pr.head,
        "GITHUB_REF": context["ref"], "GITHUB_HEAD_REF": head_ref,
        "GITHUB_BASE_REF": context["base_ref"], "GITHUB_WORKSPACE": str(workdir),
        "GITHUB_ACTION_PATH": str(ROOT), "RUNNER_TEMP": str(temp), "RUNNER_OS": "Linux",
    })
    return run_action(ACTION, inputs={"gitgraph-python": sys.executable, **(inputs or {})},
                      github=context, runner={"os": "Linux", "temp": str(temp)}, env=env,
                      workdir=workdir, artifacts=pr.tmp / f"artifacts-{pr.runs}")


def assert_no_token(result: ActionRun) -> None:
    texts = [result.log, *result.summaries, *result.outputs.values()]
    texts += [value for outputs in result.steps.values() for value in outputs.values()]
    assert not any(TOKEN in text for text in texts)


def comments(github: fake.FakeGitHub) -> list[dict[str, Any]]:
    return github.comments.get(PR, [])


# -- the impact comment ---------------------------------------------------------------------


def test_comment_is_posted_then_updated_in_place(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR)
    first = run(pull_request, github, event)
    assert first.failed is None, first.log
    assert "fetching" in first.log and "merge base" in first.log  # the shallow clone was deepened
    [comment] = comments(github)
    assert comment["user"]["login"] == fake.ACTIONS_BOT["login"]
    assert comment["body"].startswith("<!-- gitgraph:impact -->")
    assert "`shop/pricing.py::price`" in comment["body"] and "<details>" in comment["body"]
    assert first.outputs["comment-url"] == comment["html_url"]
    assert first.outputs["changed-symbols"] == "1"
    assert int(first.outputs["impacted-nodes"]) >= 1
    tests = Path(first.outputs["impacted-tests"]).read_text()
    assert "tests/test_cart.py::test_total" in tests.splitlines()
    assert first.outputs["comment-file"] == ""
    [summary] = first.summaries
    assert "gitgraph: change impact" in summary and "gitgraph:impact" not in summary
    # gitgraph-python given: no setup-python and no pip cache, only the blob cache.
    assert [with_["key"].split("-")[1] for _, with_ in first.used] == ["blobs"]
    assert_no_token(first)

    before = pull_request.head
    pull_request.push_change("shop/cart.py", CART.replace("self.items = []",
                                                          "self.items = list()"))
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR,
                               action="synchronize", before=before)
    second = run(pull_request, github, event)
    assert second.failed is None, second.log
    [updated] = comments(github)
    assert updated["id"] == comment["id"]
    assert "Cart.__init__" in updated["body"]
    assert [r.method for r in github.writes()] == ["POST", "PATCH"]
    assert second.outputs["changed-symbols"] == "2"

    third = run(pull_request, github, event)  # a re-run with nothing new writes nothing
    assert third.failed is None, third.log
    assert [r.method for r in github.writes()] == ["POST", "PATCH"]
    assert third.outputs["comment-url"] == comment["html_url"]


def test_blob_cache_and_install_steps_are_wired(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR)
    result = run(pull_request, github, event, inputs={"gitgraph-python": "", "comment": "false"})
    # Without gitgraph-python the real install path runs: setup-python, then the pip cache.
    # The simulated setup-python gives no interpreter, so the install step must fail clearly.
    used = dict(result.used)
    assert used["actions/setup-python@v6"]["update-environment"] == "false"
    cache = used["actions/cache@v5"]
    assert cache["path"].endswith("gitgraph-pip")
    assert cache["key"].startswith("gitgraph-pip-Linux-")
    assert result.failed == "Install gitgraph"
    assert "actions/setup-python gave no interpreter" in result.log


def test_blob_cache_is_restored_by_prefix(pull_request: PullRequest, github: fake.FakeGitHub
                                          ) -> None:
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR)
    result = run(pull_request, github, event, inputs={"comment": "false"})
    assert result.failed is None, result.log
    [(uses, with_)] = [u for u in result.used if u[0].startswith("actions/cache@")]
    assert with_["path"] == str(pull_request.workspace / ".git" / "gitgraph" / "cache")
    assert with_["key"] == f"gitgraph-blobs-v1-Linux-{pull_request.head}"
    assert with_["restore-keys"] == "gitgraph-blobs-v1-Linux-"
    assert Path(with_["path"]).is_dir()  # gitgraph filled it


def test_missing_base_commit_fails_with_a_clear_message(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    missing = "0123456789abcdef0123456789abcdef01234567"
    event = pull_request_event(base=missing, head=pull_request.head, number=PR)
    result = run(pull_request, github, event)
    assert result.failed == "Fetch the base commit"
    assert f"cannot fetch commit {missing}" in result.log and "fetch-depth: 0" in result.log
    assert github.writes() == []


def test_bad_inputs_are_refused_before_anything_runs(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR)
    result = run(pull_request, github, event, inputs={"mode": "everything"})
    assert result.failed == "Check inputs" and result.ran == ["Check inputs"]
    assert "mode must be comment, claude-md or both" in result.log
    result = run(pull_request, github, event, inputs={"budget": "lots"})
    assert "budget must be a positive whole number" in result.log


# -- forks ---------------------------------------------------------------------------------


def test_fork_pull_request_gets_the_two_workflow_explanation(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    github.read_only = True  # what a fork's pull_request run gets
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR,
                               fork=True)
    result = run(pull_request, github, event)
    assert result.failed == "Impact comment"
    assert "workflow_run" in result.log and "artifact" in result.log
    assert result.summaries  # the job summary works on forks all the same
    assert_no_token(result)


def test_fork_safe_pair_posts_through_an_artifact(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    github.read_only = True
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR,
                               fork=True)
    analyse = run(pull_request, github, event, inputs={"comment": "false"})
    assert analyse.failed is None, analyse.log
    assert github.writes() == []
    [(uses, with_)] = [u for u in analyse.used if "upload-artifact" in u[0]]
    assert with_["name"] == "gitgraph-comment"
    artifact = pull_request.tmp / f"artifacts-{pull_request.runs}" / "gitgraph-comment"
    assert (artifact / "pr-number").read_text() == f"{PR}\n"
    body = (artifact / "body.md").read_text()
    assert body.startswith("<!-- gitgraph:impact -->")
    assert analyse.outputs["comment-file"].endswith("body.md")

    # The workflow_run job: no checkout, a write token, the artifact downloaded.
    github.read_only = False
    empty = pull_request.tmp / "no-checkout"
    empty.mkdir()
    post = run(pull_request, github, workflow_run_event(head_sha=pull_request.head),
               event_name="workflow_run", workspace=empty,
               inputs={"comment-file": str(artifact / "body.md"), "pr-number": str(PR)})
    assert post.failed is None, post.log
    assert post.ran == ["Check inputs", "Install gitgraph", "Post the comment body"]
    [comment] = comments(github)
    assert comment["body"] == body
    assert post.outputs["comment-url"] == comment["html_url"]
    assert_no_token(post)


# -- CLAUDE.md -----------------------------------------------------------------------------


def test_claude_md_is_pushed_to_the_branch_once(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR)
    inputs = {"mode": "claude-md", "claude-md-commit": "push"}
    first = run(pull_request, github, event, inputs=inputs)
    assert first.failed is None, first.log
    assert first.outputs["claude-md-changed"] == "true"
    assert first.steps["deliver"] == {"pushed": "true"}
    pushed = subprocess.run(["git", "-C", str(pull_request.origin), "show",
                             "feature:CLAUDE.md"], capture_output=True, text=True, check=True)
    assert "## Code map" in pushed.stdout and "`shop/pricing.py`" in pushed.stdout
    log = subprocess.run(["git", "-C", str(pull_request.origin), "log", "-1", "--format=%s",
                          "feature"], capture_output=True, text=True, check=True).stdout
    assert log.strip() == "Update the gitgraph code map in CLAUDE.md"
    assert github.writes() == []

    # The next run on the new head finds the block current: no commit, no churn.
    head = subprocess.run(["git", "-C", str(pull_request.origin), "rev-parse", "feature"],
                          capture_output=True, text=True, check=True).stdout.strip()
    pull_request.head = head
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=head, number=PR,
                               action="synchronize")
    second = run(pull_request, github, event, inputs=inputs)
    assert second.failed is None, second.log
    assert second.outputs["claude-md-changed"] == "false"
    assert "deliver" not in second.steps


def test_claude_md_push_refuses_a_merge_checkout(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request, ref="main")  # not the pull request's head
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR)
    result = run(pull_request, github, event,
                 inputs={"mode": "claude-md", "claude-md-commit": "push"})
    assert result.failed == "Deliver CLAUDE.md"
    assert "ref: ${{ github.head_ref }}" in result.log


def test_claude_md_from_a_fork_is_uploaded_instead(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR,
                               fork=True)
    result = run(pull_request, github, event,
                 inputs={"mode": "both", "claude-md-commit": "push", "comment": "false"})
    assert result.failed is None, result.log
    assert "comes from the fork" in result.log
    uploads = {with_["name"]: with_ for uses, with_ in result.used if "upload-artifact" in uses}
    assert set(uploads) == {"gitgraph-comment", "gitgraph-claude-md"}
    uploaded = pull_request.tmp / f"artifacts-{pull_request.runs}" / "gitgraph-claude-md"
    assert "## Code map" in (uploaded / "CLAUDE.md").read_text()
    branch = subprocess.run(["git", "-C", str(pull_request.origin), "rev-parse", "feature"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert branch == pull_request.head  # nothing pushed


def test_claude_md_can_be_proposed_in_a_comment(
    pull_request: PullRequest, github: fake.FakeGitHub
) -> None:
    checkout(pull_request)
    event = pull_request_event(base=pull_request.base, head=pull_request.head, number=PR)
    result = run(pull_request, github, event,
                 inputs={"mode": "claude-md", "claude-md-commit": "comment"})
    assert result.failed is None, result.log
    [comment] = comments(github)
    assert comment["body"].startswith("<!-- gitgraph:claude-md -->")
    assert "<!-- gitgraph:begin -->" in comment["body"] and "```markdown" in comment["body"]

