"""Two sides of a diff → changed files and changed symbols (the seeds of the ranking).

Symbols are matched by qualified name and compared by text hash, so code that merely moved
because of an edit above it is not "changed". A container (class, impl) counts as changed only
when its own lines changed, not when the change is inside one of its members.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import git
from .errors import GitGraphError
from .extract import code_digests
from .index import Tree, snapshot
from .model import Change, Extraction, Symbol

ZERO = git.ZERO


@dataclass(frozen=True)
class Sides:
    """What `gitgraph diff` compares: base and head labels, git diff arguments, head tree."""

    base: str  # commit id, or "INDEX" (for worktree-vs-index)
    head: str  # commit id, "INDEX" or "WORKTREE"
    diff_args: tuple[str, ...]
    head_tree: Tree
    # `git diff --raw` of diff_args, started before the head tree was listed (both walk the
    # work tree; run together, they take the time of one)
    started: Callable[[], list[git.RawChange]] | None = field(default=None, compare=False,
                                                               repr=False)


def parse_sides(root: Path, revisions: list[str], staged: bool,
                meanwhile: Callable[[], object] = lambda: None) -> Sides:
    """Revision arguments with `git diff`'s meaning (none, --staged, R, A B, A..B, A...B);
    `meanwhile` runs while git diffs and lists the trees."""
    if staged and len(revisions) > 1:
        raise GitGraphError("--staged takes at most one revision")
    if len(revisions) > 2:
        raise GitGraphError("too many revisions (give at most two, or A..B / A...B)")
    if len(revisions) == 1 and "..." in revisions[0]:
        a, b = revisions[0].split("...", 1)
        head = git.resolve_commit(root, b or "HEAD")
        base = git.merge_base(root, git.resolve_commit(root, a or "HEAD"), head)
        return _sides(root, base, head, (base, head), lambda: snapshot(root, rev=head),
                      meanwhile)
    if len(revisions) == 1 and ".." in revisions[0]:
        a, b = revisions[0].split("..", 1)
        revisions = [a or "HEAD", b or "HEAD"]
    if len(revisions) == 2:
        base, head = (git.resolve_commit(root, r) for r in revisions)
        return _sides(root, base, head, (base, head), lambda: snapshot(root, rev=head),
                      meanwhile)
    if staged:
        base = git.resolve_commit(root, revisions[0] if revisions else "HEAD")
        return _sides(root, base, "INDEX", ("--cached", base),
                      lambda: snapshot(root, staged=True), meanwhile)
    if revisions:
        return _worktree_sides(root, git.resolve_commit(root, revisions[0]), meanwhile)
    return _sides(root, "INDEX", "WORKTREE", (), lambda: snapshot(root), meanwhile)


def _sides(root: Path, base: str, head: str, diff_args: tuple[str, ...],
           head_tree: Callable[[], Tree], meanwhile: Callable[[], object]) -> Sides:
    finish = git.diff_raw_started(root, *diff_args)
    try:
        meanwhile()
        tree = head_tree()
    except BaseException:
        with contextlib.suppress(GitGraphError):
            finish()  # reaped, its error (if any) superseded by this one
        raise
    return Sides(base, head, diff_args, tree, functools.cache(finish))


def _worktree_sides(root: Path, base: str, meanwhile: Callable[[], object]) -> Sides:
    """A revision against the work tree: its tree with the diff laid over it (one walk of
    the work tree, git diff's, and a listing of the revision's tree at the same time)."""
    finish = git.diff_raw_started(root, base)
    listing = git.ls_tree_started(root, base)
    try:
        meanwhile()
    except BaseException:
        for reap in (finish, listing):
            with contextlib.suppress(GitGraphError):
                reap()  # its error (if any) superseded by this one
        raise
    try:
        changes = finish()
    finally:
        entries = listing()
    tree = Tree("WORKTREE", tuple(git.worktree_over(root, entries, changes)))
    return Sides(base, "WORKTREE", (base,), tree, lambda: changes)


@dataclass(frozen=True)
class FileChange:
    """A changed file with both sides' blobs and extractions (None where absent)."""

    old_path: str
    new_path: str
    status: str
    old_blob: str
    new_blob: str
    old: Extraction | None = None
    new: Extraction | None = None
    old_source: bytes = b""
    new_source: bytes = b""


