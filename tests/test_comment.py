"""`gitgraph comment`: the body, its size limit and safety, and the sticky comment on a
local GitHub held to the OpenAPI description."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Repo

from gitgraph.changes import parse_sides
from gitgraph.commands.comment import fit_body, post_from_action, summarise
from gitgraph.config import Config
from gitgraph.impact import analyse
from gitgraph.render.comment import (
    ChangedSymbol,
    ReviewSummary,
    headline,
    render_claude_md_comment,
    render_summary,
)

try:  # tests/ may or may not become a package; the helpers are found either way
    from tests import github_server as fake
    from tests.github_events import pull_request_event, write_event
except ImportError:  # pragma: no cover - depends on how pytest was started
    import github_server as fake  # type: ignore[no-redef]
    from github_events import pull_request_event, write_event  # type: ignore[no-redef]

MARKER = "<!-- gitgraph:impact -->"
CORE = '''"""Core."""


def load(path):
    """Read a file."""
    return open(path).read()


def parse(text):
    return text.split()
'''
USER = '''from core import load, parse


def run(path):
    return parse(load(path))
'''
TEST = '''from user import run


def test_run(tmp_path):
    assert run(tmp_path) is not None
'''
# Everything a pull request could use to break out of the comment's Markdown.
HOSTILE = '''

def hostile():
    """Pings @octocat, closes </details> and runs <script>alert(1)</script>."""
    s = "````` ```` ``` `"
    return "</details>\\n<!-- gitgraph:impact -->"
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


@pytest.fixture
def project(repo: Repo) -> Repo:
    """main: core, user, a test; HEAD (branch feature): `load` changed, `hostile` added."""
    repo.write("core.py", CORE)
    repo.write("user.py", USER)
    repo.write("tests/test_user.py", TEST)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("core.py", CORE.replace("open(path).read()", "open(path, 'rb').read()") + HOSTILE)
    repo.commit("change")
    return repo


@pytest.fixture
def actions_env(project: Repo, github: fake.FakeGitHub, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The environment of a pull_request job (token, repository, event, runner files)."""
    files = {"event": tmp_path / "event.json", "output": tmp_path / "output",
             "summary": tmp_path / "summary", "temp": tmp_path / "runner-temp"}
    files["temp"].mkdir()
    base = project.git("rev-parse", "main").strip()
    head = project.git("rev-parse", "HEAD").strip()
    write_event(files["event"], pull_request_event(base=base, head=head, number=7))
    for name, value in {
        "GITHUB_TOKEN": fake.ACTIONS_TOKEN, "GITHUB_API_URL": github.url,
        "GITHUB_REPOSITORY": fake.REPO, "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(files["event"]), "GITHUB_OUTPUT": str(files["output"]),
        "GITHUB_STEP_SUMMARY": str(files["summary"]), "RUNNER_TEMP": str(files["temp"]),
    }.items():
        monkeypatch.setenv(name, value)
    return files


def outside_fences(markdown: str) -> str:
    """The text that is not inside a fenced code block (CommonMark's backtick fences)."""
    kept, fence = [], ""
    for line in markdown.split("\n"):
        match = re.match(r"^ {0,3}(`{3,})", line)
        if fence:
            if match and match.group(1).startswith(fence) and not line.strip("`").strip():
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        kept.append(line)
    assert not fence, "a fence was left open"
    return "\n".join(kept)


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


# -- the body ------------------------------------------------------------------------------


def test_body_is_summary_then_folded_context(project: Repo, tmp_path: Path) -> None:
    body_file = tmp_path / "body.md"
    code, _, err = project.run_cli("comment", "main...HEAD", "-o", str(body_file))
    assert code == 0, err
    body = body_file.read_text()
    assert body.startswith(MARKER + "\n### gitgraph: change impact")
    summary, _, context = body.partition("<details>")
    assert "`core.py::load`" in summary and "| function | body |" in summary
    assert "`core.py::hostile`" in summary and "| function | added |" in summary
    assert "**Tests to run**" in summary and "`tests/test_user.py::test_run`" in summary
    assert "`user.py::run` (caller)" in summary
    assert context.startswith("<summary>LLM-ready context · ")
    assert body.endswith("</details>\n")


