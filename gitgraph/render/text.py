"""The impact as plain text for a terminal, and its colouring (which never changes a word).

Layout, by indentation, so `print_text` can colour the plain string it is given:
column 0 titles, 2 spaces a node's headline, 4 spaces its reasons and explanation, 6 spaces
its code. Control characters in code are replaced: they would act on the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitgraph.model import Impact, ImpactNode
from gitgraph.render import layout

if TYPE_CHECKING:  # rich is imported only when colouring: it is slow to import
    from rich.console import Console
    from rich.text import Text

CODE_INDENT = " " * 6
SECTIONS = ("Changed", "Impacted", "Tests to run", "Not reached by any test")


def _node(node: ImpactNode, *, explain: bool, code: bool) -> list[str]:
    label = "  ".join(layout.labels(node, code))
    lines = [f"  {layout.location(node)}  {label}  ({layout.descriptor(node)})"]
    reasons = layout.reasons(node)
    if reasons:
        lines.append("    why: " + "; ".join(reasons))
    if explain:
        line = f"    score {node.score:.4f}"
        if node.parts:
            line += f" = {layout.parts(node)}"
        if node.path_from_seed:
            line += "; path " + " → ".join(node.path_from_seed)
        lines.append(line)
    if layout.shows_code(node, code):
        lines += [CODE_INDENT + line if line else "" for line in node.text.rstrip("\n").split("\n")]
    return lines


def render_text(impact: Impact, *, explain: bool = False, code: bool = True) -> str:
    """Plain text: header, then Changed, Impacted, Tests to run, untested, Omitted."""
    revs = f"{layout.short_rev(impact.base)}..{layout.short_rev(impact.head)}"
    lines = [f"gitgraph diff {revs}", f"{layout.counts(impact)}; {layout.budget(impact)}"]
    for title, nodes in (
        ("Changed", layout.changed(impact)),
        ("Impacted", layout.impacted(impact)),
    ):
        if nodes:
            lines += ["", title]
            for node in nodes:
                lines += _node(node, explain=explain, code=code)
    if not impact.nodes:
        lines += ["", "No changed symbols."]
    for title, ids in (
        ("Tests to run", impact.tests),
        ("Not reached by any test", impact.untested),
    ):
        if ids:
            lines += ["", title] + [f"  {item}" for item in ids]
    if impact.omitted_nodes:
        lines += ["", layout.omitted(impact)]
    return layout.printable("\n".join(lines) + "\n")


def highlight(text: str) -> Text:
    """`text` (as `render_text` made it) as a rich Text with styles; the characters are kept."""
    from rich.text import Text

    styled = Text()
    section = ""
    in_diff = False  # inside a hunk: colour added and removed lines
    for number, line in enumerate(text.splitlines(keepends=True)):
        bare = line.rstrip("\r\n")
        style = ""
        if number == 0 or bare in SECTIONS:
            style, section = "bold", bare
        elif bare.startswith("Omitted:"):
            style = "yellow"
        elif line.startswith(CODE_INDENT):
            code = bare[len(CODE_INDENT) :]
            in_diff = in_diff or code.startswith(("@@", "--- "))
            if in_diff and code[:1] in ("+", "-"):
                style = "green" if code[0] == "+" else "red"
            elif in_diff and code.startswith("@@"):
                style = "cyan"
        elif line.startswith("    "):
            style = "dim"
        elif line.startswith("  ") and section in ("Changed", "Impacted"):
            in_diff = False
            where, gap, rest = bare[2:].partition("  ")
            styled.append("  ")
            styled.append(where, style="cyan")
            styled.append(gap + rest, style="bold")
            styled.append(line[len(bare) :])
            continue
        styled.append(line, style=style)
    return styled


def print_text(text: str, console: Console) -> None:
    """Print `render_text` output to a rich console in colour; every character unchanged.

    The styled segments go out as they are: no markup, no wrapping or cropping, and tabs
    left to the terminal (rich would expand them when laying out a Text).
    """
    from rich.segment import Segments

    styled = highlight(text)
    console.print(Segments(styled.render(console, end="")), end="", soft_wrap=True)
