"""The impact as GitHub Markdown, for reviewers and LLMs; pull-request content is untrusted.

Code goes in fences that no backtick run inside can close; ids, paths and names go in code
spans (literal, no HTML, no mentions, no CLAUDE.md `@imports`); every other piece of text is
HTML-escaped and has its mentions neutralised.
"""

from __future__ import annotations

import re

from gitgraph.model import Impact, ImpactNode
from gitgraph.render import layout
from gitgraph.render.safe import ZERO_WIDTH_JOINER, fence, inline_code, safe_text

# safe_text stops GitHub mentions (`@` + letter or digit); an agent reading CLAUDE.md also
# follows `@~/path`, `@./path` and `@/path` imports, so any `@` that starts a word is joined.
_AT_WORD_START = re.compile(rf"(?<![A-Za-z0-9_])@(?!{ZERO_WIDTH_JOINER})")


def prose(text: str) -> str:
    """Untrusted text for outside code: HTML escaped, no mention, no `@import`."""
    return _AT_WORD_START.sub("@" + ZERO_WIDTH_JOINER, safe_text(text))


def reason(text: str) -> str:
    """One reason, its trailing node id as a code span: calls `src/a.py::f`."""
    words, node_id = layout.split_reason(text)
    return f"{prose(words)} {inline_code(node_id)}" if node_id else prose(text)


def headline(node: ImpactNode, code: bool, *, with_reasons: bool) -> str:
    """`path:10-22` `name` (method, body) — calls `src/a.py::f`"""
    label = " ".join(inline_code(text) for text in layout.labels(node, code))
    line = f"{inline_code(layout.location(node))} {label} ({prose(layout.descriptor(node))})"
    reasons = layout.reasons(node) if with_reasons else []
    if reasons:
        line += " — " + "; ".join(reason(text) for text in reasons)
    return line


def explanation(node: ImpactNode) -> str:
    """score 0.2104 = calls 0.2104 · path `a` → `b`"""
    line = f"score {node.score:.4f}"
    if node.parts:
        line += f" = {prose(layout.parts(node))}"
    if node.path_from_seed:
        line += " · path " + " → ".join(inline_code(step) for step in node.path_from_seed)
    return line


def node_block(node: ImpactNode, *, explain: bool, code: bool) -> str:
    """A node's headline, its explanation on the next line, then its code when shown."""
    text = headline(node, code, with_reasons=True)
    if explain:
        text += "\\\n" + explanation(node)  # backslash: a hard line break, one paragraph
    if layout.shows_code(node, code):
        text += "\n\n" + fence(node.text, layout.code_language(node))
    return text


def id_list(ids: tuple[str, ...]) -> str:
    return "\n".join(f"- {inline_code(item)}" for item in ids)


def render_markdown(impact: Impact, *, explain: bool = False, code: bool = True) -> str:
    """Header, Changed, Impacted, Tests to run, Not reached by any test, Omitted."""
    revs = f"{layout.short_rev(impact.base)}..{layout.short_rev(impact.head)}"
    blocks = [
        f"### gitgraph: change impact {inline_code(revs)}",
        prose(f"{layout.counts(impact)} · {layout.budget(impact)}"),
    ]
    sections = (("Changed", layout.changed(impact)), ("Impacted", layout.impacted(impact)))
    for title, nodes in sections:
        if nodes:
            blocks.append(f"#### {title}")
            blocks += [node_block(node, explain=explain, code=code) for node in nodes]
    if not impact.nodes:
        blocks.append("No changed symbols.")
    if impact.tests:
        blocks += ["#### Tests to run", id_list(impact.tests)]
    if impact.untested:
        blocks += ["#### Not reached by any test", id_list(impact.untested)]
    if impact.omitted_nodes:
        blocks.append(f"_{prose(layout.omitted(impact))}_")
    return layout.printable("\n\n".join(blocks) + "\n")
