"""GitHub's REST API for the Action: one sticky pull-request comment, updated in place.

The token only ever travels in the `Authorization` header of requests to `api_url` (it is
not re-sent on redirects, and pagination links to other hosts are refused) and never
appears in an error message.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from email.message import Message
from typing import Any, NamedTuple

from gitgraph import __version__
from gitgraph.errors import GitGraphError

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
DEFAULT_MARKER = "<!-- gitgraph:impact -->"
MAX_COMMENT_CHARS = 65536  # GitHub answers 422 above this
ACTIONS_BOT = "github-actions[bot]"
MAX_TRIES = 4
MAX_WAIT_SECONDS = 60.0  # longer waits (an exhausted hourly quota) fail instead of stalling CI
MAX_PAGES = 100  # 10,000 comments

FORK_HINT = (
    "the token is read-only: pull requests from forks always get a read-only GITHUB_TOKEN, so "
    "run gitgraph in a `pull_request` job that uploads the comment body as an artifact and post "
    "it from a `workflow_run` job (see examples/workflows/); for same-repository pull requests "
    "grant `permissions: pull-requests: write`"
)
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="([^"]*)"')
_NOT_ACCESSIBLE = re.compile(r"not accessible by integration", re.IGNORECASE)
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class CommentResult:
    """The sticky comment after an upsert."""

    url: str
    id: int
    created: bool


class GitHubAPIError(GitGraphError):
    """GitHub refused a request; `status` is the HTTP status (0 when GitHub was unreachable).

    `reason` is GitHub's own message; `transient` marks failures that waiting could cure.
    """

    def __init__(
        self, message: str, status: int, *, reason: str = "", transient: bool = False
    ) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.transient = transient


class _Retry(GitHubAPIError):
    """A transient failure the caller asked to handle itself (a POST must not be replayed)."""

    def __init__(self, message: str, status: int, delay: float) -> None:
        super().__init__(message, status, transient=True)
        self.delay = delay


class _Response(NamedTuple):
    status: int
    headers: Message
    body: Any


class GitHubClient:
    """A small REST client for one repository: retries, pagination, errors a user can act on."""

    def __init__(
        self,
        api_url: str | None,
        token: str,
        repo: str,
        *,
        sleep: Callable[[float], None] = time.sleep,
        max_tries: int = MAX_TRIES,
        timeout: float = 30.0,
    ) -> None:
        url = (api_url or os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "https" and not (
            parts.scheme == "http" and parts.hostname in _LOOPBACK
        ):
            raise GitGraphError(f"GitHub API URL must be https: {url} (check GITHUB_API_URL)")
        if not token:
            raise GitGraphError("no GitHub token (set GITHUB_TOKEN, e.g. `${{ github.token }}`)")
        if not _REPO.fullmatch(repo):
            raise GitGraphError(f"repository must be owner/name, got {repo!r} (GITHUB_REPOSITORY)")
        self.api_url = url
        self.repo = repo
        self._origin = (parts.scheme, parts.netloc)
        self._token = token
        self._sleep = sleep
        self._max_tries = max(1, max_tries)
        self._timeout = timeout
        self._opener = urllib.request.build_opener()
        self._login: str | None = None
        self._login_known = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> GitHubClient:
        """A client from GITHUB_TOKEN (or GH_TOKEN), GITHUB_REPOSITORY and GITHUB_API_URL."""
        env = os.environ if env is None else env
        return cls(
            env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or "",
            env.get("GITHUB_REPOSITORY", ""),
        )

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self.api_url!r}, repo={self.repo!r})"

    # -- the sticky comment -------------------------------------------------------------

    def upsert_comment(
        self, number: int, body: str, marker: str = DEFAULT_MARKER, *, author: str | None = None
    ) -> CommentResult:
        """Create or update (in place) this tool's comment on PR/issue `number`.

        Ours is the first comment holding `marker` written by `author` (default: the token's
        identity, or `github-actions[bot]` when GitHub will not tell, as for Actions tokens).
        """
        if number <= 0:
            raise GitGraphError(f"pull request number must be positive, got {number}")
        if not (marker.startswith("<!--") and marker.endswith("-->")):
            raise GitGraphError(f"comment marker must be an HTML comment, got {marker!r}")
        if marker not in body:
            body = f"{marker}\n{body}"
        if len(body) > MAX_COMMENT_CHARS:
            raise GitGraphError(
                f"comment body is {len(body)} characters, GitHub accepts at most "
                f"{MAX_COMMENT_CHARS} (lower the token budget)"
            )
        for attempt in range(1, self._max_tries + 1):
            existing = self.find_comment(number, marker, author=author)
            try:
                if existing is None:
                    response = self._request(
                        "POST", self._url(f"/repos/{self.repo}/issues/{number}/comments"),
                        {"body": body}, retry=False,
                    )
                elif existing.get("body") == body:
                    return _comment_result(existing, created=False)
                else:
                    response = self._request(
                        "PATCH", self._url(f"/repos/{self.repo}/issues/comments/{existing['id']}"),
                        {"body": body}, retry=False,
                    )
            except _Retry as failure:
                if attempt == self._max_tries:
                    raise GitHubAPIError(
                        f"{failure} after {attempt} tries (GitHub may be degraded: re-run the job)",
                        failure.status, transient=True,
                    ) from None
                # Look again before writing again: the failed POST may have gone through.
                self._sleep(failure.delay)
                continue
            return _comment_result(response.body, created=existing is None)
        raise AssertionError("unreachable")  # pragma: no cover

    def find_comment(
        self, number: int, marker: str = DEFAULT_MARKER, *, author: str | None = None
    ) -> dict[str, Any] | None:
        """The first comment on `number` that holds `marker` and was written by us, or None."""
        login = author if author is not None else self.authenticated_login()
        for comment in self._comments(number):
            if not isinstance(comment, dict):
                raise GitGraphError(f"unexpected comment listing from {self.api_url}")
            if marker in (comment.get("body") or "") and _written_by(comment, login):
                return comment
        return None

    def authenticated_login(self) -> str | None:
        """The token's login from `GET /user`; None when GitHub says 403 (Actions/App tokens)."""
        if not self._login_known:
            try:
                user = self._request("GET", self._url("/user")).body
            except GitHubAPIError as error:
                if error.status != 403 or not _NOT_ACCESSIBLE.search(error.reason):
                    raise
                user = None
            if user is not None and not (
                isinstance(user, dict) and isinstance(user.get("login"), str)
            ):
                raise GitGraphError(f"unexpected answer from {self.api_url}/user (no login)")
            self._login = None if user is None else str(user["login"])
            self._login_known = True
        return self._login

    def _comments(self, number: int) -> Iterator[dict[str, Any]]:
        url: str | None = self._url(f"/repos/{self.repo}/issues/{number}/comments?per_page=100")
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self._request("GET", url)
            if not isinstance(response.body, list):
                raise GitGraphError(f"unexpected answer listing comments on {self.repo}#{number}")
            yield from response.body
            url = self._next_page(response.headers.get("Link"))
        raise GitGraphError(f"{self.repo}#{number} has over {MAX_PAGES * 100} comments (too many)")

    def _next_page(self, link: str | None) -> str | None:
        for target, rels in _LINK.findall(link or ""):
            if "next" in rels.split():
                parts = urllib.parse.urlsplit(target)
                if (parts.scheme, parts.netloc) != self._origin:
                    raise GitGraphError(f"refusing to follow a pagination link off {self.api_url}")
                return str(target)
        return None

    # -- HTTP -------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return self.api_url + path

    def _request(
        self, method: str, url: str, payload: Any = None, *, retry: bool = True
    ) -> _Response:
        what = f"{method} {urllib.parse.urlsplit(url).path}"
        for attempt in range(1, self._max_tries + 1):
            try:
                status, headers, raw = self._send(method, url, payload)
            except (OSError, http.client.HTTPException) as error:  # URLError is an OSError
                reason = getattr(error, "reason", error)
                status, delay = 0, _backoff(attempt)
                failure = f"cannot reach {self.api_url} for {what}: {self._redact(str(reason))}"
            else:
                if status < 300:
                    return _Response(status, headers, self._json(raw, what))
                delay_or_none = _retry_delay(status, headers, raw, attempt)
                if delay_or_none is None:
                    raise self._error(status, headers, raw, what)
                delay = delay_or_none
                said = self._redact(_message(raw))
                failure = f"GitHub answered {status} {said}".rstrip() + f" to {what}"
            if not retry:
                raise _Retry(failure, status, delay)
            if attempt == self._max_tries:
                break
            self._sleep(delay)
        raise GitHubAPIError(
            f"{failure} after {self._max_tries} tries (GitHub may be degraded: re-run the job)",
            status, transient=True,
        )

    def _send(self, method: str, url: str, payload: Any) -> tuple[int, Message, bytes]:
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", API_VERSION)
        request.add_header("User-Agent", f"gitgraph/{__version__}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        # Unredirected: urllib would otherwise copy the header to wherever a redirect points.
        request.add_unredirected_header("Authorization", f"Bearer {self._token}")
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.headers, error.read()

    def _json(self, raw: bytes, what: str) -> Any:
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise GitGraphError(
                f"{what} did not answer JSON (is {self.api_url} a GitHub API URL?)"
            ) from None

    def _redact(self, text: str) -> str:
        return text.replace(self._token, "***")

    def _error(self, status: int, headers: Message, raw: bytes, what: str) -> GitHubAPIError:
        message = self._redact(_message(raw))
        said = f"GitHub answered {status} {message}".rstrip() + f" to {what}"
        transient = False
        if status == 401:
            hint = "check that GITHUB_TOKEN holds a valid, unexpired token"
        elif status == 403 and _NOT_ACCESSIBLE.search(message):
            hint = FORK_HINT if what.split()[0] in ("POST", "PATCH") else (
                "the token lacks a permission: grant `pull-requests: write`"
            )
        elif status in (403, 429) and headers.get("x-ratelimit-remaining") == "0":
            reset = _reset_time(headers)
            hint = f"API rate limit exhausted{reset}: wait, or use a token with a higher limit"
            transient = True
        elif status == 403:
            hint = "check the token's permissions: `pull-requests: write`"
        elif status == 404:
            hint = f"check the repository {self.repo}, the number, and that the token can see them"
        elif status == 422:
            hint = "GitHub refused the content; a body over 65,536 characters is one cause"
        elif status >= 500 or status == 429:
            hint = "GitHub is having trouble or throttling: re-run the job later"
            transient = True
        else:
            hint = "unexpected answer"
        return GitHubAPIError(f"{said} ({hint})", status, reason=message, transient=transient)


def _comment_result(comment: Any, *, created: bool) -> CommentResult:
    if not (isinstance(comment, dict) and isinstance(comment.get("id"), int)
            and isinstance(comment.get("html_url"), str)):
        raise GitGraphError("unexpected comment object from GitHub (no id or html_url)")
    return CommentResult(url=comment["html_url"], id=comment["id"], created=created)


def _written_by(comment: Mapping[str, Any], login: str | None) -> bool:
    user = comment.get("user")
    if not isinstance(user, dict):  # a deleted account ("ghost") can come back as null
        return False
    if login is not None:
        return str(user.get("login", "")).casefold() == login.casefold()
    # Actions tokens cannot call /user; their comments are by the Actions bot.
    return user.get("type") == "Bot" and user.get("login") == ACTIONS_BOT


def _message(raw: bytes) -> str:
    try:
        body = json.loads(raw)
    except ValueError:
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    return " ".join(str(message).split())[:300] if message else ""


def _backoff(attempt: int) -> float:
    return float(2 ** (attempt - 1))  # 1, 2, 4 s


def _retry_delay(status: int, headers: Message, raw: bytes, attempt: int) -> float | None:
    """Seconds to wait before retrying, or None when retrying cannot help."""
    retry_after = _retry_after(headers)
    if status in (403, 429) and headers.get("x-ratelimit-remaining") == "0":
        try:
            wait = float(headers.get("x-ratelimit-reset", "")) - time.time() + 1
        except ValueError:
            wait = _backoff(attempt)
        wait = max(wait, retry_after or 0.0, 1.0)
        return wait if wait <= MAX_WAIT_SECONDS else None
    if retry_after is not None:
        return retry_after if retry_after <= MAX_WAIT_SECONDS else None
    if status == 429 or status >= 500:
        return _backoff(attempt)
    if status == 403 and "secondary rate limit" in _message(raw).lower():
        return MAX_WAIT_SECONDS  # GitHub asks for at least a minute
    return None


def _retry_after(headers: Message) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # the HTTP-date form
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _reset_time(headers: Message) -> str:
    try:
        reset = float(headers.get("x-ratelimit-reset", ""))
    except ValueError:
        return ""
    return time.strftime(" until %H:%M UTC", time.gmtime(reset))
