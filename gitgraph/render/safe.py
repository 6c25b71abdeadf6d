"""Make untrusted text (code, paths, names from a pull request) inert inside GitHub Markdown.

Which helper goes where:
- code blocks: `fence` (the fence outgrows any backtick run in the code, so nothing escapes it);
- identifiers and paths in prose or tables: `inline_code` (a code span renders no HTML, no
  Markdown and pings nobody);
- free text outside code: `safe_text` (= `escape_html` then `neutralise_mentions`).

Mentions are neutralised by putting U+200D ZERO WIDTH JOINER right after the `@`: the text
still reads `@user` but GitHub's mention pattern (`@` followed by an ASCII letter or digit)
no longer matches, so nobody is notified. A joiner rather than backticks keeps the sentence's
formatting unchanged and adds no line-break opportunity. An `@` preceded by an ASCII letter,
digit or `_` is never a mention on GitHub (`ci@example.com`), so e-mail addresses are left
exactly as they are.
"""

from __future__ import annotations

import re

ZERO_WIDTH_JOINER = "\u200d"

_BACKTICK_RUN = re.compile(r"`+")
# GitHub only links `@name` when the `@` does not follow an ASCII word character; Ruby's `\W`
# there is ASCII-only, so `é@name` still pings: test the ASCII class, not Python's `\w`.
_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])")
# `&#64;name` renders as `@name` and would ping once the entity is decoded.
_AT_ENTITY = re.compile(r"&(?=#0*64;|#[xX]0*40;|commat;)")
_SAFE_LANG = re.compile(r"[A-Za-z0-9_+#.-]{1,40}")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _runs(text: str) -> set[int]:
    return {len(run) for run in _BACKTICK_RUN.findall(text)}


def fence(code: str, lang: str = "") -> str:
    """A fenced code block around `code` that no backtick run inside it can close."""
    ticks = "`" * max(3, max(_runs(code), default=0) + 1)
    # An info string on a backtick fence may not contain backticks; drop anything unusual.
    info = lang if _SAFE_LANG.fullmatch(lang) else ""
    body = code.replace("\0", "\ufffd")
    if body and not body.endswith(("\n", "\r")):
        body += "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def escape_html(text: str) -> str:
    """Escape `&`, `<` and `>` so text outside code renders no HTML (e.g. `</details>`)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def neutralise_mentions(text: str) -> str:
    """Stop `@user` and `@org/team` in text outside code from notifying anyone."""
    return _MENTION.sub("@" + ZERO_WIDTH_JOINER, _AT_ENTITY.sub("&amp;", text))


def safe_text(text: str) -> str:
    """Untrusted prose for outside code: HTML escaped, mentions neutralised."""
    return neutralise_mentions(escape_html(text))


def inline_code(text: str, *, in_table: bool = False) -> str:
    """A code span showing `text` literally, whatever backticks it holds.

    `in_table` escapes `|`, which splits a GFM table cell even inside a code span.
    """
    body = _LINE_BREAK.sub(" ", text).replace("\0", "\ufffd")
    if in_table:
        body = body.replace("|", "\\|")
    if not body:
        return "` `"
    runs = _runs(body)
    width = 1
    while width in runs:  # a run of exactly `width` backticks would close the span
        width += 1
    # CommonMark strips one space from each end when both ends are spaces: pad so the
    # stripping removes only our padding and a leading/trailing backtick cannot join the fence.
    if body.strip(" ") and (body[0] in "` " or body[-1] in "` "):
        body = f" {body} "
    ticks = "`" * width
    return f"{ticks}{body}{ticks}"
