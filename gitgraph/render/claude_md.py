"""The impact as a compact block for CLAUDE.md or an agent prompt, between gitgraph markers.

Same content and the same safety as the Markdown renderer, minus the chatter: no token
accounting (it would make the block drift between runs), lists under one-word titles instead
of headed sections. Sections are separated by a blank line so that a title is not read as
the continuation of the list above it.
"""

from __future__ import annotations

from gitgraph.claudemd import BEGIN, END
from gitgraph.model import Impact
from gitgraph.render import layout
from gitgraph.render.markdown import explanation, headline, id_list, prose
from gitgraph.render.safe import ZERO_WIDTH_JOINER, fence, inline_code


def _inert_markers(code: str) -> str:
    """Code lines that `claudemd` would take for a marker get a joiner after `<!--`.

    Such a line would end (or restart) the managed block once pasted into CLAUDE.md; the
    invisible joiner keeps it readable. Lines are matched exactly as `claudemd` matches them.
    """
    lines = code.split("\n")
    for i, line in enumerate(lines):
        if line.strip() in (BEGIN, END):
            lines[i] = line.replace("<!--", "<!--" + ZERO_WIDTH_JOINER, 1)
    return "\n".join(lines)


def body(impact: Impact, *, explain: bool = False, code: bool = True) -> str:
    """The block's content without its marker lines (for `claudemd.update_block`)."""
    revs = f"{layout.short_rev(impact.base)}..{layout.short_rev(impact.head)}"
    lines = [f"## Change impact {inline_code(revs)}"]
    for title, nodes in (
        ("Changed", layout.changed(impact)),
        ("Impacted", layout.impacted(impact)),
    ):
        if not nodes:
            continue
        lines += ["", f"{title}:"]
        for node in nodes:
            lines.append("- " + headline(node, code, with_reasons=True))
            if explain:
                lines.append("  " + explanation(node))
            if layout.shows_code(node, code):
                lines.append(fence(_inert_markers(node.text), layout.code_language(node)))
    if not impact.nodes:
        lines += ["", "No changed symbols."]
    if impact.tests:
        lines += ["", "Tests to run:", id_list(impact.tests)]
    if impact.untested:
        lines += ["", "Not reached by any test:", id_list(impact.untested)]
    if impact.omitted_nodes:
        lines += ["", prose(layout.omitted(impact))]
    return layout.printable("\n".join(lines) + "\n")


def render_claude_md(impact: Impact, *, explain: bool = False, code: bool = True) -> str:
    """`body` wrapped between `<!-- gitgraph:begin -->` and `<!-- gitgraph:end -->` lines."""
    return f"{BEGIN}\n{body(impact, explain=explain, code=code)}{END}\n"
