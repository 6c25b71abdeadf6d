"""Renderers: impact records to text, Markdown, JSON, YAML, the CLAUDE.md block, PR comments.

`render` is pure: the same Impact gives the same string, with no timestamps and no paths
other than the repo-relative ones the Impact holds. The selector counts tokens on exactly
this string, so the CLI must print it unchanged (`sys.stdout.write`: it already ends in a
newline; colour for a terminal comes from `text.print_text`, which keeps every character).
"""

from __future__ import annotations

from collections.abc import Callable

from gitgraph.errors import GitGraphError
from gitgraph.model import Impact

FORMATS = ("text", "markdown", "json", "yaml", "claude-md")

Renderer = Callable[..., str]


def _renderer(fmt: str) -> Renderer:
    # Imported on use: yaml and the Markdown helpers stay off the paths that never render.
    if fmt == "text":
        from gitgraph.render.text import render_text

        return render_text
    if fmt == "markdown":
        from gitgraph.render.markdown import render_markdown

        return render_markdown
    if fmt == "json":
        from gitgraph.render.json_format import render_json

        return render_json
    if fmt == "yaml":
        from gitgraph.render.yaml_format import render_yaml

        return render_yaml
    if fmt == "claude-md":
        from gitgraph.render.claude_md import render_claude_md

        return render_claude_md
    raise GitGraphError(f"unknown output format {fmt!r} (use one of: {', '.join(FORMATS)})")


def render(impact: Impact, fmt: str, *, explain: bool = False, code: bool = True) -> str:
    """`impact` in format `fmt` (one of FORMATS), ending in a newline."""
    return _renderer(fmt)(impact, explain=explain, code=code)
