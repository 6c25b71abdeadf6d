"""gitgraph.github against a real local HTTP server held to GitHub's OpenAPI description."""

from __future__ import annotations

import copy
import json
import socket
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from jsonschema.exceptions import ValidationError

from gitgraph.actions import MAX_STEP_SUMMARY_BYTES, event_shas, set_output, write_step_summary
from gitgraph.errors import GitGraphError
from gitgraph.github import (
    ACTIONS_BOT,
    DEFAULT_MARKER,
    MAX_COMMENT_CHARS,
    CommentResult,
    GitHubAPIError,
    GitHubClient,
)

try:  # tests/ may or may not become a package; the helper is found either way
    from tests import github_server as fake
except ImportError:  # pragma: no cover - depends on how pytest was started
    import github_server as fake  # type: ignore[no-redef]

ACTIONS_TOKEN, ALICE_TOKEN, REPO = fake.ACTIONS_TOKEN, fake.ALICE_TOKEN, fake.REPO
ALICE, BOB, BOT_USER = fake.ALICE, fake.BOB, fake.ACTIONS_BOT
FakeGitHub, spec, user = fake.FakeGitHub, fake.spec, fake.user

DATA = Path(__file__).parent / "data" / "github"
EVENT = DATA / "event-pull_request.json"
COMMENT_SCHEMA = "/components/schemas/issue-comment"
WEBHOOK_SCHEMA = "/components/schemas/webhook-pull-request-opened"

MakeClient = Callable[..., GitHubClient]


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    """A fake GitHub on 127.0.0.1; the test fails if any exchange broke the description."""
    monkeypatch.setenv("no_proxy", "*")  # never route loopback traffic through a proxy
    monkeypatch.setenv("NO_PROXY", "*")
    with FakeGitHub() as server:
        yield server
    assert len(server.statuses) == len(server.requests)  # every answer went through the checks
    assert server.violations == []


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make_client(github: FakeGitHub, sleeps: list[float]) -> MakeClient:
    def make(token: str = ACTIONS_TOKEN, **kwargs: object) -> GitHubClient:
        return GitHubClient(github.url, token, REPO, sleep=sleeps.append, **kwargs)  # type: ignore[arg-type]

    return make


def _calls(github: FakeGitHub) -> list[str]:
    return [f"{r.method} {r.path}" for r in github.requests]


# -- the sticky comment ---------------------------------------------------------------


def test_creates_comment_when_absent(github: FakeGitHub, make_client: MakeClient) -> None:
    result = make_client().upsert_comment(7, "## Impact\n\nbody")
    assert result.created is True
    [comment] = github.comments[7]
    assert result == CommentResult(url=comment["html_url"], id=comment["id"], created=True)
    assert comment["body"] == f"{DEFAULT_MARKER}\n## Impact\n\nbody"
    assert comment["user"]["login"] == ACTIONS_BOT
    # An Actions token cannot call /user: the 403 is expected and answered by the bot rule.
    assert _calls(github) == [
        "GET /user",
        f"GET /repos/{REPO}/issues/7/comments",
        f"POST /repos/{REPO}/issues/7/comments",
    ]
    assert github.statuses == [403, 200, 201]
    assert github.requests[1].query == {"per_page": ["100"]}


def test_updates_in_place(github: FakeGitHub, make_client: MakeClient) -> None:
    client = make_client()
    first = client.upsert_comment(7, "first")
    second = client.upsert_comment(7, "second")
    assert second == CommentResult(url=first.url, id=first.id, created=False)
    assert [c["body"] for c in github.comments[7]] == [f"{DEFAULT_MARKER}\nsecond"]
    assert [(w.method, w.path) for w in github.writes()] == [
        ("POST", f"/repos/{REPO}/issues/7/comments"),
        ("PATCH", f"/repos/{REPO}/issues/comments/{first.id}"),
    ]
    assert github.writes()[1].body == {"body": f"{DEFAULT_MARKER}\nsecond"}


