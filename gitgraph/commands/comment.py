"""`gitgraph comment`: the sticky pull-request comment (or its body, for a later job).

The body is a short summary for people and the Markdown context for an LLM, folded in a
`<details>` block. It must fit GitHub's 65,536 characters: when it does not, the token budget
shrinks and everything is rendered again, so a fence is never cut in half.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from gitgraph import actions, git
from gitgraph import config as config_mod
from gitgraph.changes import parse_sides
from gitgraph.claudemd import BEGIN, END
from gitgraph.config import Config
from gitgraph.errors import GitGraphError
from gitgraph.github import DEFAULT_MARKER, MAX_COMMENT_CHARS, GitHubClient
from gitgraph.impact import Analysis, analyse, build_impact, impacted_tests, untested
from gitgraph.model import Impact
from gitgraph.render.comment import (
    ChangedSymbol,
    ReviewSummary,
    render_claude_md_comment,
    render_comment,
)

CLAUDE_MD_MARKER = "<!-- gitgraph:claude-md -->"
MIN_BUDGET = 300  # below this the context says too little to be worth a fold
SHRINK = 0.9  # aim a little under the limit: characters per token vary between renders
_RELATION = {"calls": "caller", "inherits": "subclass", "imports": "importer", "tests": "test"}
_CHANGE_ORDER = {"removed": 0, "signature": 1, "body": 2, "added": 3}


def comment(*, cwd: Path, revisions: list[str], budget: int | None, pr: int | None,
            repo: str | None, output: str | None, summary: bool) -> int:
    """Post or update the impact comment on PR `pr`, or write its body to `output`."""
    root = git.repo_root(cwd)
    config = config_mod.load(root)
    budget = config.budget if budget is None else budget
    if budget <= 0:
        raise GitGraphError(f"budget must be positive, not {budget}")
    if not revisions:
        shas = actions.event_shas()
        # Three dots: what the pull request adds since it left its base, as GitHub shows it.
        revisions = [f"{shas.base_sha}...{shas.head_sha}"]
    number = pr if pr is not None else actions.event_pr_number()
    client = None
    if output is None:
        if number is None:
            raise GitGraphError("no pull request number (pass --pr N or run on a pull_request "
                                "event; -o FILE writes the body instead of posting it)")
        client = _client(repo)  # before the analysis: a missing token fails fast
    analysis = analyse(root, parse_sides(root, revisions, staged=False), config)
    review = summarise(analysis)
    body = fit_body(analysis, config, review, budget)
    if summary and not actions.write_step_summary(_without_marker(body)):
        print("gitgraph: warning: $GITHUB_STEP_SUMMARY is not set; no job summary written",
              file=sys.stderr)
    _set_outputs(review)
    if output is not None:
        _write(output, body)
        if output != "-":
            actions.set_output("comment-file", str(Path(output).resolve()))
        return 0
    assert client is not None and number is not None
    result = client.upsert_comment(number, body, DEFAULT_MARKER)
    actions.set_output("comment-url", result.url)
    print(f"gitgraph: {'posted' if result.created else 'updated'} {result.url}")
    return 0


def summarise(analysis: Analysis) -> ReviewSummary:
    """Changed symbols, their direct dependents, tests to run and untested changes."""
    view, score = analysis.view, analysis.ranking.score
    changed = []
    for change in sorted(analysis.changes, key=lambda c: (_CHANGE_ORDER[c.kind], c.node)):
        node = view.node(change.node) or {}
        kind = str(node.get("kind", "symbol"))
        if node.get("test") and kind in ("function", "method"):
            kind = "test"
        label = change.kind + (" (whitespace/comments)" if change.cosmetic else "")
        changed.append(ChangedSymbol(change.node, kind, label))
    seeds = {change.node for change in analysis.changes}
    dependents: dict[str, str] = {}
    for seed in sorted(seeds):
        for source, kind, _ in sorted(view.incoming(seed)):
            if source in seeds or kind not in _RELATION or source in dependents:
                continue
            is_test = (view.node(source) or {}).get("test")
            dependents[source] = "test" if is_test else _RELATION[kind]
    ranked = sorted(dependents.items(), key=lambda item: (-score.get(item[0], 0.0), item[0]))
    return ReviewSummary(
        base=analysis.sides.base, head=analysis.sides.head,
        changed_files=len(analysis.changed_paths), changed=tuple(changed),
        dependents=tuple(ranked), tests=tuple(impacted_tests(analysis)),
        untested=tuple(untested(analysis)),
    )


def fit_body(analysis: Analysis, config: Config, review: ReviewSummary, budget: int,
             limit: int = MAX_COMMENT_CHARS) -> str:
    """The comment body within `limit` characters, shrinking the context's token budget."""
    from gitgraph import render, tokens

    encoding = tokens.encoding(config.encoding)

    def count(text: str) -> int:
        return len(encoding.encode_ordinary(text))

    def show(impact: Impact) -> str:
        return render.render(impact, "markdown")

    if not analysis.changes:
        return render_comment(review, None, None, DEFAULT_MARKER)
    first = True
    while budget >= MIN_BUDGET or first:
        try:
            impact = build_impact(analysis, config, budget, show, count, True)
        except GitGraphError:
            if first:
                raise  # the budget the user asked for is too small: say so
            break
        context = show(impact)
        body = render_comment(review, context, impact, DEFAULT_MARKER)
        if len(body) <= limit:
            return body
        first = False
        # Scale what the context used by the room it has; the rest of the body is fixed.
        room = limit - (len(body) - len(context))
        budget = min(budget - 1, int(impact.tokens_used * max(room, 0) / len(context) * SHRINK))
    return render_comment(review, None, None, DEFAULT_MARKER)


