"""gitgraph.claudemd: the managed block changes, everything around it does not."""

from __future__ import annotations

import re
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gitgraph.claudemd import BEGIN, END, block_is_current, update_block, write_block
from gitgraph.errors import GitGraphError

# Text the user owns: line endings of both kinds, stray CRs, HTML comments, near-miss markers.
user_text = st.lists(
    st.sampled_from(["a", " ", "\n", "\r\n", "\r", "#", "<!-- x -->", "é", "`", "\t",
                     "<!-- gitgraph:begin", "gitgraph:end -->", BEGIN + "x", "`" + END]),
    max_size=30,
).map("".join)
block_content = st.lists(
    st.sampled_from(["x", " ", "\n", "\r\n", "-", "@", "`"]), max_size=20
).map("".join)
newline = st.sampled_from(["\n", "\r\n"])


def _has_marker_line(text: str) -> bool:
    return any(line.strip() in (BEGIN, END) for line in text.split("\n"))


@st.composite
def managed_file(draw: st.DrawFn) -> tuple[str, str, str]:
    """(prefix, old block, suffix) where the block's markers stand on their own lines."""
    prefix, suffix, old = draw(user_text), draw(user_text), draw(block_content)
    nl = draw(newline)
    if prefix:
        prefix += nl
    if suffix:
        suffix = nl + suffix
    assume(not _has_marker_line(prefix + "\n" + suffix) and not _has_marker_line(old))
    return prefix, f"{BEGIN}{nl}{old}{nl}{END}", suffix


@given(managed_file(), block_content)
def test_text_outside_markers_is_preserved_byte_for_byte(
    parts: tuple[str, str, str], content: str
) -> None:
    prefix, old_block, suffix = parts
    result = update_block(prefix + old_block + suffix, content)
    assert result.startswith(prefix)
    assert result.endswith(suffix)
    middle = result[len(prefix): len(result) - len(suffix)]
    assert middle.startswith(BEGIN) and middle.endswith(END)
    assert BEGIN not in middle[len(BEGIN):] and END not in middle[: -len(END)]


@given(managed_file(), block_content)
def test_applying_same_content_twice_is_a_no_op(parts: tuple[str, str, str], content: str) -> None:
    once = update_block("".join(parts), content)
    assert update_block(once, content) == once


@given(user_text, block_content)
def test_append_keeps_existing_text_as_prefix(existing: str, content: str) -> None:
    assume(not _has_marker_line(existing))
    result = update_block(existing, content)
    assert result.startswith(existing)
    appended = result[len(existing):]
    assert BEGIN in appended and appended.rstrip("\r\n").endswith(END)
    if existing.strip():
        # A blank line separates the user's text from the block.
        assert (existing + appended[: appended.index(BEGIN)]).endswith(("\n\n", "\r\n\r\n"))
    assert update_block(result, content) == result


@settings(deadline=None, max_examples=50)  # real files and fsync: slow and jittery on CI
@given(managed_file(), block_content)
def test_write_twice_writes_once(parts: tuple[str, str, str], content: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "CLAUDE.md")
        path.write_bytes("".join(parts).encode())
        expected = update_block("".join(parts), content)
        assert write_block(path, content) is (expected != "".join(parts))
        assert path.read_bytes() == expected.encode()
        before = path.stat()
        assert write_block(path, content) is False
        after = path.stat()
        assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)
        assert block_is_current(path, content)


def test_missing_file_gets_block_with_trailing_newline(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    assert not block_is_current(path, "hello")
    assert write_block(path, "hello\n") is True
    assert path.read_text() == f"{BEGIN}\nhello\n{END}\n"
    assert block_is_current(path, "hello")
    assert not block_is_current(path, "bye")
    assert update_block(None, "") == f"{BEGIN}\n{END}\n"


def test_append_separators() -> None:
    assert update_block("# T", "x") == f"# T\n\n{BEGIN}\nx\n{END}\n"
    assert update_block("# T\n", "x") == f"# T\n\n{BEGIN}\nx\n{END}\n"
    assert update_block("# T\n\n", "x") == f"# T\n\n{BEGIN}\nx\n{END}\n"


def test_crlf_file_keeps_crlf_and_missing_final_newline() -> None:
    existing = f"# Title\r\n\r\n{BEGIN}\r\nold\r\n{END}\r\ntail without newline"
    result = update_block(existing, "new\nlines\n")
    assert result == f"# Title\r\n\r\n{BEGIN}\r\nnew\r\nlines\r\n{END}\r\ntail without newline"
    appended = update_block("# Title\r\nno newline", "x")
    assert appended == f"# Title\r\nno newline\r\n\r\n{BEGIN}\r\nx\r\n{END}\r\n"


def test_replace_at_end_of_file_without_newline() -> None:
    assert update_block(f"intro\n{BEGIN}\nold\n{END}", "new") == f"intro\n{BEGIN}\nnew\n{END}"


def test_marker_mentioned_in_prose_is_not_a_marker() -> None:
    existing = f"Do not edit between `{BEGIN}` and `{END}`.\n"
    result = update_block(existing, "x")
    assert result.startswith(existing)
    assert result.count(BEGIN) == 2


@pytest.mark.parametrize(
    "existing, message",
    [
        (f"a\n{BEGIN}\nb\n", "1 `<!-- gitgraph:begin -->` and 0"),
        (f"a\n{END}\nb\n", "0 `<!-- gitgraph:begin -->` and 1"),
        (f"{END}\nx\n{BEGIN}\n", "before"),
        (f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", "2 `<!-- gitgraph:begin -->` and 2"),
        (f"{BEGIN}\n{BEGIN}\n{END}\n", "2 `<!-- gitgraph:begin -->` and 1"),
    ],
)
def test_malformed_markers_are_user_errors(existing: str, message: str) -> None:
    with pytest.raises(GitGraphError, match=re.escape(message)):
        update_block(existing, "x")


def test_content_with_a_marker_line_is_refused() -> None:
    with pytest.raises(GitGraphError, match="marker"):
        update_block("", f"a\n  {END}\nb")


def test_malformed_file_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(f"{BEGIN}\nonly begin\n")
    with pytest.raises(GitGraphError):
        write_block(path, "x")
    with pytest.raises(GitGraphError):
        block_is_current(path, "x")
    assert path.read_text() == f"{BEGIN}\nonly begin\n"
    assert [p.name for p in tmp_path.iterdir()] == ["CLAUDE.md"]  # no temp file left


def test_write_keeps_mode_and_follows_symlink(tmp_path: Path) -> None:
    real = tmp_path / "AGENTS.md"
    real.write_text("# Agents\n")
    real.chmod(0o640)
    link = tmp_path / "CLAUDE.md"
    link.symlink_to("AGENTS.md")
    assert write_block(link, "graph") is True
    assert link.is_symlink()
    assert real.read_text() == f"# Agents\n\n{BEGIN}\ngraph\n{END}\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["AGENTS.md", "CLAUDE.md"]


def test_non_utf8_file_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"\xff\xfe bad")
    with pytest.raises(GitGraphError, match="UTF-8"):
        write_block(path, "x")


def test_unwritable_location_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(GitGraphError, match="cannot write"):
        write_block(tmp_path / "no-such-dir" / "CLAUDE.md", "x")
    (tmp_path / "a-file").write_text("")
    with pytest.raises(GitGraphError, match="cannot read"):
        write_block(tmp_path / "a-file" / "CLAUDE.md", "x")