def test_unchanged_body_is_not_rewritten(github: FakeGitHub, make_client: MakeClient) -> None:
    client = make_client()
    first = client.upsert_comment(7, "same")
    again = client.upsert_comment(7, "same")
    assert again == CommentResult(first.url, first.id, created=False)
    assert len(github.writes()) == 1


def test_marker_already_in_body_is_not_added_twice(
    github: FakeGitHub, make_client: MakeClient
) -> None:
    body = f"intro\n{DEFAULT_MARKER}\nrest"
    make_client().upsert_comment(3, body)
    assert github.comments[3][0]["body"] == body


def test_pagination_finds_marker_on_page_2(github: FakeGitHub, make_client: MakeClient) -> None:
    for i in range(130):
        github.add_comment(9, f"chatter {i}", BOB)
    ours = github.add_comment(9, f"{DEFAULT_MARKER}\nold", ALICE)
    for i in range(20):
        github.add_comment(9, f"later {i}", BOB)
    result = make_client(ALICE_TOKEN).upsert_comment(9, "new")
    assert result == CommentResult(ours["html_url"], ours["id"], created=False)
    listing = [r for r in github.requests if r.method == "GET" and r.path.endswith("/comments")]
    assert [r.query for r in listing] == [
        {"per_page": ["100"]},
        {"per_page": ["100"], "page": ["2"]},
    ]
    assert len(github.comments[9]) == 151
    assert ours["body"] == f"{DEFAULT_MARKER}\nnew"
    assert [w.method for w in github.writes()] == ["PATCH"]


def test_pagination_walks_every_page_when_absent(
    github: FakeGitHub, make_client: MakeClient
) -> None:
    for i in range(250):
        github.add_comment(5, f"c{i}", BOB)
    make_client().upsert_comment(5, "x")
    listing = [r for r in github.requests if r.method == "GET" and r.path.endswith("/5/comments")]
    pages = [r.query.get("page", ["1"])[0] for r in listing]
    assert pages == ["1", "2", "3"]
    assert len(github.comments[5]) == 251


def test_ignores_marker_written_by_someone_else(
    github: FakeGitHub, make_client: MakeClient
) -> None:
    quoted = github.add_comment(4, f"> {DEFAULT_MARKER} quoted by a human", BOB)
    app = user("other-app[bot]", 5, "Bot")
    other_bot = github.add_comment(4, f"{DEFAULT_MARKER}\nfrom another app", app)
    result = make_client().upsert_comment(4, "ours")
    assert result.created is True
    assert quoted["body"] == f"> {DEFAULT_MARKER} quoted by a human"
    assert other_bot["body"] == f"{DEFAULT_MARKER}\nfrom another app"
    assert [w.method for w in github.writes()] == ["POST"]


def test_personal_token_matches_its_own_login(github: FakeGitHub, make_client: MakeClient) -> None:
    bots = github.add_comment(2, f"{DEFAULT_MARKER}\nbot", BOT_USER)
    result = make_client(ALICE_TOKEN).upsert_comment(2, "alice's")
    assert result.created is True
    assert bots["body"] == f"{DEFAULT_MARKER}\nbot"


def test_explicit_author_skips_user_lookup(github: FakeGitHub, make_client: MakeClient) -> None:
    mine = github.add_comment(2, f"{DEFAULT_MARKER}\nold", BOT_USER)
    result = make_client().upsert_comment(2, "new", author="github-actions[bot]")
    assert result.id == mine["id"] and not result.created
    assert "GET /user" not in _calls(github)


# -- retries --------------------------------------------------------------------------


