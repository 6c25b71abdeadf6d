"""The GitHub Actions runner's files: job summary, step outputs, the event payload's commits.

Everything here degrades to a no-op (or a clear error) outside Actions, so the commands that
use it also work on a laptop.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from gitgraph.errors import GitGraphError

MAX_STEP_SUMMARY_BYTES = 1024 * 1024  # per step; GitHub drops larger summaries
PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class EventShas(NamedTuple):
    """What a pull request workflow compares: base and head commits, and the PR number."""

    base_sha: str
    head_sha: str
    pr_number: int | None



def write_step_summary(markdown: str, path: str | os.PathLike[str] | None = None) -> bool:
    """Append `markdown` to the job summary ($GITHUB_STEP_SUMMARY); False outside Actions."""
    target = path or os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    data = markdown.encode("utf-8")
    if not markdown.endswith("\n"):
        data += b"\n"
    try:
        current = Path(target).stat().st_size
    except FileNotFoundError:
        current = 0
    if current + len(data) > MAX_STEP_SUMMARY_BYTES:
        raise GitGraphError(
            f"job summary would be {current + len(data)} bytes, GitHub allows "
            f"{MAX_STEP_SUMMARY_BYTES} per step (lower the token budget)"
        )
    with open(target, "ab") as handle:
        handle.write(data)
    return True


def set_output(name: str, value: str, path: str | os.PathLike[str] | None = None) -> bool:
    """Append a step output to $GITHUB_OUTPUT (heredoc form when multi-line); False outside."""
    target = path or os.environ.get("GITHUB_OUTPUT")
    if not target:
        return False
    if not _OUTPUT_NAME.fullmatch(name):
        raise GitGraphError(f"invalid step output name {name!r} (letters, digits, _ and -)")
    if "\n" in value or "\r" in value:
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        while delimiter in value:  # pragma: no cover - a uuid collision
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
        record = f"{name}<<{delimiter}\n{value}\n{delimiter}\n"
    else:
        record = f"{name}={value}\n"
    with open(target, "a", encoding="utf-8", newline="") as handle:
        handle.write(record)
    return True


def event_shas(
    event_path: str | os.PathLike[str] | None = None,
    *,
    event_name: str | None = None,
    base_sha: str | None = None,
    head_sha: str | None = None,
) -> EventShas:
    """Base/head SHAs and PR number from $GITHUB_EVENT_PATH; explicit SHAs win when both given.

    On `pull_request` GITHUB_SHA is a test merge commit, so the event payload is the source.
    """
    name, payload = _event(event_path, event_name)
    pull = payload.get("pull_request") if name in PULL_REQUEST_EVENTS else None
    pr_number = _pr_number(payload, pull)
    if base_sha and head_sha:
        return EventShas(_sha(base_sha, "base"), _sha(head_sha, "head"), pr_number)
    if not isinstance(pull, dict):
        raise GitGraphError(
            f"event `{name or 'unknown'}` is not a pull request (run on `pull_request`, "
            "or give both the base and head commits)"
        )
    base = base_sha or _dig(pull, "base", "sha")
    head = head_sha or _dig(pull, "head", "sha")
    return EventShas(_sha(base, "base"), _sha(head, "head"), pr_number)


def event_pr_number(
    event_path: str | os.PathLike[str] | None = None, *, event_name: str | None = None
) -> int | None:
    """The pull request number of a `pull_request` event; None for other events or outside."""
    name, payload = _event(event_path, event_name)
    pull = payload.get("pull_request") if name in PULL_REQUEST_EVENTS else None
    return _pr_number(payload, pull)


def _event(
    event_path: str | os.PathLike[str] | None, event_name: str | None
) -> tuple[str | None, dict[str, Any]]:
    name = event_name if event_name is not None else os.environ.get("GITHUB_EVENT_NAME")
    path = event_path or os.environ.get("GITHUB_EVENT_PATH")
    payload = _load_event(Path(path)) if path else {}
    if name is None and "pull_request" in payload:
        name = "pull_request"
    return name, payload


def _pr_number(payload: Mapping[str, Any], pull: Any) -> int | None:
    number = payload.get("number") if isinstance(pull, dict) else None
    if isinstance(pull, dict) and not isinstance(number, int):
        number = pull.get("number")
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _load_event(path: Path) -> dict[str, Any]:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GitGraphError(f"event file {path} not found (check GITHUB_EVENT_PATH)") from None
    except (OSError, ValueError) as error:
        raise GitGraphError(f"cannot read event file {path}: {error}") from None
    if not isinstance(payload, dict):
        raise GitGraphError(f"event file {path} is not a JSON object")
    return payload


def _dig(node: Mapping[str, Any], *keys: str) -> str:
    value: Any = node
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else ""


def _sha(value: str, side: str) -> str:
    if not _SHA.fullmatch(value):
        raise GitGraphError(f"{side} commit {value!r} is not a full SHA (pass a 40-hex commit id)")
    return value


def runner_temp() -> Path:
    """$RUNNER_TEMP (emptied after each job), else the system's temporary directory."""
    return Path(os.environ.get("RUNNER_TEMP") or tempfile.gettempdir())
