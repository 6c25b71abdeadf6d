"""Cut the GitHub REST operations gitgraph uses out of `@octokit/openapi` into a test fixture.

Usage:
    npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz
    python tests/extract_openapi.py package/generated/api.github.com.json

Writes tests/data/github/openapi-subset.json: the operations below, the webhook payload
schemas the Action's events carry, and every component they reach through `$ref`, with the
annotations that never change a validation result (descriptions, examples, docs links)
removed so the fixture stays small. The package version is recorded under `x-source`.
Re-run it when the package moves and review the diff: it is GitHub's contract changing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# (path, method): what gitgraph/github.py calls.
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "get"),
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "post"),
    ("/repos/{owner}/{repo}/issues/comments/{comment_id}", "patch"),
    ("/user", "get"),
)
# The payload in $GITHUB_EVENT_PATH is the webhook body: `on: pull_request` (types opened and
# synchronize) for the Action's comment job, `on: workflow_run` (completed) for the job that
# posts a fork's comment.
WEBHOOKS: tuple[str, ...] = ("pull-request-opened", "pull-request-synchronize",
                             "workflow-run-completed")

# Keywords that are annotations only: dropping them changes no validation result.
ANNOTATIONS = frozenset(
    {"description", "summary", "title", "example", "examples", "externalDocs", "tags"}
)
# Maps whose keys are names chosen by the spec's authors, not keywords: keep every key.
NAME_MAPS = frozenset({"properties", "patternProperties", "schemas", "parameters", "responses",
                       "headers", "content", "paths", "x-webhooks", "webhooks"})

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "tests/data/github/openapi-subset.json"


def strip_annotations(node: Any, *, name_map: bool = False) -> Any:
    """Copy `node` without annotation keywords and vendor extensions (`x-*`)."""
    if isinstance(node, list):
        return [strip_annotations(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if not name_map and (key in ANNOTATIONS or key.startswith("x-")):
            continue
        out[key] = strip_annotations(value, name_map=key in NAME_MAPS and not name_map)
    return out


def resolve(document: dict[str, Any], ref: str) -> Any:
    """The node a local `#/a/b` reference points at."""
    if not ref.startswith("#/"):
        raise SystemExit(f"extract_openapi: remote $ref not supported: {ref}")
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def collect_refs(document: dict[str, Any], node: Any, seen: set[str]) -> None:
    """Add to `seen` every local `$ref` reachable from `node` (after stripping)."""
    if isinstance(node, list):
        for item in node:
            collect_refs(document, item, seen)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in seen:
            seen.add(ref)
            collect_refs(document, strip_annotations(resolve(document, ref)), seen)
        for value in node.values():
            collect_refs(document, value, seen)


def extract(document: dict[str, Any], version: str) -> dict[str, Any]:
    """The subset document: chosen operations and webhooks plus their reachable components."""
    paths: dict[str, dict[str, Any]] = {}
    for path, method in OPERATIONS:
        paths.setdefault(path, {})[method] = strip_annotations(document["paths"][path][method])
    webhooks = {
        name: {"post": {"requestBody": strip_annotations(
            document["x-webhooks"][name]["post"]["requestBody"]
        )}}
        for name in WEBHOOKS
    }
    refs: set[str] = set()
    collect_refs(document, [paths, webhooks], refs)
    components: dict[str, dict[str, Any]] = {}
    for ref in sorted(refs):
        if ref.count("/") != 3 or not ref.startswith("#/components/"):
            raise SystemExit(f"extract_openapi: unexpected $ref shape: {ref}")
        section, name = ref.split("/")[2:4]
        components.setdefault(section, {})[name] = strip_annotations(resolve(document, ref))
    return {
        "openapi": document["openapi"],
        "info": {"title": "GitHub REST API (subset used by gitgraph)", "version": version},
        "x-source": {
            "package": "@octokit/openapi",
            "version": version,
            "file": "generated/api.github.com.json",
            "script": "tests/extract_openapi.py",
        },
        "paths": paths,
        "x-webhooks": webhooks,
        "components": components,
    }


def package_version(spec_path: Path) -> str:
    """The npm package version next to `generated/`, or the spec's own info.version."""
    manifest = spec_path.resolve().parent.parent / "package.json"
    if manifest.is_file():
        return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
    return str(json.loads(spec_path.read_text(encoding="utf-8"))["info"]["version"])


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", type=Path, help="path to generated/api.github.com.json")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    document = json.loads(args.spec.read_text(encoding="utf-8"))
    subset = extract(document, package_version(args.spec))
    text = json.dumps(subset, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    schemas = len(subset["components"].get("schemas", {}))
    print(f"wrote {args.output} ({len(text.encode())} bytes, {schemas} schemas)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
