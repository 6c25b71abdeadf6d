"""gitgraph.render: golden files per format, the JSON contract, and safety of untrusted text.

A golden mismatch writes `<name>.actual` next to the expected file; rerun with
GITGRAPH_UPDATE_GOLDEN=1 to accept the new output (then read the diff before committing).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from rich.console import Console

import gitgraph
from gitgraph import claudemd
from gitgraph.errors import GitGraphError
from gitgraph.model import Impact, ImpactNode
from gitgraph.render import FORMATS, render, yaml_format
from gitgraph.render.json_format import (
    ADDITIVE_KEYS,
    ADDITIVE_NODE_KEYS,
    CONTRACT_KEYS,
    EDGE_KEYS,
    NODE_KEYS,
    document,
)
from gitgraph.render.text import highlight, print_text

GOLDEN = Path(__file__).parent / "data" / "render"
SUFFIX = {"text": "txt", "markdown": "md", "json": "json", "yaml": "yaml", "claude-md": "claude.md"}

BASE = "3f1c2a9b8e7d6c5b4a392817161514131211100f"
AREA = "src/shapes.py::Circle.area"
PERIMETER = "src/shapes.py::Square.perimeter"
SUMMARY = "src/report.py::summary"
DRAW = "src/render.py::Renderer.draw"
TEST = "tests/test_shapes.py::test_area"


def sample() -> Impact:
    """Two changed symbols (a body, a removal); three impacted at body/signature/line; a test."""
    nodes = (
        ImpactNode(
            AREA, "method", "Circle.area", "src/shapes.py", 12, 14, 0.41237, True, "body", 31,
            ("changed: body",),
            text=(
                "    def area(self) -> float:\n"
                '        """Area of the circle."""\n'
                "        return math.pi * self.radius**2\n"
            ),
            resolution="body",
            signature="def area(self) -> float:",
            parts=(("seed", 0.41237),),
            path_from_seed=(AREA,),
        ),
        ImpactNode(
            PERIMETER, "method", "Square.perimeter", "src/shapes.py", 20, 21, 0.18, True,
            "removed", 14, ("changed: removed",),
            resolution="line",
            signature="def perimeter(self) -> float:",
            parts=(("seed", 0.18),),
            path_from_seed=(PERIMETER,),
        ),
        ImpactNode(
            SUMMARY, "function", "summary", "src/report.py", 5, 9, 0.210449, False, None, 48,
            ("calls src/shapes.py::Circle.area",),
            text=(
                "def summary(shapes: list[Shape]) -> str:\n"
                "    total = sum(s.area() for s in shapes)\n"
                '    return f"{len(shapes)} shapes, area {total:.2f}"\n'
            ),
            resolution="body",
            signature="def summary(shapes: list[Shape]) -> str:",
            parts=(("calls", 0.2104),),
            path_from_seed=(AREA, SUMMARY),
        ),
        ImpactNode(
            DRAW, "method", "Renderer.draw", "src/render.py", 30, 52, 0.0731, False, None, 12,
            ("calls src/shapes.py::Circle.area", "calls src/report.py::summary"),
            text="    def draw(self, shape: Shape, *, scale: float = 1.0) -> None:\n",
            resolution="signature",
            signature="def draw(self, shape: Shape, *, scale: float = 1.0) -> None:",
            parts=(("calls", 0.0612), ("cochange", 0.0119)),
            path_from_seed=(AREA, SUMMARY, DRAW),
        ),
        ImpactNode(
            TEST, "function", "test_area", "tests/test_shapes.py", 8, 8, 0.05, False, None, 9,
            ("tests src/shapes.py::Circle.area",),
            resolution="line",
            signature="def test_area():",
            test=True,
            parts=(("tests", 0.05),),
            path_from_seed=(AREA, TEST),
        ),
    )  # fmt: skip
    return Impact(
        base=BASE,
        head="WORKTREE",
        budget=2000,
        encoding="cl100k_base",
        seeds=(AREA, PERIMETER),
        nodes=nodes,
        edges=(
            (SUMMARY, AREA, "calls"),
            (DRAW, AREA, "calls"),
            (DRAW, SUMMARY, "calls"),
            (TEST, AREA, "tests"),
        ),
        tests=(TEST,),
        omitted_nodes=4,
        omitted_tokens=612,
        tokens_used=356,
        changed_files=("README.md", "src/shapes.py"),
        untested=(PERIMETER,),
    )


def hunk_sample() -> Impact:
    """A changed function shown as a hunk (staged change, INDEX head), nothing else reached."""
    node = ImpactNode(
        "lib/io.go::Read", "function", "Read", "lib/io.go", 3, 9, 1.0, True, "signature", 40,
        ("changed: signature",),
        text=(
            "@@ -3,4 +3,4 @@\n"
            "-func Read(path string) ([]byte, error) {\n"
            "+func Read(ctx context.Context, path string) ([]byte, error) {\n"
            "\tdata, err := os.ReadFile(path)\n"
            "\treturn data, err\n"
        ),
        resolution="hunk",
        signature="func Read(ctx context.Context, path string) ([]byte, error)",
    )  # fmt: skip
    return Impact(
        base="a" * 40, head="INDEX", budget=500, encoding="o200k_base", seeds=(node.id,),
        nodes=(node,), edges=(), tests=(), tokens_used=77, changed_files=("lib/io.go",),
        untested=(node.id,),
    )  # fmt: skip


def empty_sample() -> Impact:
    """A change that touches no symbol (say, only README.md)."""
    return Impact(
        base=BASE, head="b" * 40, budget=1000, encoding="cl100k_base", seeds=(), nodes=(),
        edges=(), tests=(), tokens_used=41, changed_files=("README.md",),
    )  # fmt: skip


CASES = {
    "impact": (sample, {}),
    "impact-explain": (sample, {"explain": True}),
    "impact-nocode": (sample, {"code": False}),
    "hunk": (hunk_sample, {}),
    "empty": (empty_sample, {}),
}
GOLDEN_CASES = [
    (case, fmt)
    for case in CASES
    for fmt in FORMATS
    if case in ("impact", "impact-explain")
    or fmt in ("text", "markdown", "claude-md")
    or (case == "empty" and fmt == "json")
]


def check_golden(name: str, actual: str) -> None:
    expected_path = GOLDEN / name
    actual_path = GOLDEN / f"{name}.actual"
    if os.environ.get("GITGRAPH_UPDATE_GOLDEN") == "1":
        expected_path.parent.mkdir(parents=True, exist_ok=True)
        expected_path.write_bytes(actual.encode("utf-8"))
        actual_path.unlink(missing_ok=True)
        return
    expected = expected_path.read_bytes().decode("utf-8") if expected_path.exists() else ""
    if actual == expected:
        actual_path.unlink(missing_ok=True)
        return
    actual_path.write_bytes(actual.encode("utf-8"))
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            str(
                expected_path.relative_to(Path.cwd())
                if expected_path.is_relative_to(Path.cwd())
                else expected_path
            ),
            str(actual_path.name),
        )
    )
    pytest.fail(f"{name} differs from its golden file (GITGRAPH_UPDATE_GOLDEN=1 rewrites):\n{diff}")


@pytest.mark.parametrize(("case", "fmt"), GOLDEN_CASES, ids=[f"{c}.{f}" for c, f in GOLDEN_CASES])
def test_golden(case: str, fmt: str) -> None:
    make, options = CASES[case]
    check_golden(f"{case}.{SUFFIX[fmt]}", render(make(), fmt, **options))


# -- every format -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("options", [{}, {"explain": True}, {"code": False}])
def test_deterministic_and_newline_terminated(fmt: str, options: dict[str, bool]) -> None:
    first = render(sample(), fmt, **options)
    assert render(sample(), fmt, **options) == first
    assert first.endswith("\n") and not first.endswith("\n\n")


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_absolute_path_of_this_machine(fmt: str, tmp_path: Path) -> None:
    machine = {
        os.getcwd(),
        str(Path.home()),
        tempfile.gettempdir(),
        str(tmp_path),
        sys.prefix,
        str(Path(gitgraph.__file__).parent.parent),
    }
    for make, options in CASES.values():
        out = render(make(), fmt, **options)
        for path in machine:
            assert path not in out
        assert not re.search(r"(?:^|[\s\"'`(])/(?:home|tmp|work|root|Users|var)/", out)


def test_unknown_format() -> None:
    with pytest.raises(GitGraphError, match="text, markdown, json, yaml, claude-md"):
        render(sample(), "html")


# -- JSON: the public contract -----------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"explain": True}, {"code": False}])
def test_json_has_exactly_the_contract_keys(options: dict[str, bool]) -> None:
    out = json.loads(render(sample(), "json", **options))
    assert tuple(out) == CONTRACT_KEYS + ADDITIVE_KEYS
    assert out["schema"] == "gitgraph.impact/1"
    assert out["omitted"] == {"nodes": 4, "tokens": 612}
    for node in out["nodes"]:
        assert tuple(node)[: len(NODE_KEYS)] == NODE_KEYS
        assert set(node) - set(NODE_KEYS) <= set(ADDITIVE_NODE_KEYS)
        assert isinstance(node["score"], float) and isinstance(node["tokens"], int)
        assert node["change"] is None if not node["changed"] else node["change"]
        assert ("explain" in node) == bool(options.get("explain"))
        if "explain" in node:
            assert set(node["explain"]) == {"parts", "path"}
    assert not options.get("code", True) or "code" in out["nodes"][0]
    assert options.get("code", True) or all("code" not in node for node in out["nodes"])
    assert all(tuple(edge) == EDGE_KEYS for edge in out["edges"])


def test_json_keeps_rank_order_one_node_per_line() -> None:
    impact = sample()
    shuffled = dataclasses.replace(impact, nodes=impact.nodes[::-1])
    for case in (impact, shuffled):
        out = render(case, "json")
        assert [node["id"] for node in json.loads(out)["nodes"]] == [n.id for n in case.nodes]
        node_lines = [line for line in out.splitlines() if line.startswith('{"id":')]
        assert [json.loads(line.rstrip(",]"))["id"] for line in node_lines] == [
            n.id for n in case.nodes
        ]


def test_json_rounds_scores_and_survives_undecodable_names() -> None:
    node = dataclasses.replace(
        sample().nodes[2], score=1 / 3, parts=(("calls", 2 / 3),), path="src/caf\udce9.py"
    )
    impact = dataclasses.replace(sample(), nodes=(node,))
    out = render(impact, "json", explain=True)
    out.encode("utf-8")  # no lone surrogate left
    loaded = json.loads(out)["nodes"][0]
    assert loaded["score"] == 0.3333 and loaded["explain"]["parts"] == {"calls": 0.6667}
    assert loaded["path"] == "src/caf\ufffd.py"


# -- YAML: the same data ------------------------------------------------------------------------


@pytest.mark.parametrize("make", [sample, hunk_sample, empty_sample])
@pytest.mark.parametrize("options", [{}, {"explain": True}, {"code": False}])
def test_yaml_round_trips_to_the_json(make: Callable[[], Impact], options: dict[str, bool]) -> None:
    impact = make()
    assert yaml.safe_load(render(impact, "yaml", **options)) == json.loads(
        render(impact, "json", **options)
    )


def test_yaml_code_is_a_literal_block_even_with_tabs() -> None:
    out = render(hunk_sample(), "yaml")
    assert "  code: |\n    @@ -3,4 +3,4 @@\n" in out
    assert "\n    \tdata, err := os.ReadFile(path)\n" in out


@settings(max_examples=500, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            list("ab ` \t\n\r#:-|>'\"\\") + list("\x85\u2028\u2029\ufeff\x0b\x0c\x1bé\x00")
        ),
        max_size=40,
    )
)
def test_yaml_round_trips_any_code(code: str) -> None:
    node = dataclasses.replace(sample().nodes[0], text=code or "x")
    impact = dataclasses.replace(sample(), nodes=(node, sample().nodes[2]))
    out = render(impact, "yaml")
    assert yaml.safe_load(out) == json.loads(render(impact, "json"))
    # Nodes are dumped one by one and cached; the pieces must read as one dump would.
    assert out == yaml_format._dump(document(impact))


# -- Markdown and the CLAUDE.md block: untrusted text stays inert -------------------------------

EVIL_CODE = [
    "def f():\n    s = '```'\n    return s\n",
    "x = '````'  # and ``` too\n</details>\n",
    "# @everyone look\n<script>alert(1)</script>\n",
    "<!-- gitgraph:end -->\n  <!-- gitgraph:begin -->  \n",
    "ends in a run ``````",
]
# GitHub's mention pattern, as in tests/test_safe.py; and a CLAUDE.md import (`@` + path).
PINGS = re.compile(r"(?:^|[^A-Za-z0-9_])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9_-]+)?")
IMPORTS = re.compile(r"(?:^|\s)@[^\s\u200d]")


def evil() -> Impact:
    """Untrusted content everywhere: code, names, paths, reasons, test ids."""
    base = sample()
    nodes = []
    for i, code in enumerate(EVIL_CODE):
        nodes.append(
            ImpactNode(
                f"src/<script>x{i}.py::@everyone", "function", "@everyone</details>",
                f"src/<script>x{i}.py", 1, 3, 0.1, i == 0, "body" if i == 0 else None, 5,
                ("calls @~/.ssh/id_rsa", "imports </details><script>alert(1)</script>",
                 "calls src/`x`.py::@team/admins"),
                text=code, resolution="body", signature="def @everyone():",
                parts=(("calls <b>", 0.1),), path_from_seed=("@org/team", "<script>"),
            )
        )  # fmt: skip
    nodes.append(dataclasses.replace(nodes[1], resolution="line", text=""))
    return dataclasses.replace(
        base,
        nodes=tuple(nodes),
        tests=("tests/test_x.py::test_@everyone", "@~/secrets"),
        untested=("src/<script>.py::@admin",),
        head="<script>",
    )


def outside_code(html: str) -> str:
    """The rendered HTML minus code blocks and code spans."""
    return re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", html, flags=re.DOTALL)


@pytest.mark.parametrize("fmt", ["markdown", "claude-md"])
@pytest.mark.parametrize("explain", [False, True])
def test_untrusted_content_stays_inert(fmt: str, explain: bool) -> None:
    impact = evil()
    out = render(impact, fmt, explain=explain)
    tokens = MarkdownIt("commonmark").parse(out)
    fences = [token for token in tokens if token.type == "fence"]
    shown = [node.text for node in impact.nodes if node.text]
    assert len(fences) == len(shown)
    for token, code in zip(fences, shown, strict=True):
        runs = [len(run) for run in re.findall(r"`+", code)]
        assert len(token.markup) > max(runs, default=0)
        if fmt == "markdown":
            assert token.content == code if code.endswith("\n") else code + "\n"  # as written
    html = MarkdownIt("commonmark").render(out)
    prose = outside_code(html)
    assert "<script" not in prose and "</details" not in prose and "<b>" not in prose
    assert not PINGS.search(prose), PINGS.search(prose)
    text = re.sub(r"<[^>]+>", " ", prose)
    assert not IMPORTS.search(text), IMPORTS.search(text)


def test_claude_md_block_has_one_begin_and_one_end() -> None:
    out = render(evil(), "claude-md")
    lines = out.rstrip("\n").split("\n")
    assert lines[0] == claudemd.BEGIN and lines[-1] == claudemd.END
    stripped = [line.strip() for line in lines]
    assert stripped.count(claudemd.BEGIN) == 1 and stripped.count(claudemd.END) == 1
    # The body drops into claudemd.update_block, which refuses marker lines.
    from gitgraph.render.claude_md import body

    updated = claudemd.update_block("# Notes\n", body(evil()))
    assert updated.startswith("# Notes\n\n" + claudemd.BEGIN + "\n")
    assert updated == "# Notes\n\n" + out


@pytest.mark.parametrize("fmt", ["text", "markdown", "claude-md"])
def test_terminal_control_characters_are_replaced(fmt: str) -> None:
    node = dataclasses.replace(
        sample().nodes[0], text="a = 1\x1b[2J\r\nb = 2\rhidden\x07\n", name="Circle.area\x1b]0;x"
    )
    out = render(dataclasses.replace(sample(), nodes=(node,)), fmt)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out)
    assert "a = 1\ufffd[2J\n" in out and "b = 2\ufffdhidden\ufffd\n" in out


# -- text: colour never changes the words -------------------------------------------------------


@pytest.mark.parametrize(("make", "options"), list(CASES.values()), ids=list(CASES))
def test_print_text_keeps_every_character(
    make: Callable[[], Impact], options: dict[str, bool]
) -> None:
    plain = render(make(), "text", **options)
    console = Console(record=True, force_terminal=True, color_system="truecolor", width=30)
    print_text(plain, console)
    assert console.export_text(styles=False) == plain
    assert highlight(plain).plain == plain


def test_print_text_colours_hunks_and_locations() -> None:
    styled = highlight(render(hunk_sample(), "text"))
    spans = {styled.plain[span.start : span.end]: str(span.style) for span in styled.spans}
    assert spans["lib/io.go:3-9"] == "cyan"
    assert (
        spans["      +func Read(ctx context.Context, path string) ([]byte, error) {\n"] == "green"
    )
    assert spans["      -func Read(path string) ([]byte, error) {\n"] == "red"
