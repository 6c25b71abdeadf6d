"""Run a composite action's steps locally, the way the Actions runner does, for tests.

`run_action` evaluates each step's `if:`, `env:` and `with:` expressions against a simulated
context (`inputs`, `github`, `runner`, `steps`), runs every `run:` step with
`bash --noprofile --norc -eo pipefail` and fresh GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files,
and collects each step's outputs for the steps after it. `uses:` steps are not run: they are
checked for shape and recorded; `actions/upload-artifact` is simulated by copying its path
into an artifacts directory, so a later job can "download" it.

The expression evaluator covers what the action uses (property access, string literals,
`==`, `!=`, `&&`, `||`, `!`, parentheses and the status functions) and fails loudly on
anything else, so a new construct in action.yml cannot be silently mis-simulated.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)"
                    r"|(?P<op>==|!=|&&|\|\||!|\(|\))|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*))")
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
_USES = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@v\d+")
STATUS_FUNCTIONS = ("success", "always", "failure", "cancelled")


class ExpressionError(Exception):
    """An expression the simulator does not understand."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ExpressionError(f"cannot read {text[pos:]!r} in {text!r}")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


def truthy(value: Any) -> bool:
    """Truthiness as GitHub's expressions define it."""
    return value not in (None, False, 0, "") and value == value


def _lookup(context: dict[str, Any], name: str) -> Any:
    value: Any = context
    for part in name.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _equal(a: Any, b: Any) -> bool:
    a = "" if a is None else a
    b = "" if b is None else b
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return str(a).casefold() == str(b).casefold()


def evaluate(text: str, context: dict[str, Any], status: str = "success") -> Any:
    """The value of one expression (the part inside `${{ }}`)."""
    tokens = _tokens(text)
    pos = 0

    def peek() -> str:
        return tokens[pos][1] if pos < len(tokens) else ""

    def primary() -> Any:
        nonlocal pos
        if pos >= len(tokens):
            raise ExpressionError(f"unexpected end of {text!r}")
        kind, value = tokens[pos]
        pos += 1
        if kind == "str":
            return value[1:-1].replace("''", "'")
        if kind == "num":
            return float(value) if "." in value else int(value)
        if value == "(":
            result = either()
            if peek() != ")":
                raise ExpressionError(f"missing ')' in {text!r}")
            pos += 1
            return result
        if value == "!":
            return not truthy(primary())
        if kind == "name":
            if peek() == "(":
                if value not in STATUS_FUNCTIONS or tokens[pos + 1][1] != ")":
                    raise ExpressionError(f"unsupported function {value} in {text!r}")
                pos += 2
                return {"success": status == "success", "always": True,
                        "failure": status == "failure", "cancelled": False}[value]
            if value in ("true", "false"):
                return value == "true"
            if value == "null":
                return None
            return _lookup(context, value)
        raise ExpressionError(f"unexpected {value!r} in {text!r}")

    def comparison() -> Any:
        nonlocal pos
        left = primary()
        while peek() in ("==", "!="):
            op = tokens[pos][1]
            pos += 1
            right = primary()
            left = _equal(left, right) if op == "==" else not _equal(left, right)
        return left

    def both() -> Any:
        nonlocal pos
        left = comparison()
        while peek() == "&&":
            pos += 1
            right = comparison()
            left = right if truthy(left) else left
        return left

    def either() -> Any:
        nonlocal pos
        left = both()
        while peek() == "||":
            pos += 1
            right = both()
            left = left if truthy(left) else right
        return left

    result = either()
    if pos != len(tokens):
        raise ExpressionError(f"trailing {tokens[pos][1]!r} in {text!r}")
    return result


