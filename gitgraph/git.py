"""The only module that runs git: `-z` output everywhere, blobs through one `cat-file --batch`."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import BinaryIO, NamedTuple

from .errors import GitGraphError

_ENV_OVERRIDES = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


class TreeEntry(NamedTuple):
    """A file in a tree or in the index: mode, blob id, path."""

    mode: str
    blob: str
    path: str


def run(root: Path, *args: str, input: bytes | None = None, check: bool = True,
        fine: tuple[int, ...] = (0,)) -> bytes:
    """Run `git ARGS` in `root` and return stdout; a failure (an exit code not in `fine`)
    becomes a one-line GitGraphError."""
    try:
        # The environment is read per call, not at import: callers (and tests) may change it.
        proc = subprocess.run(
            ["git", *args], cwd=root, input=input, capture_output=True,
            env={**os.environ, **_ENV_OVERRIDES}, check=False,
        )
    except FileNotFoundError:
        raise GitGraphError("git not found (install git and put it on PATH)") from None
    if check and proc.returncode not in fine:
        _check(args, proc.returncode, proc.stderr)
    return proc.stdout


def _check(args: Sequence[str], returncode: int, stderr: bytes) -> None:
    if returncode != 0:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        # the reason, not the advice git prints after it ("hint: ...")
        reasons = [line for line in lines if line.startswith(("fatal:", "error:"))] or [
            line for line in lines if not line.startswith("hint:")]
        raise GitGraphError(f"git {args[0]} failed: {reasons[0] if reasons else returncode}")


ZERO = "0" * 40  # the blob id git shows for a work-tree file it has not hashed


def started(root: Path, *args: str, spooled: bool = False) -> Callable[[], bytes]:
    """Start `git ARGS` now, to run while the caller does other work; the returned function
    waits for it and returns stdout (errors as `run` reports them). Call it exactly once.
    `spooled` sends the output to an unnamed file, not a pipe: an output larger than a pipe
    holds would stop git until the caller reads it."""
    spool = _unnamed_file() if spooled else None
    try:
        proc = subprocess.Popen(
            ["git", *args], cwd=root, stdout=spool or subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, **_ENV_OVERRIDES},
        )
    except FileNotFoundError:
        if spool is not None:
            spool.close()
        raise GitGraphError("git not found (install git and put it on PATH)") from None

    def finish() -> bytes:
        stdout, stderr = proc.communicate()
        with spool or contextlib.nullcontext():
            _check(args, proc.returncode, stderr)
            if spool is None:
                return stdout
            spool.seek(0)
            return spool.read()

    return finish


def _unnamed_file() -> BinaryIO:
    import tempfile  # only the spooled commands need it (not the hook's path)

    return tempfile.TemporaryFile()


# (git dir, common dir) of each work tree top seen, from the one rev-parse of repo_root
_DIRS: dict[Path, tuple[Path, Path]] = {}


def repo_root(cwd: Path) -> Path:
    """The top of the work tree containing `cwd` (its git dirs are learnt on the way)."""
    if not cwd.is_dir():
        raise GitGraphError(f"not a git repository: {cwd} (no such directory)")
    try:
        out = run(cwd, "rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir")
    except GitGraphError:
        raise GitGraphError(f"not a git repository: {cwd} (run inside a git work tree)") from None
    lines = os.fsdecode(out).split("\n")
    if len(lines) != 4:  # a newline inside a path: ask for the top alone
        return Path(os.fsdecode(run(cwd, "rev-parse", "--show-toplevel").rstrip(b"\n")))
    root = Path(lines[0])
    _DIRS[root] = ((cwd / lines[1]).resolve(), (cwd / lines[2]).resolve())
    return root


@functools.cache
def common_dir(root: Path) -> Path:
    """`$(git rev-parse --git-common-dir)`: shared by all linked worktrees (asked once per
    work tree and process: every cache lookup needs it)."""
    if root in _DIRS:
        return _DIRS[root][1]
    out = os.fsdecode(run(root, "rev-parse", "--git-common-dir").rstrip(b"\n"))
    return (root / out).resolve()


def git_dir(root: Path) -> Path:
    """This worktree's own git dir (where MERGE_HEAD and the index live)."""
    if root in _DIRS:
        return _DIRS[root][0]
    out = os.fsdecode(run(root, "rev-parse", "--git-dir").rstrip(b"\n"))
    return (root / out).resolve()


def is_shallow(root: Path) -> bool:
    """True in a shallow clone, where old commits may be missing."""
    return run(root, "rev-parse", "--is-shallow-repository").strip() == b"true"


def resolve_commit(root: Path, rev: str) -> str:
    """The commit id `rev` names, or a one-line error saying why it cannot be found."""
    if rev.startswith("-"):
        raise GitGraphError(f"bad revision '{rev}' (revisions cannot start with '-')")
    out = run(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}",
              check=False)
    if out.strip():
        return out.decode().strip()
    if rev in ("HEAD", "@") and not has_commits(root):
        raise GitGraphError("the repository has no commits yet (commit something first)")
    hint = "check the name with `git log --oneline`"
    if is_shallow(root):
        hint = "this is a shallow clone: fetch more history, e.g. `git fetch --deepen=50`"
    raise GitGraphError(f"unknown revision '{rev}' ({hint})")


