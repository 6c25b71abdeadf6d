"""A local stand-in for GitHub's REST API, held to GitHub's published OpenAPI description.

`FakeGitHub` serves the endpoints gitgraph/github.py uses on 127.0.0.1 (port 0, in a
thread). Every request it receives and every response it sends is checked against
tests/data/github/openapi-subset.json (cut from `@octokit/openapi` by
tests/extract_openapi.py); a mismatch is recorded in `violations`, and the test fixture
fails when that list is not empty. So a test passes only if both the client's requests and
this server's answers are what GitHub documents.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from openapi_schema_validator import OAS30ReadValidator, OAS30WriteValidator, oas30_format_checker
from referencing import Registry
from referencing.jsonschema import DRAFT4

SPEC_PATH = Path(__file__).parent / "data" / "github" / "openapi-subset.json"
SPEC_URI = "urn:gitgraph:tests:github-openapi-subset"

# Statuses GitHub sends on any endpoint, whose per-operation lists in the description omit
# them (e.g. 401 and 5xx on "create an issue comment"). Their bodies must still be GitHub's
# documented error object, `basic-error`.
UNDOCUMENTED_ERRORS = frozenset({401, 403, 429, 500, 502, 503, 504})

REPO = "octo-org/hello-world"
DOCS = "https://docs.github.com/rest"


class OpenAPI:
    """The subset document, with schema validators that resolve its `$ref`s."""

    def __init__(self, path: Path = SPEC_PATH) -> None:
        self.document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        self.version: str = self.document["x-source"]["version"]
        resource = DRAFT4.create_resource(self.document)
        self._registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)

    def resolve(self, node: Any) -> Any:
        """Follow a local `$ref` (OpenAPI objects such as parameters and responses)."""
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.document
            for part in node["$ref"][2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def validator(self, pointer: str, *, write: bool = False) -> Validator:
        """A validator for the schema at JSON pointer `pointer` (request or response side)."""
        cls = OAS30WriteValidator if write else OAS30ReadValidator
        validator: Validator = cls(
            {"$ref": f"{SPEC_URI}#{pointer}"},
            registry=self._registry,
            format_checker=oas30_format_checker,
        )
        return validator

    def errors(self, instance: Any, pointer: str, *, write: bool = False) -> list[str]:
        """Every way `instance` fails the schema at `pointer`, as readable strings."""
        found = self.validator(pointer, write=write).iter_errors(instance)
        return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in found]

    def validate(self, instance: Any, pointer: str, *, write: bool = False) -> None:
        """Raise jsonschema's ValidationError when `instance` fails the schema at `pointer`."""
        error: ValidationError | None = next(
            iter(self.validator(pointer, write=write).iter_errors(instance)), None
        )
        if error is not None:
            raise error

    def operation_pointer(self, template: str, method: str) -> str:
        return "/paths/" + template.replace("~", "~0").replace("/", "~1") + "/" + method

    def check_request(
        self, template: str, method: str, path_params: dict[str, str],
        query: dict[str, list[str]], headers: dict[str, str], body: bytes,
    ) -> list[str]:
        """Problems with a request, judged by the operation's parameters and request body."""
        where = f"{method.upper()} {template}"
        operation = self.document["paths"].get(template, {}).get(method)
        if operation is None:
            return [f"{where}: not an operation in the description"]
        problems: list[str] = []
        values = {("path", k): [v] for k, v in path_params.items()}
        values.update({("query", k): v for k, v in query.items()})
        declared = set()
        for parameter in map(self.resolve, operation.get("parameters", [])):
            key = (parameter["in"], parameter["name"])
            declared.add(key)
            if key not in values:
                if parameter.get("required"):
                    problems.append(f"{where}: missing required {key[0]} parameter {key[1]}")
                continue
            if len(values[key]) != 1:
                problems.append(f"{where}: parameter {key[1]} given {len(values[key])} times")
            value = _coerce(values[key][0], parameter["schema"])
            for problem in _schema_errors(parameter["schema"], value):
                problems.append(f"{where}: parameter {key[1]}={values[key][0]!r}: {problem}")
        problems += [f"{where}: undocumented {k[0]} parameter {k[1]}"
                     for k in values if k not in declared]
        request_body = operation.get("requestBody")
        if request_body is None:
            if body:
                problems.append(f"{where}: sends a body the operation does not take")
        elif not body:
            if request_body.get("required"):
                problems.append(f"{where}: request body is required")
        elif not headers.get("content-type", "").startswith("application/json"):
            problems.append(f"{where}: body sent as {headers.get('content-type')!r}, not JSON")
        else:
            pointer = self.operation_pointer(template, method)
            pointer += "/requestBody/content/application~1json/schema"
            try:
                problems += [f"{where} request: {p}" for p in
                             self.errors(json.loads(body), pointer, write=True)]
            except ValueError:
                problems.append(f"{where}: request body is not JSON")
        return problems

    def check_response(
        self, template: str, method: str, status: int, headers: dict[str, str], body: Any
    ) -> list[str]:
        """Problems with a response: its status must be declared, its body must fit."""
        where = f"{method.upper()} {template} -> {status}"
        operation = self.document["paths"].get(template, {}).get(method)
        if operation is None:
            return [f"{where}: not an operation in the description"]
        responses = operation["responses"]
        if str(status) not in responses:
            if status not in UNDOCUMENTED_ERRORS:
                return [f"{where}: status not declared for this operation"]
            return [f"{where}: {p}" for p in
                    self.errors(body, "/components/schemas/basic-error")]
        response = self.resolve(responses[str(status)])
        media = response.get("content", {}).get("application/json")
        if media is None:
            return [] if body is None else [f"{where}: declared without a body, sent one"]
        pointer = self.operation_pointer(template, method) + f"/responses/{status}"
        if "$ref" in responses[str(status)]:
            pointer = responses[str(status)]["$ref"][1:]
        problems = [f"{where}: {p}" for p in
                    self.errors(body, pointer + "/content/application~1json/schema")]
        for name, header in response.get("headers", {}).items():
            value = headers.get(name.lower())
            if value is not None:
                schema = self.resolve(header)["schema"]
                problems += [f"{where}: header {name}: {p}" for p in _schema_errors(schema, value)]
        return problems


