"""The public impact document (`gitgraph.impact/1`) as JSON: one node or edge per line.

Contract fields come first, in DESIGN.md's order, so a reader of the raw text sees the shape
the documentation shows; additive fields follow them. Separators are compact because the
output is counted against the token budget.
"""

from __future__ import annotations

import json
from typing import Any

from gitgraph.model import Impact, ImpactNode
from gitgraph.render.layout import valid_unicode

SCHEMA = "gitgraph.impact/1"

# The keys `gitgraph.impact/1` defines, and the additive ones this version may also emit.
CONTRACT_KEYS = (
    "schema", "base", "head", "budget", "tokens_used", "encoding",
    "seeds", "nodes", "edges", "tests", "omitted",
)  # fmt: skip
ADDITIVE_KEYS = ("changed_files", "untested")
NODE_KEYS = (
    "id", "kind", "name", "path", "start_line", "end_line",
    "score", "changed", "change", "tokens", "why",
)  # fmt: skip
ADDITIVE_NODE_KEYS = ("resolution", "signature", "explain", "code")
EDGE_KEYS = ("source", "target", "kind")


def _valid(value: Any) -> Any:
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, dict):
        return {key: _valid(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_valid(item) for item in value]
    return value


def node_record(node: ImpactNode, *, explain: bool = False, code: bool = True) -> dict[str, Any]:
    """One node of the document: contract keys, then resolution, signature, explain, code."""
    record: dict[str, Any] = {
        "id": node.id,
        "kind": node.kind,
        "name": node.name,
        "path": node.path,
        "start_line": node.start_line,
        "end_line": node.end_line,
        "score": round(node.score, 4),
        "changed": node.changed,
        "change": node.change if node.changed else None,
        "tokens": node.tokens,
        "why": list(node.why),
        "resolution": node.resolution,
        "signature": node.signature,
    }
    if explain:
        record["explain"] = {
            "parts": {kind: round(value, 4) for kind, value in node.parts},
            "path": list(node.path_from_seed),
        }
    if code and node.text:
        record["code"] = node.text
    valid: dict[str, Any] = _valid(record)
    return valid


def document(impact: Impact, *, explain: bool = False, code: bool = True) -> dict[str, Any]:
    """The impact as plain JSON-able data, keys in the contract's order.

    Lone surrogates (undecodable bytes in a file name or code) become U+FFFD: JSON and YAML
    text cannot carry them.
    """
    record: dict[str, Any] = _valid(
        {
            "schema": SCHEMA,
            "base": impact.base,
            "head": impact.head,
            "budget": impact.budget,
            "tokens_used": impact.tokens_used,
            "encoding": impact.encoding,
            "seeds": list(impact.seeds),
            "nodes": [],  # filled below, already valid
            "edges": [
                {"source": source, "target": target, "kind": kind}
                for source, target, kind in impact.edges
            ],
            "tests": list(impact.tests),
            "omitted": {"nodes": impact.omitted_nodes, "tokens": impact.omitted_tokens},
            "changed_files": list(impact.changed_files),
            "untested": list(impact.untested),
        }
    )
    record["nodes"] = [node_record(node, explain=explain, code=code) for node in impact.nodes]
    return record


# One encoder for every value: json.dumps with options builds a new one per call, and the
# selector renders the document hundreds of times.
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def render_json(impact: Impact, *, explain: bool = False, code: bool = True) -> str:
    """The document as JSON text: top-level keys one per line, nodes and edges one per line."""
    lines = []
    for key, value in document(impact, explain=explain, code=code).items():
        if key in ("nodes", "edges") and value:
            items = ",\n".join(_dumps(item) for item in value)
            lines.append(f"{_dumps(key)}:[\n{items}]")
        else:
            lines.append(f"{_dumps(key)}:{_dumps(value)}")
    return "{" + ",\n".join(lines) + "}\n"