def has_commits(root: Path) -> bool:
    """False in a freshly initialised repository."""
    return bool(run(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip())


def merge_base(root: Path, a: str, b: str) -> str:
    """The best common ancestor of two commits (for `A...B`)."""
    out = run(root, "merge-base", a, b, check=False).strip()
    if not out:
        raise GitGraphError(f"no merge base between {a} and {b} (unrelated histories?)")
    return out.decode()


def ls_tree(root: Path, commit: str) -> list[TreeEntry]:
    """Every blob (and gitlink) of a commit's tree, recursively."""
    return parse_ls_tree(run(root, "ls-tree", "-r", "-z", "--full-tree", commit))


def ls_tree_started(root: Path, commit: str) -> Callable[[], list[TreeEntry]]:
    """`ls_tree`, started now (see `started`; spooled: a tree's listing outgrows a pipe)."""
    finish = started(root, "ls-tree", "-r", "-z", "--full-tree", commit, spooled=True)
    return lambda: parse_ls_tree(finish())


def parse_ls_tree(out: bytes) -> list[TreeEntry]:
    """Entries of `git ls-tree -r -z` output."""
    # "<mode> <type> <blob>\t<path>" per record; decoded at once, like ls_index's
    entries = []
    for record in os.fsdecode(out).split("\0")[:-1]:
        meta, _, path = record.partition("\t")
        entries.append(TreeEntry(meta[:6], meta[meta.rindex(" ") + 1:], path))
    return entries


def ls_index(root: Path) -> list[TreeEntry]:
    """Stage-0 entries of the index; conflicted paths take their 'ours' stage (2)."""
    # "<mode> <blob> <stage>\t<path>" per record; decoded at once (the hook's hot path)
    entries = []
    conflicted = False
    for record in os.fsdecode(run(root, "ls-files", "-s", "-z")).split("\0")[:-1]:
        meta, _, path = record.partition("\t")
        conflicted = conflicted or meta[-1] != "0"
        entries.append((meta[-1], TreeEntry(meta[:6], meta[7:-2], path)))
    if conflicted:
        rank = {"0": 0, "2": 1, "3": 2, "1": 3}
        chosen: dict[str, tuple[int, TreeEntry]] = {}
        for stage, entry in entries:
            if entry.path not in chosen or rank[stage] < chosen[entry.path][0]:
                chosen[entry.path] = (rank[stage], entry)
        entries = [("0", entry) for _, entry in chosen.values()]
    return sorted((entry for _, entry in entries), key=lambda entry: entry.path)


def worktree_entries(root: Path) -> list[TreeEntry]:
    """Tracked files as they are on disk: index ids, re-hashed where the file was modified."""
    modified = started(root, "diff-files", "-z", "--name-only")  # stats every file meanwhile
    try:
        index = ls_index(root)
    except BaseException:
        with contextlib.suppress(GitGraphError):
            modified()  # reaped, its error (if any) superseded by this one
        raise
    changed = {os.fsdecode(p) for p in modified().split(b"\0") if p}
    if not changed:
        return index
    present = [p for p in sorted(changed) if os.path.lexists(root / p)]
    hashes = hash_files(root, [p for p in present if not os.path.islink(root / p)])
    entries = []
    for entry in index:
        if entry.path not in changed:
            entries.append(entry)
        elif entry.path in hashes:
            entries.append(entry._replace(blob=hashes[entry.path]))
        elif os.path.lexists(root / entry.path):
            entries.append(entry)  # symlink or gitlink: keep as indexed
    return entries


def worktree_over(root: Path, entries: Sequence[TreeEntry], changes: Sequence[RawChange]
                  ) -> list[TreeEntry]:
    """The work tree's entries, from a tree's and `git diff --raw TREE` (the work tree
    against it): one walk of the work tree (the diff's), where `worktree_entries` takes two.
    Files git has not hashed (blob 0) are hashed now, except symlinks and gitlinks: those
    keep blob 0 (gitgraph never reads them)."""
    by_path = {entry.path: entry for entry in entries}
    for change in changes:
        if change.status in "DR":
            by_path.pop(change.old_path, None)
        if change.status != "D":
            by_path[change.new_path] = TreeEntry(change.new_mode, change.new_blob,
                                                 change.new_path)
    unhashed = [path for path, entry in by_path.items()
                if entry.blob == ZERO and entry.mode in ("100644", "100755")]
    for path, blob in hash_files(root, [p for p in unhashed
                                        if os.path.isfile(root / p)]).items():
        by_path[path] = by_path[path]._replace(blob=blob)
    return sorted(by_path.values(), key=lambda entry: entry.path)


def hash_files(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """Blob ids of work-tree files, as `git add` would compute them (filters applied)."""
    if not paths:
        return {}
    # --stdin-paths reads one path per line and C-unquotes a leading '"': pass those as args.
    odd = [p for p in paths if "\n" in p or p.startswith('"')]
    plain = [p for p in paths if "\n" not in p and not p.startswith('"')]
    hashes: dict[str, str] = {}
    if plain:
        out = run(root, "hash-object", "--stdin-paths",
                  input=b"\n".join(map(os.fsencode, plain)) + b"\n")
        hashes.update(zip(plain, out.decode().split(), strict=True))
    if odd:
        out = run(root, "hash-object", "--", *odd)
        hashes.update(zip(odd, out.decode().split(), strict=True))
    return hashes


def read_blobs(root: Path, blobs: Iterable[str]) -> dict[str, bytes]:
    """Contents of many blobs through a single `git cat-file --batch` process."""
    wanted = sorted(set(blobs))
    if not wanted:
        return {}
    out = run(root, "cat-file", "--batch", input=("\n".join(wanted) + "\n").encode())
    contents: dict[str, bytes] = {}
    pos = 0
    for blob in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue  # absent in a partial or shallow clone: the caller counts it
        size = int(header[2])
        contents[blob] = out[pos : pos + size]
        pos += size + 1
    return contents


def blob_sizes(root: Path, blobs: Iterable[str]) -> dict[str, int]:
    """Sizes of the blobs git's object store holds (one `git cat-file --batch-check`)."""
    wanted = sorted(set(blobs))
    if not wanted:
        return {}
    out = run(root, "cat-file", "--batch-check", input=("\n".join(wanted) + "\n").encode())
    sizes = {}
    for line in out.decode().splitlines():
        fields = line.split(" ")  # "<id> <type> <size>", or "<id> missing"
        if len(fields) == 3:
            sizes[fields[0]] = int(fields[2])
    return sizes


class RawChange(NamedTuple):
    """One file-level change between two trees: status letter, old/new blob and path."""

    status: str  # A, D, M, R, C, T
    old_blob: str
    new_blob: str
    old_path: str
    new_path: str
    new_mode: str  # "000000" when deleted


_DIFF_RAW = ("diff", "--raw", "-z", "-M", "--no-abbrev", "--no-ext-diff")


def diff_raw(root: Path, *args: str) -> list[RawChange]:
    """`git diff --raw -z -M` (args pick the sides, as `git diff` takes them)."""
    return parse_diff_raw(run(root, *_DIFF_RAW, *args))


def diff_raw_started(root: Path, *args: str) -> Callable[[], list[RawChange]]:
    """`diff_raw`, started now (see `started`); the returned function waits for it."""
    finish = started(root, *_DIFF_RAW, *args)
    return lambda: parse_diff_raw(finish())


def parse_diff_raw(out: bytes) -> list[RawChange]:
    """Records of `git diff --raw -z` output."""
    fields = out.split(b"\0")
    changes: list[RawChange] = []
    i = 0
    while i < len(fields) and fields[i]:
        meta = fields[i].decode().lstrip(":").split(" ")
        status = meta[4][0]
        old_path = os.fsdecode(fields[i + 1])
        if status in "RC":
            new_path = os.fsdecode(fields[i + 2])
            i += 3
        else:
            new_path = old_path
            i += 2
        changes.append(RawChange(status, meta[2], meta[3], old_path, new_path, meta[1]))
    return changes


def stage_file(root: Path, path: str) -> None:
    """`git add -- path` (used by the hook to carry graph.json in the commit); a big file's
    blob is stored first on both cores (see loose.py), and git then only hashes it."""
    from . import loose

    loose.prime(common_dir(root), root / path)
    run(root, "add", "--", path)


def worktree_differs(root: Path, path: str) -> bool:
    """Whether the file may differ from its index entry (`git diff-files`: stat data first,
    so it is instant on a large clean file; a touched file counts as different)."""
    return bool(run(root, "diff-files", "--name-only", "-z", "--", path).strip(b"\0"))


_SEQUENCER_STATE = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "SQUASH_MSG",
                    "rebase-merge", "rebase-apply")
_MERGING_ACTIONS = ("merge", "pull", "cherry-pick", "revert", "rebase")


def merge_in_progress(root: Path) -> bool:
    """A merge (squashed too), cherry-pick, revert or rebase is being committed, so the
    index may hold files git merged as text. Git's state files say so, except in the
    pre-merge-commit hook, which runs before MERGE_HEAD exists: GIT_REFLOG_ACTION does."""
    if os.environ.get("GIT_REFLOG_ACTION", "").split(" ", 1)[0] in _MERGING_ACTIONS:
        return True
    directory = git_dir(root)
    return any((directory / name).exists() for name in _SEQUENCER_STATE)


def in_automatic_merge(root: Path) -> bool:
    """Inside the pre-merge-commit hook of a `git merge` that commits by itself: its tree is
    already written, so what the hook stages is not committed (the merge must stop)."""
    if os.environ.get("GIT_REFLOG_ACTION", "").split(" ", 1)[0] not in ("merge", "pull"):
        return False
    return not (git_dir(root) / "MERGE_HEAD").exists()


def config_set(root: Path, key: str, value: str) -> None:
    """`git config KEY VALUE` in the repository's own config (shared by its worktrees)."""
    run(root, "config", "--local", key, value)
