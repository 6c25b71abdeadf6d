"""What the human-readable renderers (text, Markdown, CLAUDE.md) show, format aside.

The sections are: changed symbols, impacted symbols, tests to run, changed symbols no test
reaches, and what the budget left out. Each node gets a location, a label, its reasons and,
when its resolution carries code, that code.
"""

from __future__ import annotations

import re

from gitgraph.languages import language_of
from gitgraph.model import Impact, ImpactNode

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# C0/C1 controls other than tab and newline: a terminal would act on them (ESC sequences can
# rewrite the screen, a bare CR hides what precedes it), so code never reaches it raw.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def printable(text: str) -> str:
    """`text` with CRLF/CR line ends made LF and other control characters made U+FFFD."""
    text = text.replace("\r\n", "\n")
    return _CONTROL.sub(REPLACEMENT, _SURROGATE.sub(REPLACEMENT, text))


def valid_unicode(text: str) -> str:
    """`text` with lone surrogates (undecodable bytes smuggled into a str) made U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text)


def short_rev(rev: str) -> str:
    """A full commit id shortened to 12 digits; WORKTREE, INDEX and other names unchanged."""
    return rev[:12] if _SHA.fullmatch(rev) else rev


def location(node: ImpactNode) -> str:
    """`path:start-end`, or `path:line` for a one-line symbol."""
    if node.end_line > node.start_line:
        return f"{node.path}:{node.start_line}-{node.end_line}"
    return f"{node.path}:{node.start_line}"


def changed(impact: Impact) -> list[ImpactNode]:
    """The changed symbols, in rank order."""
    return [node for node in impact.nodes if node.changed]


def impacted(impact: Impact) -> list[ImpactNode]:
    """The unchanged symbols the change reaches, in rank order."""
    return [node for node in impact.nodes if not node.changed]


def shows_code(node: ImpactNode, code: bool) -> bool:
    """Whether the node's code is printed (resolution "line" and --no-code print none)."""
    return code and node.resolution != "line" and bool(node.text)


def labels(node: ImpactNode, code: bool) -> list[str]:
    """The node's name, and its signature when no code will show it.

    A signature that already names the symbol (`def summary(...)`) stands alone; a method's
    (`def area(self)`) follows its qualified name `Circle.area`.
    """
    if shows_code(node, code) or not node.signature:
        return [node.name]
    if node.name in node.signature:
        return [node.signature]
    return [node.name, node.signature]


def descriptor(node: ImpactNode) -> str:
    """`method, body` for a changed symbol; `function` or `function, test` otherwise."""
    words = [node.kind]
    if node.test and node.kind != "test":
        words.append("test")
    if node.changed and node.change:
        words.append(node.change)
    return ", ".join(words)


def reasons(node: ImpactNode) -> list[str]:
    """The node's reasons, minus "changed: <kind>", which its descriptor already says."""
    redundant = f"changed: {node.change}" if node.changed else None
    return [reason for reason in node.why if reason != redundant]


def split_reason(reason: str) -> tuple[str, str]:
    """("calls", "src/a.py::f") for "calls src/a.py::f"; (reason, "") when no id ends it."""
    words, _, last = reason.rpartition(" ")
    if words and ("::" in last or "/" in last):
        return words, last
    return reason, ""


def code_language(node: ImpactNode) -> str:
    """The fence info string: `diff` for a hunk, else the language of the file."""
    if node.resolution == "hunk":
        return "diff"
    return language_of(node.path) or ""


def parts(node: ImpactNode) -> str:
    """`calls 0.0800 + tests 0.0434`: the score's contributions, in the order given."""
    return " + ".join(f"{kind} {value:.4f}" for kind, value in node.parts)


def counts(impact: Impact) -> str:
    """`1 file changed, 2 changed symbols, 3 impacted, 1 test to run`."""
    files = len(impact.changed_files)
    symbols = sum(node.changed for node in impact.nodes)
    tests = len(impact.tests)
    return (
        f"{files} {'file' if files == 1 else 'files'} changed, "
        f"{symbols} changed {'symbol' if symbols == 1 else 'symbols'}, "
        f"{len(impact.nodes) - symbols} impacted, "
        f"{tests} {'test' if tests == 1 else 'tests'} to run"
    )


def budget(impact: Impact) -> str:
    """`1873/2000 tokens (cl100k_base)`."""
    return f"{impact.tokens_used}/{impact.budget} tokens ({impact.encoding})"


def omitted(impact: Impact) -> str:
    """`Omitted: 4 nodes (~612 tokens)`, or "" when the budget left nothing out."""
    if not impact.omitted_nodes:
        return ""
    noun = "node" if impact.omitted_nodes == 1 else "nodes"
    return f"Omitted: {impact.omitted_nodes} {noun} (~{impact.omitted_tokens} tokens)"