def _coerce(value: str, schema: dict[str, Any]) -> Any:
    """A query/path string as the typed value its schema expects (form style, primitives)."""
    if schema.get("type") == "integer" and re.fullmatch(r"-?\d+", value):
        return int(value)
    return value


def _schema_errors(schema: dict[str, Any], value: Any) -> list[str]:
    validator = OAS30ReadValidator(schema, format_checker=oas30_format_checker)
    return [e.message for e in validator.iter_errors(value)]


@cache
def spec() -> OpenAPI:
    """The subset description, loaded once per test session."""
    return OpenAPI()


# -- fake GitHub ------------------------------------------------------------------------


def user(login: str, user_id: int, kind: str = "User") -> dict[str, Any]:
    """A `simple-user` object as GitHub returns it."""
    api = f"https://api.github.com/users/{urllib.parse.quote(login)}"
    return {
        "login": login, "id": user_id, "node_id": f"MDQ6VXNlcn{user_id}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{user_id}?v=4",
        "gravatar_id": "", "url": api, "html_url": f"https://github.com/{login}",
        "followers_url": f"{api}/followers", "following_url": f"{api}/following{{/other_user}}",
        "gists_url": f"{api}/gists{{/gist_id}}", "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api}/subscriptions", "organizations_url": f"{api}/orgs",
        "repos_url": f"{api}/repos", "events_url": f"{api}/events{{/privacy}}",
        "received_events_url": f"{api}/received_events", "type": kind,
        "user_view_type": "public", "site_admin": False,
    }


def private_user(login: str, user_id: int) -> dict[str, Any]:
    """What `GET /user` returns for a personal access token (`private-user`)."""
    return {
        **user(login, user_id), "user_view_type": "private", "name": login.title(),
        "company": None, "blog": "", "location": None, "email": None, "hireable": None,
        "bio": None, "twitter_username": None, "public_repos": 3, "public_gists": 0,
        "followers": 1, "following": 0, "created_at": "2020-01-02T03:04:05Z",
        "updated_at": "2024-05-06T07:08:09Z", "private_gists": 0, "total_private_repos": 0,
        "owned_private_repos": 0, "disk_usage": 10, "collaborators": 0,
        "two_factor_authentication": True,
        "plan": {"name": "free", "space": 976562499, "private_repos": 10000, "collaborators": 0},
    }


ALICE = private_user("alice", 101)
BOB = user("bob", 202)
ACTIONS_BOT = user("github-actions[bot]", 41898282, "Bot")

