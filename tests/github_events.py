"""Event payloads for the Action's tests, each checked against GitHub's webhook schemas.

They start from the fixtures in tests/data/github/ (a `pull_request` `opened` payload and a
`workflow_run` `completed` one) and change only what a test needs: commits, numbers, refs,
and whether the pull request comes from a fork. Every payload built here is validated
against the schema of its event in openapi-subset.json before a test may use it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

try:  # tests/ may or may not become a package; the helper is found either way
    from tests.github_server import REPO, spec
except ImportError:  # pragma: no cover - depends on how pytest was started
    from github_server import REPO, spec  # type: ignore[no-redef]

DATA = Path(__file__).parent / "data" / "github"
PULL_REQUEST = DATA / "event-pull_request.json"
WORKFLOW_RUN = DATA / "event-workflow_run.json"


def pull_request_event(*, base: str, head: str, number: int = 42, head_ref: str = "feature",
                       base_ref: str = "main", fork: bool = False, action: str = "opened",
                       before: str | None = None) -> dict[str, Any]:
    """A `pull_request` payload (`opened` or `synchronize`) for commits `base`..`head`."""
    payload = json.loads(PULL_REQUEST.read_text(encoding="utf-8"))
    payload["action"] = action
    payload["number"] = number
    pull = payload["pull_request"]
    pull["number"] = number
    pull["base"].update(sha=base, ref=base_ref, label=f"octo-org:{base_ref}")
    pull["head"].update(sha=head, ref=head_ref)
    if fork:
        assert pull["head"]["repo"]["full_name"] != REPO
    else:
        pull["head"]["repo"] = copy.deepcopy(pull["base"]["repo"])
        pull["head"]["user"] = copy.deepcopy(pull["base"]["user"])
        pull["head"]["label"] = f"octo-org:{head_ref}"
    if action == "synchronize":
        payload["before"] = before or base
        payload["after"] = head
        for repo in (pull["base"]["repo"], pull["head"]["repo"], payload["repository"]):
            repo.setdefault("has_discussions", False)  # required by this event's schema
            repo.setdefault("topics", [])
    spec().validate(payload, f"/components/schemas/webhook-pull-request-{action}")
    return payload


def workflow_run_event(*, head_sha: str, head_branch: str = "feature") -> dict[str, Any]:
    """A `workflow_run` `completed` payload for a successful `pull_request` run from a fork."""
    payload = json.loads(WORKFLOW_RUN.read_text(encoding="utf-8"))
    run = payload["workflow_run"]
    run.update(head_sha=head_sha, head_branch=head_branch, event="pull_request",
               conclusion="success", pull_requests=[])
    spec().validate(payload, "/components/schemas/webhook-workflow-run-completed")
    return payload


def write_event(path: Path, payload: dict[str, Any]) -> Path:
    """Write a payload where $GITHUB_EVENT_PATH will point."""
    path.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return path