def changed_files(root: Path, sides: Sides) -> list[git.RawChange]:
    """File-level changes, with work-tree blob ids filled in from the head tree."""
    head_blobs = {e.path: e.blob for e in sides.head_tree.entries}
    changes = []
    raw = sides.started() if sides.started else git.diff_raw(root, *sides.diff_args)
    for change in raw:
        if change.status != "D" and change.new_blob == ZERO:
            change = change._replace(new_blob=head_blobs.get(change.new_path, ZERO))
        changes.append(change)
    return changes


def symbol_changes(change: FileChange) -> list[Change]:
    """Changed symbols of one file, plus the file itself when its top-level code changed."""
    old = {s.qualname: s for s in change.old.symbols} if change.old else {}
    new = {s.qualname: s for s in change.new.symbols} if change.new else {}
    lang_ok = bool(change.old or change.new)
    if not lang_ok:
        return []
    found: list[Change] = []
    differing = sorted(q for q in old.keys() | new.keys()
                       if q not in old or q not in new or old[q].hash != new[q].hash)
    old_lines = change.old_source.decode("utf-8", "replace").splitlines()
    new_lines = change.new_source.decode("utf-8", "replace").splitlines()
    for qual in differing:
        before, after = old.get(qual), new.get(qual)
        if after is None and before is not None:
            found.append(Change(f"{change.old_path}::{qual}", "removed",
                                lines=before.end_line - before.start_line + 1))
            continue
        if before is None and after is not None:
            found.append(Change(f"{change.new_path}::{qual}", "added",
                                lines=after.end_line - after.start_line + 1))
            continue
        assert before is not None and after is not None
        own_before = _own_lines(before, old, old_lines)
        own_after = _own_lines(after, new, new_lines)
        if own_before == own_after:
            continue  # only members changed; they are reported themselves
        kind = "signature" if before.signature != after.signature else "body"
        size = sum(1 for op in difflib.ndiff(own_before, own_after) if op[:1] in "+-")
        found.append(Change(f"{change.new_path}::{qual}", kind, lines=size))
    found = _mark_cosmetic(change, found, old, new)
    top_before = _top_level(old, old_lines)
    top_after = _top_level(new, new_lines)
    if change.status in "RC" and change.old_path != change.new_path:
        found.append(Change(change.new_path, "signature", lines=1))  # importers must follow
    elif top_before != top_after:
        kind = "added" if change.status == "A" else "removed" if change.status == "D" else "body"
        node = change.old_path if kind == "removed" else change.new_path
        size = sum(1 for op in difflib.ndiff(top_before, top_after) if op[:1] in "+-")
        found.append(Change(node, kind, lines=size))
    return found


def _own_lines(symbol: Symbol, symbols: dict[str, Symbol], lines: list[str]) -> list[str]:
    """The symbol's lines without those of its members (nested definitions)."""
    covered: set[int] = set()
    for qual, member in symbols.items():
        if qual.startswith(symbol.qualname + "."):
            covered.update(range(member.start_line, member.end_line + 1))
    return [lines[i - 1].strip() for i in range(symbol.start_line, min(symbol.end_line,
                                                                      len(lines)) + 1)
            if i not in covered]


def _top_level(symbols: dict[str, Symbol], lines: list[str]) -> list[str]:
    covered: set[int] = set()
    for qual, symbol in symbols.items():
        if "." not in qual:
            covered.update(range(symbol.start_line, symbol.end_line + 1))
    return [line.strip() for i, line in enumerate(lines, 1) if line.strip() and i not in covered]


def _mark_cosmetic(change: FileChange, found: list[Change], old: dict[str, Symbol],
                   new: dict[str, Symbol]) -> list[Change]:
    """Body changes that touch only whitespace or comments are flagged (and weighted low)."""
    bodies = [c for c in found if c.kind == "body"]
    if not bodies or change.old is None or change.new is None or not change.old_source:
        return found
    lang = _lang_of(change)
    if lang is None:
        return found
    quals = [c.node.rpartition("::")[2] for c in bodies]
    before = code_digests(change.old_source, lang,
                          [(old[q].start_line, old[q].end_line) for q in quals])
    after = code_digests(change.new_source, lang,
                         [(new[q].start_line, new[q].end_line) for q in quals])
    cosmetic = {c.node for c, b, a in zip(bodies, before, after, strict=True) if b == a}
    return [Change(c.node, c.kind, True, c.lines) if c.node in cosmetic else c for c in found]


def _lang_of(change: FileChange) -> str | None:
    from .languages import language_of

    return language_of(change.new_path)
