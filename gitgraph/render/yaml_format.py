"""The impact document as YAML: the same data as the JSON, code kept readable as `|` blocks.

PyYAML's emitter is pure Python (~0.5 ms a node) and the selector renders repeatedly while it
fits the budget, so each node's YAML is dumped once and reused: a block sequence item reads
the same at the top level as under `nodes:`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import yaml
from yaml.emitter import ScalarAnalysis

from gitgraph.model import Impact, ImpactNode
from gitgraph.render.json_format import document, node_record

# PyYAML writes these raw in block and single-quoted scalars but reads them back as line
# breaks; double quotes escape them.
_BREAKS_PYYAML_MISREADS = ("\x85", "\u2028", "\u2029")


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes multi-line strings (code) as literal block scalars."""

    def analyze_scalar(self, scalar: str) -> ScalarAnalysis:
        if "\n" not in scalar:
            return super().analyze_scalar(scalar)
        # PyYAML refuses block style for any tab, yet a tab is plain content in a block
        # scalar; without this every Go function would become one long quoted line.
        analysis = super().analyze_scalar(scalar.replace("\t", " "))
        analysis.scalar = scalar
        return analysis


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if any(ch in value for ch in _BREAKS_PYYAML_MISREADS):
        style: str | None = '"'
    else:
        style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _dump(data: Any) -> str:
    text: str = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 16,  # no folding of long ids or reasons
    )
    # A `|+` block ending the dump makes PyYAML close the document with `...`; mid-stream,
    # where these pieces go, the one-shot dump would not have it.
    return text[: -len("...\n")] if text.endswith("\n...\n") else text


@functools.lru_cache(maxsize=4096)
def _node_yaml(node: ImpactNode, explain: bool, code: bool) -> str:
    return _dump([node_record(node, explain=explain, code=code)])


def render_yaml(impact: Impact, *, explain: bool = False, code: bool = True) -> str:
    """The document as YAML; `yaml.safe_load` of it equals `json.loads` of the JSON."""
    skeleton = document(dataclasses.replace(impact, nodes=()), explain=explain, code=code)
    keys = list(skeleton)
    split = keys.index("nodes")
    head = _dump({key: skeleton[key] for key in keys[:split]})
    tail = _dump({key: skeleton[key] for key in keys[split + 1 :]})
    nodes = "".join(_node_yaml(node, explain, code) for node in impact.nodes)
    return head + (f"nodes:\n{nodes}" if nodes else "nodes: []\n") + tail
