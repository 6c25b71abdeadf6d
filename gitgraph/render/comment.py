"""The pull-request comment: a short human summary, then the LLM-ready context folded away.

Pull-request content is untrusted: ids and paths go in code spans, other text through
`prose` (HTML escaped, mentions neutralised), code in fences longer than any backtick run it
holds (the Markdown renderer's rules). The only raw HTML is our own `<details>` frame, and the
context inside it cannot close it: outside fences every `<` is escaped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gitgraph.model import Impact
from gitgraph.render import layout
from gitgraph.render.markdown import prose
from gitgraph.render.safe import ZERO_WIDTH_JOINER, fence, inline_code

SUMMARY_ITEMS = 10  # per list; the rest is "and N more"
MAX_ID_CHARS = 200  # a pathological path must not crowd out the summary
RELATIONS = ("caller", "subclass", "importer", "test")
_PLURAL = {"class": "classes", "subclass": "subclasses"}
# The sticky comments are found by these markers: the body must hold only its own, once.
MARKERS = ("<!-- gitgraph:impact -->", "<!-- gitgraph:claude-md -->")


@dataclass(frozen=True)
class ChangedSymbol:
    """One changed symbol for the summary table."""

    id: str
    kind: str  # function, method, class, file, ...
    change: str  # removed, signature, body, added


@dataclass(frozen=True)
class ReviewSummary:
    """What a reviewer reads first; computed from the whole analysis, not the budgeted part."""

    base: str
    head: str
    changed_files: int
    changed: tuple[ChangedSymbol, ...]
    dependents: tuple[tuple[str, str], ...]  # (node id, one of RELATIONS), best first
    tests: tuple[str, ...]  # runnable ids, best first
    untested: tuple[str, ...]  # changed functions/methods no test reaches


def plural(count: int, noun: str) -> str:
    """`1 function`, `2 functions`, `3 classes`."""
    if count == 1:
        return f"1 {noun}"
    return f"{count} {_PLURAL.get(noun, noun + 's')}"


def _short(node_id: str) -> str:
    if len(node_id) <= MAX_ID_CHARS:
        return node_id
    return node_id[: MAX_ID_CHARS - 1] + "…"


def _id_list(ids: tuple[str, ...] | list[str]) -> list[str]:
    lines = [f"- {inline_code(_short(item))}" for item in ids[:SUMMARY_ITEMS]]
    if len(ids) > SUMMARY_ITEMS:
        lines.append(f"- _and {len(ids) - SUMMARY_ITEMS} more_")
    return lines


def headline(summary: ReviewSummary) -> str:
    """`**2 changed symbols** (1 function, 1 method) in 1 file · **3 impacted** · ...`"""
    kinds = Counter(symbol.kind for symbol in summary.changed)
    by_kind = ", ".join(plural(n, kind) for kind, n in sorted(kinds.items()))
    parts = [f"**{plural(len(summary.changed), 'changed symbol')}**"
             + (f" ({prose(by_kind)})" if by_kind else "")
             + f" in {plural(summary.changed_files, 'file')}"]
    relations = Counter(relation for _, relation in summary.dependents)
    detail = ", ".join(plural(relations[r], r) for r in RELATIONS if relations[r])
    parts.append(f"**{len(summary.dependents)} impacted**" + (f" ({detail})" if detail else ""))
    parts.append(f"**{plural(len(summary.tests), 'test')} to run**")
    if summary.untested:
        parts.append(f"**{len(summary.untested)} not reached by any test**")
    return " · ".join(parts)


def render_summary(summary: ReviewSummary) -> str:
    """The human part: headline, changed symbols, impacted dependents, tests, untested."""
    revs = f"{layout.short_rev(summary.base)}...{layout.short_rev(summary.head)}"
    blocks = [f"### gitgraph: change impact {inline_code(revs)}", headline(summary)]
    if summary.changed:
        rows = ["| Changed symbol | Kind | Change |", "|---|---|---|"]
        for symbol in summary.changed[:SUMMARY_ITEMS]:
            rows.append(f"| {inline_code(_short(symbol.id), in_table=True)} "
                        f"| {prose(symbol.kind)} | {prose(symbol.change)} |")
        if len(summary.changed) > SUMMARY_ITEMS:
            rows.append(f"| _and {len(summary.changed) - SUMMARY_ITEMS} more_ | | |")
        blocks.append("\n".join(rows))
    else:
        blocks.append("No changed symbols.")
    if summary.dependents:
        lines = [f"- {inline_code(_short(node_id))} ({relation})"
                 for node_id, relation in summary.dependents[:SUMMARY_ITEMS]]
        if len(summary.dependents) > SUMMARY_ITEMS:
            lines.append(f"- _and {len(summary.dependents) - SUMMARY_ITEMS} more_")
        blocks.append("**Impacted** (depend directly on a changed symbol)\n\n" + "\n".join(lines))
    if summary.tests:
        blocks.append("**Tests to run**\n\n" + "\n".join(_id_list(summary.tests)))
    if summary.untested:
        blocks.append("**Changed symbols no test reaches**\n\n"
                      + "\n".join(_id_list(summary.untested)))
    return "\n\n".join(blocks) + "\n"


def inert_markers(text: str) -> str:
    """`text` with our comment markers broken by an invisible joiner (code may quote them)."""
    for marker in MARKERS:
        text = text.replace(marker, marker.replace("<!--", "<!--" + ZERO_WIDTH_JOINER, 1))
    return text


def render_comment(summary: ReviewSummary, context: str | None, impact: Impact | None,
                   marker: str) -> str:
    """The whole comment: marker, summary, and `context` (rendered Markdown) in `<details>`."""
    parts = [render_summary(summary).rstrip("\n")]
    if context is not None and impact is not None:
        title = f"LLM-ready context · {layout.budget(impact)}"
        parts.append(f"<details><summary>{prose(title)}</summary>\n\n{context.rstrip()}\n\n"
                     "</details>")
    elif summary.changed:
        parts.append("_The context did not fit in one comment; run "
                     "`gitgraph diff` locally to see it._")
    return marker + "\n" + inert_markers(layout.printable("\n\n".join(parts) + "\n"))


def render_claude_md_comment(block: str, path: str, marker: str) -> str:
    """A comment proposing the new CLAUDE.md block (for fork PRs, where nothing can be pushed)."""
    return marker + "\n" + inert_markers(layout.printable(
        f"### gitgraph: the code map in {inline_code(path)} is out of date\n\n"
        "Replace the block between the gitgraph markers with:\n\n"
        f"{fence(block, 'markdown')}\n"
    ))