def as_string(value: Any) -> str:
    """How the runner turns an expression's value into text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def interpolate(text: str, context: dict[str, Any]) -> str:
    """`text` with every `${{ expression }}` replaced by its value."""
    return _EXPRESSION.sub(lambda m: as_string(evaluate(m.group(1), context)), text)


def step_condition(condition: Any, context: dict[str, Any], status: str) -> bool:
    """Whether a step runs: `if:` (with or without `${{ }}`), status functions included."""
    if condition is None:
        return status == "success"
    text = str(condition).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    if not any(f"{name}(" in text for name in STATUS_FUNCTIONS):
        text = f"success() && ({text})"
    return truthy(evaluate(text, context, status))


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's `name=value` and `name<<DELIMITER` records."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            while lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            i += 1
            outputs[name] = "\n".join(value)
        else:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


@dataclass
class ActionRun:
    """What one run of the action did."""

    outputs: dict[str, str] = field(default_factory=dict)  # the action's own outputs
    steps: dict[str, dict[str, str]] = field(default_factory=dict)  # step id → outputs
    ran: list[str] = field(default_factory=list)  # names of the `run:` steps executed
    used: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # (uses, with)
    summaries: list[str] = field(default_factory=list)
    log: str = ""
    failed: str | None = None  # the name of the step that failed


def run_action(action: dict[str, Any], *, inputs: dict[str, str], github: dict[str, Any],
               runner: dict[str, Any], env: dict[str, str], workdir: Path,
               artifacts: Path) -> ActionRun:
    """Run a composite action's steps as the runner would; see the module docstring."""
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    if unknown:
        raise ExpressionError(f"inputs not declared in action.yml: {sorted(unknown)}")
    base_context: dict[str, Any] = {"github": github, "runner": runner}
    values = {name: interpolate(str(spec.get("default", "")), base_context)
              for name, spec in declared.items()}
    values.update(inputs)
    context: dict[str, Any] = {**base_context, "inputs": values, "steps": {}}
    result = ActionRun()
    status = "success"
    files = Path(runner["temp"]) / "_runner_files"
    files.mkdir(parents=True, exist_ok=True)
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {number}")
        if not step_condition(step.get("if"), context, status):
            continue
        outputs: dict[str, str] = {}
        if "uses" in step:
            with_ = {k: interpolate(as_string(v), context) for k, v in step.get("with", {}).items()}
            result.used.append((step["uses"], with_))
            if step["uses"].startswith("actions/upload-artifact@"):
                _upload(with_, artifacts)
        else:
            step_env = {k: interpolate(as_string(v), context)
                        for k, v in step.get("env", {}).items()}
            output_file = files / f"output-{number}"
            summary_file = files / f"summary-{number}"
            output_file.write_text("")
            summary_file.write_text("")
            script = files / f"step-{number}.sh"
            script.write_text(step["run"])
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=workdir, capture_output=True, text=True, check=False,
                env={**env, **step_env, "GITHUB_OUTPUT": str(output_file),
                     "GITHUB_STEP_SUMMARY": str(summary_file)},
            )
            result.ran.append(name)
            result.log += f"## {name}\n{proc.stdout}{proc.stderr}"
            outputs = parse_outputs(output_file.read_text())
            summary = summary_file.read_text()
            if summary:
                result.summaries.append(summary)
            if proc.returncode != 0:
                status = "failure"
                result.failed = result.failed or name
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs,
                                            "outcome": status, "conclusion": status}
            result.steps[step["id"]] = outputs
    for name, spec in action.get("outputs", {}).items():
        result.outputs[name] = interpolate(str(spec["value"]), context)
    return result


def _upload(with_: dict[str, str], artifacts: Path) -> None:
    """actions/upload-artifact, simulated: copy `path` to artifacts/NAME."""
    source = Path(with_["path"])
    target = artifacts / with_["name"]
    if not source.exists():
        if with_.get("if-no-files-found") == "error":
            raise AssertionError(f"upload-artifact: {source} does not exist")
        return
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / source.name)


def check_uses(uses: str) -> bool:
    """A `uses:` reference pinned to a major version of a public action."""
    return bool(_USES.fullmatch(uses))