def test_retries_502_then_succeeds(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    github.fail(502, "Server Error", method="GET")
    result = make_client().upsert_comment(1, "x")
    assert result.created
    assert sleeps == [1.0]
    assert github.statuses[:2] == [502, 403]


def test_failed_post_looks_again_before_posting_again(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    github.fail(502, "Server Error", method="POST")
    make_client().upsert_comment(1, "x")
    assert sleeps == [1.0]
    assert len(github.comments[1]) == 1
    assert [f"{r.method}" for r in github.requests] == ["GET", "GET", "POST", "GET", "POST"]


def test_429_waits_for_retry_after(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    github.fail(429, "You have exceeded a secondary rate limit.", headers={"Retry-After": "7"})
    make_client().upsert_comment(1, "x")
    assert sleeps == [7.0]


def test_403_rate_limit_waits_until_reset(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    reset = str(int(time.time()) + 5)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    github.fail(403, "API rate limit exceeded for installation ID 1.", headers=headers,
                method="GET")
    make_client(ALICE_TOKEN).upsert_comment(1, "x")
    assert len(sleeps) == 1 and 1.0 <= sleeps[0] <= 7.0


def test_403_secondary_limit_with_retry_after(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    github.fail(403, "You have exceeded a secondary rate limit.", headers={"Retry-After": "2"},
                method="POST")
    make_client().upsert_comment(1, "x")
    assert sleeps == [2.0]
    assert len(github.comments[1]) == 1


def test_exhausted_hourly_quota_fails_fast(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 3000)}
    github.fail(403, "API rate limit exceeded for user ID 101.", headers=headers)
    with pytest.raises(GitHubAPIError, match="rate limit exhausted until") as caught:
        make_client(ALICE_TOKEN).upsert_comment(1, "x")
    assert caught.value.status == 403
    assert sleeps == []


def test_gives_up_after_four_tries(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    github.fail(502, "Server Error", times=10)
    with pytest.raises(GitHubAPIError, match="502 Server Error to GET /user after 4 tries"):
        make_client().upsert_comment(1, "x")
    assert sleeps == [1.0, 2.0, 4.0]
    assert len(github.requests) == 4


def test_401_is_not_retried_and_names_the_token(
    github: FakeGitHub, make_client: MakeClient, sleeps: list[float]
) -> None:
    with pytest.raises(GitHubAPIError, match=r"401 Bad credentials.*GITHUB_TOKEN") as caught:
        make_client("ghp_wrong_S3CRET").upsert_comment(1, "x")
    assert caught.value.status == 401
    assert sleeps == [] and len(github.requests) == 1


def test_fork_pull_request_gets_the_two_workflow_explanation(
    github: FakeGitHub, make_client: MakeClient
) -> None:
    github.read_only = True
    with pytest.raises(GitGraphError) as caught:
        make_client().upsert_comment(1, "x")
    message = str(caught.value)
    assert "Resource not accessible by integration" in message
    assert "forks" in message and "workflow_run" in message and "examples/workflows/" in message
    assert "\n" not in message
    assert 1 not in github.comments


def test_body_over_limit_is_refused_before_sending(
    github: FakeGitHub, make_client: MakeClient
) -> None:
    too_long = "x" * (MAX_COMMENT_CHARS - len(DEFAULT_MARKER))  # the marker line tips it over
    with pytest.raises(GitGraphError, match="65536"):
        make_client().upsert_comment(1, too_long)
    assert github.requests == []
    exact = "x" * (MAX_COMMENT_CHARS - len(DEFAULT_MARKER) - 1)
    assert make_client().upsert_comment(1, exact).created
    assert len(github.comments[1][0]["body"]) == MAX_COMMENT_CHARS


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_token_never_appears_in_errors_or_output(
    github: FakeGitHub, sleeps: list[float], capfd: pytest.CaptureFixture[str]
) -> None:
    secret = ACTIONS_TOKEN
    failures: list[BaseException] = []
    scenarios: list[Callable[[], object]] = []

    def echo_token() -> None:  # a server that echoes the token back must not leak it
        github.fail(500, f"boom {secret}", times=10)
        GitHubClient(github.url, secret, REPO, sleep=sleeps.append).upsert_comment(1, "x")

    def read_only() -> None:
        github.faults.clear()
        github.read_only = True
        GitHubClient(github.url, secret, REPO, sleep=sleeps.append).upsert_comment(1, "x")

    def unreachable() -> None:
        url = f"http://127.0.0.1:{_free_port()}"
        GitHubClient(url, secret, REPO, sleep=sleeps.append).upsert_comment(1, "x")

    def bad_credentials() -> None:
        GitHubClient(github.url, secret + "x", REPO, sleep=sleeps.append).upsert_comment(1, "x")

    scenarios += [echo_token, read_only, unreachable, bad_credentials]
    for scenario in scenarios:
        with pytest.raises(GitGraphError) as caught:
            scenario()
        failures.append(caught.value)
    github.read_only = False
    for failure in failures:
        text = "".join(traceback.format_exception(failure)) + repr(failure)
        assert secret not in text
        assert secret[4:-4] not in text
    assert "***" in str(failures[0])
    assert secret not in repr(GitHubClient(github.url, secret, REPO))
    out, err = capfd.readouterr()
    assert secret not in out + err
    # The token did reach the server, in the Authorization header only.
    assert all(r.headers["authorization"].startswith("Bearer ") for r in github.requests)


def test_pagination_link_to_another_host_is_refused(github: FakeGitHub) -> None:
    client = GitHubClient(github.url, ACTIONS_TOKEN, REPO)
    assert client._next_page(f'<{github.url}/x?page=2>; rel="next"') == f"{github.url}/x?page=2"
    with pytest.raises(GitGraphError, match="pagination link"):
        client._next_page('<https://evil.example/x?page=2>; rel="next"')
    assert client._next_page('<https://evil.example/x?page=1>; rel="prev"') is None


# -- construction ---------------------------------------------------------------------


def test_client_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_API_URL", "https://ghe.example.com/api/v3/")
    assert GitHubClient(None, "t", "o/r").api_url == "https://ghe.example.com/api/v3"
    monkeypatch.delenv("GITHUB_API_URL")
    assert GitHubClient(None, "t", "o/r").api_url == "https://api.github.com"
    with pytest.raises(GitGraphError, match="https"):
        GitHubClient("http://api.example.com", "t", "o/r")
    with pytest.raises(GitGraphError, match="owner/name"):
        GitHubClient(None, "t", "just-a-name")
    with pytest.raises(GitGraphError, match="GITHUB_TOKEN"):
        GitHubClient(None, "", "o/r")
    client = GitHubClient.from_env({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r"})
    assert (client.api_url, client.repo) == ("https://api.github.com", "o/r")


# -- the description itself -----------------------------------------------------------


def test_fixture_records_its_source() -> None:
    source = spec().document["x-source"]
    assert source["package"] == "@octokit/openapi"
    assert source["version"] == spec().version
    assert spec().document["openapi"].startswith("3.0")


def test_validator_rejects_a_comment_without_id(github: FakeGitHub) -> None:
    comment = copy.deepcopy(github.add_comment(1, "x", BOB))
    spec().validate(comment, COMMENT_SCHEMA)
    del comment["id"]
    with pytest.raises(ValidationError, match="'id' is a required property"):
        spec().validate(comment, COMMENT_SCHEMA)


def test_validator_understands_nullable(github: FakeGitHub) -> None:
    comment = copy.deepcopy(github.add_comment(1, "x", BOB))
    comment["performed_via_github_app"] = None  # `nullable: true` in OpenAPI 3.0
    spec().validate(comment, COMMENT_SCHEMA)
    comment["node_id"] = None  # not nullable
    with pytest.raises(ValidationError):
        spec().validate(comment, COMMENT_SCHEMA)


def test_server_checks_flag_bad_exchanges() -> None:
    openapi = spec()
    comments = "/repos/{owner}/{repo}/issues/{issue_number}/comments"
    params = {"owner": "o", "repo": "r", "issue_number": "1"}
    json_headers = {"content-type": "application/json"}
    assert openapi.check_request(comments, "post", params, {}, json_headers, b'{"body": "x"}') == []
    assert openapi.check_request(comments, "post", params, {}, json_headers, b'{"text": "x"}')
    assert openapi.check_request(comments, "get", params, {"per_page": ["many"]}, {}, b"")
    assert openapi.check_request(comments, "get", params, {"sort": ["x"]}, {}, b"")
    assert openapi.check_request(comments, "delete", params, {}, {}, b"")
    assert openapi.check_response(comments, "post", 201, {}, {"id": 1})
    assert openapi.check_response(comments, "post", 418, {}, {"message": "teapot"})
    assert openapi.check_response(comments, "get", 502, {}, {"message": 5})
    assert openapi.check_response(comments, "get", 502, {}, {"message": "Server Error"}) == []


def test_server_records_violations_of_its_own_answers(
    monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("NO_PROXY", "*")
    with FakeGitHub() as server:
        create = server._create

        def without_id(number: int, body: str, author: dict[str, object]) -> dict[str, object]:
            comment = create(number, body, author)  # type: ignore[arg-type]
            del comment["id"]
            return comment

        monkeypatch.setattr(server, "_create", without_id)
        client = GitHubClient(server.url, ACTIONS_TOKEN, REPO, sleep=sleeps.append)
        with pytest.raises(GitGraphError, match="no id"):
            client.upsert_comment(1, "x")
    assert any("'id' is a required property" in v for v in server.violations)


def test_event_fixture_matches_the_webhook_schema() -> None:
    payload = json.loads(EVENT.read_text())
    spec().validate(payload, WEBHOOK_SCHEMA)
    broken = copy.deepcopy(payload)
    del broken["pull_request"]["base"]["sha"]
    with pytest.raises(ValidationError):
        spec().validate(broken, WEBHOOK_SCHEMA)


# -- event, summary, outputs ----------------------------------------------------------


def test_event_shas_from_pull_request_payload(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = json.loads(EVENT.read_text())
    expected = (payload["pull_request"]["base"]["sha"], payload["pull_request"]["head"]["sha"], 42)
    assert event_shas(EVENT, event_name="pull_request") == expected
    assert event_shas(EVENT, event_name="pull_request_target") == expected
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(EVENT))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    assert event_shas() == expected


def test_event_shas_refuses_other_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    push = tmp_path / "push.json"
    push.write_text(json.dumps({"ref": "refs/heads/main", "after": "a" * 40}))
    with pytest.raises(GitGraphError, match="event `push` is not a pull request"):
        event_shas(push, event_name="push")
    given = event_shas(push, event_name="push", base_sha="b" * 40, head_sha="c" * 40)
    assert given == ("b" * 40, "c" * 40, None)
    with pytest.raises(GitGraphError, match="not a pull request"):
        event_shas()
    with pytest.raises(GitGraphError, match="not found"):
        event_shas(tmp_path / "missing.json", event_name="pull_request")
    with pytest.raises(GitGraphError, match="full SHA"):
        event_shas(EVENT, event_name="pull_request", base_sha="main")


def test_step_summary_appends_and_enforces_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert write_step_summary("# x") is False
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert write_step_summary("# one") is True
    assert write_step_summary("two\n") is True
    assert summary.read_text() == "# one\ntwo\n"
    with pytest.raises(GitGraphError, match="1048576"):
        write_step_summary("x" * MAX_STEP_SUMMARY_BYTES)
    assert summary.read_text() == "# one\ntwo\n"


def _parse_github_output(text: str) -> dict[str, str]:
    """The runner's reading of $GITHUB_OUTPUT (`name=value` and `name<<DELIM` records)."""
    values: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            values[line[:equals]] = line[equals + 1:]
            continue
        name, delimiter = line[:heredoc], line[heredoc + 2:]
        collected = []
        for inner in lines:
            if inner == delimiter:
                break
            collected.append(inner)
        else:
            raise AssertionError(f"unterminated heredoc for {name}")
        values[name] = "\n".join(collected)
    return values


def test_set_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    assert set_output("x", "1") is False
    output = tmp_path / "output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    tricky = "line one\nEOF\nname=value\nx<<EOF\n"
    assert set_output("comment-url", "https://github.com/o/r/pull/1#c=2")
    assert set_output("body", tricky)
    assert set_output("tokens", "1873")
    assert _parse_github_output(output.read_text()) == {
        "comment-url": "https://github.com/o/r/pull/1#c=2",
        "body": tricky,
        "tokens": "1873",
    }
    with pytest.raises(GitGraphError, match="output name"):
        set_output("bad=name", "x")