def _client(repo: str | None) -> GitHubClient:
    env: Mapping[str, str] = os.environ
    if repo is not None:
        env = {**os.environ, "GITHUB_REPOSITORY": repo}
    return GitHubClient.from_env(env)


def _without_marker(body: str) -> str:
    return body.removeprefix(DEFAULT_MARKER + "\n")


def _set_outputs(review: ReviewSummary) -> None:
    """Step outputs for the Action; nothing outside Actions."""
    if not os.environ.get("GITHUB_OUTPUT"):
        return
    actions.set_output("changed-symbols", str(len(review.changed)))
    actions.set_output("impacted-nodes", str(len(review.dependents)))
    tests = actions.runner_temp() / "gitgraph" / "impacted-tests.txt"
    tests.parent.mkdir(parents=True, exist_ok=True)
    tests.write_text("".join(f"{test}\n" for test in review.tests), encoding="utf-8")
    actions.set_output("impacted-tests", str(tests))
    actions.set_output("impacted-tests-count", str(len(review.tests)))


def _write(output: str, body: str) -> None:
    if output == "-":
        sys.stdout.write(body)
        return
    try:
        Path(output).write_text(body, encoding="utf-8", newline="")
    except OSError as error:
        raise GitGraphError(f"cannot write {output}: {error.strerror}") from None


# -- the Action's second half: post what an earlier job rendered --------------------------


def post_body(*, body: str, pr: int, repo: str | None, marker: str = DEFAULT_MARKER) -> str:
    """Post or update a pre-rendered sticky comment; returns its URL."""
    if not body.strip():
        raise GitGraphError("the comment body is empty (did the earlier job write it?)")
    result = _client(repo).upsert_comment(pr, body, marker)
    actions.set_output("comment-url", result.url)
    print(f"gitgraph: {'posted' if result.created else 'updated'} {result.url}")
    return result.url


def post_from_action(env: Mapping[str, str] | None = None) -> int:
    """The Action's posting step: `GITGRAPH_POST_FILE` (a body from `gitgraph comment -o`) or
    `GITGRAPH_POST_CLAUDE_MD` (a file whose managed block to propose), on PR `GITGRAPH_PR`.

    Reads its arguments from the environment (the Action passes inputs that way) and maps
    errors to exit codes as the command line does.
    """
    env = os.environ if env is None else env
    try:
        pr = _pr(env.get("GITGRAPH_PR", ""))
        if env.get("GITGRAPH_POST_CLAUDE_MD"):
            path = env["GITGRAPH_POST_CLAUDE_MD"]
            body = render_claude_md_comment(_block(_read(path)), path, CLAUDE_MD_MARKER)
            post_body(body=body, pr=pr, repo=None, marker=CLAUDE_MD_MARKER)
        else:
            post_body(body=_read(env.get("GITGRAPH_POST_FILE", "")), pr=pr, repo=None)
    except GitGraphError as error:
        print(f"gitgraph: error: {error}", file=sys.stderr)
        return 1
    return 0


def _pr(value: str) -> int:
    if value.strip():
        if not value.strip().isdigit() or int(value) <= 0:
            raise GitGraphError(f"pull request number must be a positive integer, got {value!r}")
        return int(value)
    number = actions.event_pr_number()
    if number is None:
        raise GitGraphError("no pull request number (set the `pr-number` input)")
    return number


def _read(path: str) -> str:
    if not path:
        raise GitGraphError("no comment file given")
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GitGraphError(f"{path} not found (did the artifact download work?)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise GitGraphError(f"cannot read {path}: {error}") from None


def _block(text: str) -> str:
    """The managed block of a CLAUDE.md, markers included."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise GitGraphError(f"no gitgraph block in the file (`{BEGIN}` … `{END}`)")
    return text[start:end + len(END)] + "\n"
