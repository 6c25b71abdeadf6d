"""The gitgraph-managed block in CLAUDE.md: everything outside the markers is the user's.

A marker counts only when it stands alone on its line (surrounding spaces allowed), so
prose or a code span that merely mentions `<!-- gitgraph:begin -->` is left alone. The
block is rewritten only when its content changes, so an unchanged repository never dirties
the file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from gitgraph.errors import GitGraphError

BEGIN = "<!-- gitgraph:begin -->"
END = "<!-- gitgraph:end -->"


def _marker_offsets(text: str, marker: str) -> list[int]:
    """Offsets of `marker` in `text` where it is the only thing on its line."""
    offsets: list[int] = []
    start = 0
    for line in text.split("\n"):  # Markdown's lines; a trailing "\r" is stripped below
        if line.strip() == marker:
            offsets.append(start + line.index(marker))
        start += len(line) + 1
    return offsets


def _newline(text: str, start: int = 0) -> str:
    """The line ending of the first line break at or after `start`."""
    first = text.find("\n", start)
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _block(content: str, newline: str) -> str:
    lines = content.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n").split("\n")
    if BEGIN in (line.strip() for line in lines) or END in (line.strip() for line in lines):
        raise GitGraphError("CLAUDE.md block content contains a gitgraph marker line (remove it)")
    body = newline.join(lines) + newline if lines != [""] else ""
    return f"{BEGIN}{newline}{body}{END}"


def update_block(existing: str | None, content: str) -> str:
    """`existing` with the managed block set to `content` (appended when there is none)."""
    text = existing or ""
    begins, ends = _marker_offsets(text, BEGIN), _marker_offsets(text, END)
    if not begins and not ends:
        newline = _newline(text)  # the file's style, from its first line break
        block = _block(content, newline)
        if not text:
            return block + newline
        if text.endswith(newline * 2):
            separator = ""
        elif text.endswith(newline):
            separator = newline
        else:
            separator = newline * 2
        return text + separator + block + newline
    if len(begins) != 1 or len(ends) != 1:
        raise GitGraphError(
            f"CLAUDE.md has {len(begins)} `{BEGIN}` and {len(ends)} `{END}` markers "
            "(keep exactly one of each, or delete both to let gitgraph append the block)"
        )
    begin, end = begins[0], ends[0]
    if end < begin:
        raise GitGraphError(
            f"CLAUDE.md has `{END}` before `{BEGIN}` (swap them, or delete both to start over)"
        )
    # The block keeps the line ending its begin marker has, so a rewrite never flips it.
    block = _block(content, _newline(text, begin))
    return text[:begin] + block + text[end + len(END):]


def _read(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise GitGraphError(f"cannot read {path}: {error.strerror} (check permissions)") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise GitGraphError(f"{path} is not UTF-8 (convert it to UTF-8)") from None


def block_is_current(path: str | os.PathLike[str], content: str) -> bool:
    """Whether the file already holds exactly this block (for `--check`); False if missing."""
    existing = _read(Path(path))
    return existing is not None and update_block(existing, content) == existing


def write_block(path: str | os.PathLike[str], content: str) -> bool:
    """Set the managed block in the file at `path` atomically; return whether it was written."""
    # Write through a symlink (CLAUDE.md -> AGENTS.md is common) instead of replacing it.
    target = Path(os.path.realpath(path))
    existing = _read(target)
    updated = update_block(existing, content)
    if updated == existing:
        return False
    temp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # 0o666 lets the umask decide a new file's mode, as an editor would; mkstemp gives 0600.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        message = f"cannot write {target}: {error.strerror} (check permissions)"
        raise GitGraphError(message) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(updated.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None:
            os.chmod(temp, target.stat().st_mode & 0o7777)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)
    return True


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable; not every platform can open a directory, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