# token -> the identity it acts as; `None` marks an Actions/App installation token (no /user).
TOKENS: dict[str, dict[str, Any] | None] = {
    "ghp_alice_S3CRET_token_value": ALICE,
    "ghs_actions_S3CRET_token_value": None,
}
ACTIONS_TOKEN = "ghs_actions_S3CRET_token_value"
ALICE_TOKEN = "ghp_alice_S3CRET_token_value"


@dataclass
class Fault:
    """One canned failure; `times` answers, for requests matching `method` (any when None)."""

    status: int
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    method: str | None = None
    times: int = 1


@dataclass
class Recorded:
    """A request as the server saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


class FakeGitHub:
    """Issue comments, `GET /user`, pagination and faults, on a real local HTTP server."""

    def __init__(self, openapi: OpenAPI | None = None) -> None:
        self.openapi = openapi or spec()
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[Recorded] = []
        self.statuses: list[int] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self.read_only = False  # a fork PR's token: writes answer 403
        self._next_id = 1_000_000
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- test controls --

    def add_comment(self, number: int, body: str, author: dict[str, Any]) -> dict[str, Any]:
        """Seed a comment on issue `number` as `author`."""
        with self._lock:
            return self._create(number, body, author)

    def fail(self, status: int, message: str, *, headers: dict[str, str] | None = None,
             method: str | None = None, times: int = 1) -> None:
        """Answer the next `times` matching requests with this error."""
        self.faults.append(Fault(status, message, headers or {}, method, times))

    def writes(self) -> list[Recorded]:
        """The POST and PATCH requests received, in order."""
        return [r for r in self.requests if r.method in ("POST", "PATCH")]

    # -- behaviour --

    def _create(self, number: int, body: str, author: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        cid = self._next_id
        base = f"https://api.github.com/repos/{REPO}"
        comment = {
            "id": cid, "node_id": f"IC_kwDOA{cid}", "url": f"{base}/issues/comments/{cid}",
            "html_url": f"https://github.com/{REPO}/pull/{number}#issuecomment-{cid}",
            "issue_url": f"{base}/issues/{number}", "body": body, "user": author,
            "created_at": "2024-05-06T07:08:09Z", "updated_at": "2024-05-06T07:08:09Z",
            "author_association": "CONTRIBUTOR" if author["type"] == "User" else "NONE",
            "performed_via_github_app": None,
            "reactions": {
                "url": f"{base}/issues/comments/{cid}/reactions", "total_count": 0, "+1": 0,
                "-1": 0, "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0,
                "eyes": 0,
            },
        }
        self.comments.setdefault(number, []).append(comment)
        return comment

    def _find(self, comment_id: int) -> dict[str, Any] | None:
        for comments in self.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    return comment
        return None

    def handle(self, method: str, raw_path: str, headers: dict[str, str],
               body: bytes) -> tuple[str | None, int, dict[str, str], Any]:
        """(operation template, status, headers, JSON body) for one request."""
        split = urllib.parse.urlsplit(raw_path)
        query = urllib.parse.parse_qs(split.query, keep_blank_values=True)
        template, params = _route(split.path)
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(Recorded(method, split.path, query, headers, parsed))
            self.violations += _header_problems(method, split.path, headers)
            if template is None:
                self.violations.append(f"{method} {split.path}: no such operation")
                return None, 404, {}, _error("Not Found", 404)
            self.violations += self.openapi.check_request(
                template, method.lower(), params, query, headers, body
            )
            fault = next((f for f in self.faults if f.method in (None, method)), None)
            if fault is not None:
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
                return template, fault.status, fault.headers, _error(fault.message, fault.status)
            token = headers.get("authorization", "").removeprefix("Bearer ")
            if token not in TOKENS:
                return template, 401, {}, _error("Bad credentials", 401)
            status, answer, extra = self._answer(
                template, method, params, query, parsed, TOKENS[token]
            )
            return template, status, extra, answer

    def _answer(self, template: str, method: str, params: dict[str, str],
                query: dict[str, list[str]], body: Any,
                identity: dict[str, Any] | None) -> tuple[int, Any, dict[str, str]]:
        status, answer = self._resource(template, method, params, query, body, identity)
        if template.endswith("/comments") and method == "GET" and status == 200:
            number, comments = int(params["issue_number"]), answer
            per_page = min(int(query.get("per_page", ["30"])[0]), 100)
            page = int(query.get("page", ["1"])[0])
            link = _link(self.url, params, number, page, per_page, len(comments))
            chunk = comments[(page - 1) * per_page: page * per_page]
            return 200, chunk, ({"Link": link} if link else {})
        return status, answer, {}

    def _resource(self, template: str, method: str, params: dict[str, str],
                  query: dict[str, list[str]], body: Any,
                  identity: dict[str, Any] | None) -> tuple[int, Any]:
        if template == "/user":
            if identity is None:
                return 403, _error("Resource not accessible by integration", 403)
            return 200, identity
        if f"{params['owner']}/{params['repo']}" != REPO:
            return 404, _error("Not Found", 404)
        author = identity or ACTIONS_BOT
        if method == "GET":
            return 200, self.comments.get(int(params["issue_number"]), [])
        if self.read_only:
            return 403, _error("Resource not accessible by integration", 403)
        text = body.get("body") if isinstance(body, dict) else None
        if not isinstance(text, str):
            return 422, _validation("missing_field", "body is missing")
        if len(text) > 65536:
            return 422, _validation("custom", "body is too long (maximum is 65536 characters)")
        if method == "POST":
            return 201, self._create(int(params["issue_number"]), text, author)
        comment = self._find(int(params["comment_id"]))
        if comment is None:
            return 404, _error("Not Found", 404)
        comment["body"] = text
        comment["updated_at"] = "2024-05-06T08:00:00Z"
        return 200, comment

    def respond(self, template: str | None, method: str, status: int,
                headers: dict[str, str], body: Any) -> None:
        """Check an outgoing response against the description and record it."""
        with self._lock:
            self.statuses.append(status)
            if template is not None:
                lower = {k.lower(): v for k, v in headers.items()}
                self.violations += self.openapi.check_response(
                    template, method.lower(), status, lower, body
                )


_ROUTES = [
    (re.compile(r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<issue_number>[^/]+)/comments"),
     "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    (re.compile(r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/comments/(?P<comment_id>[^/]+)"),
     "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    (re.compile(r"/user"), "/user"),
]


def _route(path: str) -> tuple[str | None, dict[str, str]]:
    for pattern, template in _ROUTES:
        match = pattern.fullmatch(path)
        if match:
            return template, {k: urllib.parse.unquote(v) for k, v in match.groupdict().items()}
    return None, {}


def _link(base: str, params: dict[str, str], number: int, page: int, per_page: int,
          total: int) -> str:
    """GitHub's pagination header: next/last after the first page, prev/first after that."""
    last = max(1, -(-total // per_page))
    url = f"{base}/repos/{params['owner']}/{params['repo']}/issues/{number}/comments"

    def ref(target: int, rel: str) -> str:
        return f'<{url}?per_page={per_page}&page={target}>; rel="{rel}"'

    parts = []
    if page > 1:
        parts += [ref(page - 1, "prev")]
    if page < last:
        parts += [ref(page + 1, "next"), ref(last, "last")]
    if page > 1:
        parts += [ref(1, "first")]
    return ", ".join(parts)


def _error(message: str, status: int) -> dict[str, Any]:
    return {"message": message, "documentation_url": DOCS, "status": str(status)}


def _validation(code: str, message: str) -> dict[str, Any]:
    return {
        "message": "Validation Failed", "documentation_url": DOCS, "status": "422",
        "errors": [{"resource": "IssueComment", "field": "body", "code": code,
                    "message": message}],
    }


def _header_problems(method: str, path: str, headers: dict[str, str]) -> list[str]:
    """GitHub's documented request headers (REST API "getting started")."""
    where = f"{method} {path}"
    problems = []
    if headers.get("accept") != "application/vnd.github+json":
        problems.append(f"{where}: Accept is {headers.get('accept')!r}")
    if headers.get("x-github-api-version") != "2022-11-28":
        problems.append(f"{where}: X-GitHub-Api-Version is {headers.get('x-github-api-version')!r}")
    if not headers.get("user-agent"):
        problems.append(f"{where}: no User-Agent (GitHub rejects such requests)")
    if not re.fullmatch(r"Bearer \S+", headers.get("authorization", "")):
        problems.append(f"{where}: Authorization is not a Bearer token")
    return problems


def _handler(github: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            template, status, extra, answer = github.handle(self.command, self.path, headers, body)
            github.respond(template, self.command, status, extra, answer)
            payload = b"" if answer is None else json.dumps(answer).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("X-RateLimit-Limit", "5000")
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            pass  # keep test output clean

    return Handler

