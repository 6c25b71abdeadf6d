"""gitgraph.render.safe: untrusted text stays inert, checked with a real CommonMark parser."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from gitgraph.render.safe import (
    ZERO_WIDTH_JOINER,
    escape_html,
    fence,
    inline_code,
    neutralise_mentions,
    safe_text,
)

MD = MarkdownIt("commonmark")
GFM = MarkdownIt("commonmark").enable("table")
# GitHub's mention filter (html-pipeline MentionFilter), enough to tell whether text would ping.
PINGS = re.compile(r"(?:^|[^A-Za-z0-9_])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9_-]+)?")

ADVERSARIAL_CODE = [
    "x = 1",
    "```\n</details>\n```",
    "````\n@everyone\n````",
    "a ``` b ```` c `````",
    "```python\nprint('hi')\n```\n# heading outside?",
    "<script>alert(1)</script>",
    "ends with backticks ```",
    "```",
    "",
    "line\r\nwindows\rold mac\n",
    "~~~\nnot a tilde fence close\n~~~",
]


def _fenced_tokens(markdown: str) -> list[tuple[str, str]]:
    return [(t.type, t.content) for t in MD.parse(markdown) if t.type in ("fence", "code_block")]


@pytest.mark.parametrize("code", ADVERSARIAL_CODE)
def test_fence_round_trips_one_block(code: str) -> None:
    rendered = fence(code, "python")
    tokens = MD.parse(rendered + "\n\nafter the block\n")
    fences = [t for t in tokens if t.type == "fence"]
    assert len(fences) == 1
    expected = code if code == "" or code.endswith(("\n", "\r")) else code + "\n"
    # markdown-it normalises line endings to \n, as GitHub's parser does.
    assert fences[0].content == re.sub(r"\r\n?", "\n", expected)
    assert fences[0].info == "python"
    # The paragraph after the block is still a paragraph: nothing leaked out of the fence.
    html = MD.render(rendered + "\n\nafter the block\n")
    assert html.endswith("<p>after the block</p>\n")


def test_fence_length_outgrows_backtick_runs() -> None:
    assert fence("x").startswith("```\n")
    assert fence("```").startswith("````\n")
    assert fence("a ```` b").startswith("`````\n")
    assert fence("a ```` b").endswith("\n`````")


def test_fence_drops_unsafe_info_string() -> None:
    assert fence("x", "py`thon").startswith("```\n")
    assert fence("x", "a b").startswith("```\n")
    assert fence("x", "c++").startswith("```c++\n")


def test_fence_inside_details_cannot_close_it() -> None:
    code = "</details>\n<details><summary>pwned</summary>\n```\n@everyone"
    doc = f"<details><summary>impact</summary>\n\n{fence(code)}\n\n</details>\n"
    html = MD.render(doc)
    assert html.count("<details>") == 1
    assert "&lt;/details&gt;" in html
    assert "<summary>pwned" not in html


@given(st.text(alphabet=st.sampled_from("`a \n<>@\r~"), max_size=40))
def test_fence_property_any_code_is_one_literal_block(code: str) -> None:
    tokens = [t for t in MD.parse(fence(code) + "\n\ntail\n") if t.type == "fence"]
    assert len(tokens) == 1
    expected = code if code == "" or code.endswith(("\n", "\r")) else code + "\n"
    assert tokens[0].content == re.sub(r"\r\n?", "\n", expected)


def test_escape_html() -> None:
    assert escape_html("<script>alert('x') && 1</script>") == (
        "&lt;script&gt;alert('x') &amp;&amp; 1&lt;/script&gt;"
    )
    assert escape_html("&lt;") == "&amp;lt;"  # already-escaped text shows literally
    html = MD.render(escape_html("</details><img src=x onerror=alert(1)>"))
    assert "<img" not in html and "</details>" not in html


@pytest.mark.parametrize(
    "text",
    ["@everyone", "cc @octocat please", "(@org/team)", "@a", "é@user", "*@user*", "\\@user",
     "line\n@user", "&#64;user", "&#x40;user", "&commat;user"],
)
def test_neutralise_mentions_stops_pings(text: str) -> None:
    out = neutralise_mentions(text)
    # Decode entities as a browser would before looking for mentions.
    assert not PINGS.search(html.unescape(MD.render(out)))
    assert out.replace(ZERO_WIDTH_JOINER, "").replace("&amp;", "&") == text


@pytest.mark.parametrize("text", ["mail ci@example.com", "a_@b", "x@y.z", "no at sign", "@", "@ x"])
def test_neutralise_mentions_leaves_non_mentions_alone(text: str) -> None:
    assert neutralise_mentions(text) == text


def test_neutralise_mentions_is_idempotent() -> None:
    once = neutralise_mentions("@a @b/c")
    assert neutralise_mentions(once) == once
    assert once == f"@{ZERO_WIDTH_JOINER}a @{ZERO_WIDTH_JOINER}b/c"


def test_safe_text_combines_both() -> None:
    out = safe_text("<b>@everyone</b>")
    assert out == f"&lt;b&gt;@{ZERO_WIDTH_JOINER}everyone&lt;/b&gt;"


def _code_span(markdown: str, parser: MarkdownIt = MD) -> list[str]:
    spans: list[str] = []
    for token in parser.parse(markdown):
        for child in token.children or []:
            if child.type == "code_inline":
                spans.append(child.content)
    return spans


@pytest.mark.parametrize(
    "text",
    ["plain", "a`b", "``", "`start", "end`", "` both `", " lead", "trail ", "  ", "x ``` y ` z",
     "<script>", "@everyone", "a|b"],
)
def test_inline_code_round_trips(text: str) -> None:
    span = inline_code(text)
    assert _code_span(f"before {span} after") == [text]


def test_inline_code_flattens_line_breaks_and_handles_empty() -> None:
    assert _code_span(inline_code("a\nb\r\nc")) == ["a b c"]
    assert _code_span(inline_code("")) == [" "]


def test_inline_code_in_table_keeps_pipe_in_cell() -> None:
    table = f"| name | kind |\n|---|---|\n| {inline_code('a|b', in_table=True)} | x |\n"
    html = GFM.render(table)
    assert "<code>a|b</code>" in html
    assert html.count("<td>") == 2


@given(st.text(alphabet=st.sampled_from("`a <>|@"), max_size=30))
def test_inline_code_property(text: str) -> None:
    assert _code_span(f"x {inline_code(text)} y") == [text or " "]