def test_body_is_inert_markdown(project: Repo, tmp_path: Path) -> None:
    body_file = tmp_path / "body.md"
    assert project.run_cli("comment", "main...HEAD", "-b", "4000", "-o", str(body_file))[0] == 0
    body = body_file.read_text()
    assert "def hostile" in body  # the hostile code is shown, inside a fence
    prose = outside_fences(body)
    assert prose.count("</details>") == 1 and prose.rstrip().endswith("</details>")
    assert body.count(MARKER) == 1  # the one quoted in code is made inert
    assert "<script>" not in prose and "@octocat" not in prose


def test_oversized_context_shrinks_instead_of_being_cut(repo: Repo) -> None:
    lines = "\n".join(f"    total += {i}  # step {i} of the computation" for i in range(12))
    source = "\n\n".join(f"def f{n}(total):\n{lines}\n    return total\n" for n in range(30))
    repo.write("big.py", source)
    repo.commit("base")
    repo.write("big.py", source.replace("return total", "return total + 1"))
    repo.commit("change")
    config = Config()
    analysis = analyse(repo.path, parse_sides(repo.path, ["HEAD~1...HEAD"], False), config)
    review = summarise(analysis)
    whole = fit_body(analysis, config, review, 8000)
    assert re.search(r"LLM-ready context · (\d+)/8000 tokens", whole)
    small = fit_body(analysis, config, review, 8000, limit=len(whole) // 2)
    assert len(small) <= len(whole) // 2
    assert "<details>" in small and small.endswith("</details>\n")
    outside_fences(small)  # every fence closed
    used = re.search(r"LLM-ready context · (\d+)/(\d+) tokens", small)
    assert used and int(used.group(1)) <= int(used.group(2)) < 8000
    tiny = fit_body(analysis, config, review, 8000, limit=len(render_summary(review)) + 200)
    assert "<details>" not in tiny and "did not fit" in tiny


def test_summary_counts_and_escapes() -> None:
    review = ReviewSummary(
        base="a" * 40, head="b" * 40, changed_files=2,
        changed=(ChangedSymbol("a.py::f|g", "function", "body"),
                 ChangedSymbol("b.py::C", "class", "signature"),
                 ChangedSymbol("b.py::C.m", "method", "added")),
        dependents=(("c.py::h", "caller"), ("tests/t.py::test_x", "test")),
        tests=("tests/t.py::test_x",), untested=("b.py::C.m",))
    assert headline(review) == (
        "**3 changed symbols** (1 class, 1 function, 1 method) in 2 files · "
        "**2 impacted** (1 caller, 1 test) · **1 test to run** · "
        "**1 not reached by any test**")
    text = render_summary(review)
    assert "| `a.py::f\\|g` | function | body |" in text  # a pipe cannot split the table
    many = ReviewSummary("a" * 40, "b" * 40, 1, (), (), tuple(f"t{i}" for i in range(25)), ())
    assert "- _and 15 more_" in render_summary(many)
    assert "No changed symbols." in render_summary(many)


def test_claude_md_proposal_is_fenced() -> None:
    block = "<!-- gitgraph:begin -->\n## Code map\n```` x\n<!-- gitgraph:end -->\n"
    body = render_claude_md_comment(block, "CLAUDE.md", "<!-- gitgraph:claude-md -->")
    assert "`````markdown\n" + block + "`````" in body


# -- posting -------------------------------------------------------------------------------


def test_posts_once_then_updates_in_place(project: Repo, github: fake.FakeGitHub,
                                          actions_env: dict[str, Path]) -> None:
    code, out, err = project.run_cli("comment", "--summary")
    assert code == 0, err
    [comment] = github.comments[7]
    assert out.strip() == f"gitgraph: posted {comment['html_url']}"
    assert comment["body"].startswith(MARKER)
    values = outputs(actions_env["output"])
    assert values["comment-url"] == comment["html_url"]
    assert values["changed-symbols"] == "2"
    assert values["impacted-nodes"] == "2"  # user.py::run calls load, user.py imports it
    tests = Path(values["impacted-tests"])
    assert tests.parent.parent == actions_env["temp"]
    assert tests.read_text() == "tests/test_user.py::test_run\n"
    summary = actions_env["summary"].read_text()
    assert summary.startswith("### gitgraph: change impact") and MARKER not in summary
    assert "def hostile" in summary  # its quoted marker made inert

    base = project.git("rev-parse", "main").strip()
    project.write("user.py", USER + "\n\ndef other():\n    return run('x')\n")
    head = project.commit("more")
    write_event(actions_env["event"], pull_request_event(base=base, head=head, number=7,
                                                         action="synchronize"))
    code, out, err = project.run_cli("comment")
    assert code == 0, err
    [updated] = github.comments[7]
    assert updated["id"] == comment["id"] and "`user.py::other`" in updated["body"]
    assert out.strip() == f"gitgraph: updated {comment['html_url']}"
    assert [w.method for w in github.writes()] == ["POST", "PATCH"]


def test_other_comments_with_the_marker_are_left_alone(
    project: Repo, github: fake.FakeGitHub, actions_env: dict[str, Path]
) -> None:
    quoted = github.add_comment(7, f"quoting the bot: {MARKER}", fake.BOB)
    assert project.run_cli("comment", "--pr", "7")[0] == 0
    assert [c["id"] for c in github.comments[7]][0] == quoted["id"]
    assert len(github.comments[7]) == 2 and github.comments[7][0]["body"] == quoted["body"]


def test_fork_token_gets_the_two_workflow_story(
    project: Repo, github: fake.FakeGitHub, actions_env: dict[str, Path]
) -> None:
    github.read_only = True
    code, out, err = project.run_cli("comment", "--summary")
    assert code == 1
    assert "workflow_run" in err and "examples/workflows" in err
    assert fake.ACTIONS_TOKEN not in out + err
    assert actions_env["summary"].read_text()  # the summary was written before posting


def test_explicit_revisions_and_repo_outside_actions(
    project: Repo, github: fake.FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_TOKEN", fake.ALICE_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    for name in ("GITHUB_TOKEN", "GITHUB_EVENT_PATH", "GITHUB_OUTPUT", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = project.run_cli("comment", "main...HEAD", "--pr", "9", "--repo", fake.REPO)
    assert code == 0, err
    [comment] = github.comments[9]
    assert comment["user"]["login"] == "alice"


@pytest.mark.parametrize(("args", "message"), [
    (("main...HEAD",), "no pull request number"),
    ((), "is not a pull request"),
    (("main...HEAD", "--pr", "3", "-b", "0"), "budget must be positive"),
])
def test_user_errors(project: Repo, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...],
                     message: str) -> None:
    for name in ("GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = project.run_cli("comment", *args)
    assert code == 1 and message in err, err


def test_missing_token_fails_before_the_analysis(
    project: Repo, actions_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.delenv("GH_TOKEN", raising=False)
    code, _, err = project.run_cli("comment")
    assert code == 1 and "no GitHub token" in err
    assert not actions_env["output"].exists()


def test_post_from_action(project: Repo, github: fake.FakeGitHub,
                          actions_env: dict[str, Path], tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    body = tmp_path / "body.md"
    assert project.run_cli("comment", "-o", str(body))[0] == 0
    assert post_from_action({"GITGRAPH_POST_FILE": str(body), "GITGRAPH_PR": "7"}) == 0
    [comment] = github.comments[7]
    assert comment["body"] == body.read_text()
    claude = tmp_path / "CLAUDE.md"
    claude.write_text("# Notes\n\n<!-- gitgraph:begin -->\n## Code map\n<!-- gitgraph:end -->\n")
    assert post_from_action({"GITGRAPH_POST_CLAUDE_MD": str(claude), "GITGRAPH_PR": ""}) == 0
    assert len(github.comments[7]) == 2  # its own marker: a second sticky comment
    assert github.comments[7][1]["body"].startswith("<!-- gitgraph:claude-md -->")
    capsys.readouterr()
    assert post_from_action({"GITGRAPH_POST_FILE": str(tmp_path / "gone.md")}) == 1
    assert post_from_action({"GITGRAPH_POST_FILE": str(body), "GITGRAPH_PR": "-1"}) == 1
    err = capsys.readouterr().err
    assert "gone.md not found" in err and "positive integer" in err


def test_no_changes_still_updates_the_comment(project: Repo, tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    assert project.run_cli("comment", "HEAD...HEAD", "-o", str(body))[0] == 0
    text = body.read_text()
    assert text.startswith(MARKER) and "No changed symbols." in text and "<details>" not in text
