"""What a definition's node says about it besides its name: its header as a signature
(without comments or layout), the first line of its docstring or leading comment, and the
marks attached to it (decorators, annotations, attributes). Works on tree-sitter nodes that
extract.py hands over; imports nothing of tree_sitter itself.
"""

from __future__ import annotations

import re
from typing import Any

SIGNATURE_CHARS = 240
_MARK_SIBLINGS = {"attribute_item", "decorator", "annotation", "marker_annotation"}
# statements that wrap a definition: its leading comment sits beside the wrapper
_WRAPPERS = {"decorated_definition", "export_statement", "lexical_declaration",
             "variable_declaration", "expression_statement", "ambient_declaration",
             "type_declaration", "var_declaration"}
_STRING_QUOTES = re.compile(r"^[rRbBuUfF]*(?:\"\"\"|\'\'\'|\"|\')|(?:\"\"\"|\'\'\'|\"|\')$")
# every comment of the supported grammars starts with one of these (JavaScript's include <!--)
_COMMENT_START = re.compile(rb"[#/]|<!--|-->")
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*\*?|\*/?|///?|//!|#)\s?")


def with_marks(node: Any) -> Any:
    """The definition together with its decorators (Python's decorated_definition)."""
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":
        return parent
    return node


def modifiers(node: Any) -> bytes:
    """Annotation/attribute text attached to a definition (Java modifiers, Rust attributes)."""
    parts = []
    for child in node.children:
        if child.type == "modifiers":
            parts.append(child.text or b"")
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in _MARK_SIBLINGS:
        parts.append(sibling.text or b"")
        sibling = sibling.prev_named_sibling
    return b" ".join(parts)


def signature(node: Any, body: Any, source: bytes) -> str:
    """A definition's header, without comments and layout (`body`: its body, if any)."""
    if body is None:  # `const f = () => {…}`: the header ends where the function's body starts
        value = node.child_by_field_name("value") or node.child_by_field_name("right")
        body = value.child_by_field_name("body") if value is not None else None
    if body is not None:
        end = body.start_byte
    else:  # no body: the first line
        end = source.find(b"\n", node.start_byte, node.end_byte)
        end = node.end_byte if end < 0 else end
    # comments sitting between a header and its body are not part of the signature
    parts, start, stack = [], node.start_byte, [node]
    if not _COMMENT_START.search(source, start, end):
        stack = []  # no comment can start here: the header is the whole span, no tree walk
    while stack:
        inner = stack.pop()
        if inner.start_byte >= end:
            continue
        if "comment" in inner.type:
            parts.append(source[start:inner.start_byte])
            start = inner.end_byte
        else:
            stack.extend(child for child in reversed(inner.children) if child.start_byte < end)
    parts.append(source[start:end])
    text = b" ".join(parts).decode("utf-8", "replace")
    text = " ".join(text.split()).rstrip("{ ").strip()
    return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"


def doc_line(node: Any, body: Any) -> str:
    """The first line of a definition's docstring or leading comment (`body`: its body)."""
    if body is not None and body.type == "block" and body.named_child_count:
        string = body.named_child(0)  # not named_children[0]: that makes a node per child
        if string.type == "expression_statement" and string.named_child_count:
            string = string.named_child(0)
        if string.type == "string":
            return _first_line(_STRING_QUOTES.sub("", text_of(string)))
    comment = node.prev_named_sibling
    while True:
        while comment is not None and comment.type in _MARK_SIBLINGS:
            comment = comment.prev_named_sibling
        parent = node.parent
        if comment is not None or parent is None or parent.type not in _WRAPPERS:
            break
        node = parent  # the first thing in `export …`, `const f = …`, `type T struct`
        comment = node.prev_named_sibling
    if comment is not None and "comment" in comment.type and \
            comment.end_point[0] >= node.start_point[0] - 1:
        # walk up a run of line comments to the first one
        while True:
            earlier = comment.prev_named_sibling
            if earlier is None or "comment" not in earlier.type or \
                    earlier.end_point[0] != comment.start_point[0] - 1:
                break
            comment = earlier
        return _first_line(text_of(comment))
    return ""


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = _COMMENT_MARKS.sub("", line).strip().rstrip("*/").strip()
        if line:
            return line[:SIGNATURE_CHARS]
    return ""


def text_of(node: Any) -> str:
    """A node's source text."""
    raw: bytes = node.text or b""
    return raw.decode("utf-8", "replace")
