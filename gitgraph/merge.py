"""Three-way merge of graph.json record lines (what `gitgraph merge-driver` runs for git).

Every record belongs to one file: a file record to its path, a node to the file its id
starts with, a link to the file of its source. The file is the unit of the merge. A file
only one side changed takes that side's records; a file both sides changed keeps ours (a
valid graph, not an exact one: the pre-commit hook on the merge commit, or `gitgraph update
--staged`, rebuilds it from the merged tree). Links left pointing at a node that no longer
exists are dropped, so the result is always a consistent node-link graph.

Pure: lines in, lines out, no git and no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .store import GraphLines, record_field


class Merged(NamedTuple):
    """The merged lines, and the files both sides changed (ours was kept for those)."""

    lines: GraphLines
    clashes: tuple[str, ...]


def empty(header: dict[str, str]) -> GraphLines:
    """A graph with no records (the missing base of an add/add conflict)."""
    return GraphLines(dict(header), [], [], [])


def merge(base: GraphLines, ours: GraphLines, theirs: GraphLines) -> Merged:
    """Ours, with the records of every file only theirs changed replaced by theirs'."""
    if theirs.header != ours.header:
        # Built by another extractor version: its records cannot be mixed with ours.
        return Merged(ours, ("(graph.json header)",))
    paths = {f.path for side in (base, ours, theirs) for f in side.file_entries}
    owner = _Owners(paths)
    arrays = ((base.files, ours.files, theirs.files, owner.of_file),
              (base.nodes, ours.nodes, theirs.nodes, owner.of_node),
              (base.links, ours.links, theirs.links, owner.of_link))
    changed_ours: set[str] = set()
    changed_theirs: set[str] = set()
    differ: set[str] = set()  # files whose records differ between ours and theirs
    for old, mine, other, of in arrays:
        old_set = set(old)
        changed_ours.update(map(of, old_set.symmetric_difference(mine)))
        changed_theirs.update(map(of, old_set.symmetric_difference(other)))
        differ.update(map(of, set(mine).symmetric_difference(other)))
    take = changed_theirs - changed_ours
    result = []
    for old, mine, other, of in arrays:
        old_set, other_set = set(old), set(other)
        # For a file in `take`, ours == base: its lines not in theirs are theirs' removals.
        drop = {line for line in old_set - other_set if of(line) in take}
        add = [line for line in other_set - old_set if of(line) in take]
        result.append(sorted([*(line for line in mine if line not in drop), *add]))
    files, nodes, links = result
    ids = {record_field(line, "id")[0] for line in nodes}
    links = [line for line in links if record_field(line, "target")[0] in ids]
    lines = GraphLines(dict(ours.header), files, nodes, links)
    return Merged(lines, tuple(sorted(changed_ours & changed_theirs & differ)))


class _Owners:
    """Which file a record belongs to (ids are `path` or `path::Qual.name`)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = frozenset(paths)

    def of_id(self, node: str) -> str:
        if node in self._paths:
            return node
        at = node.find("::")
        while at >= 0:  # a path may itself contain "::": take the first prefix that is a file
            if node[:at] in self._paths:
                return node[:at]
            at = node.find("::", at + 2)
        return node.partition("::")[0]

    def of_file(self, line: str) -> str:
        return record_field(line, "path")[0]

    def of_node(self, line: str) -> str:
        return self.of_id(record_field(line, "id")[0])

    def of_link(self, line: str) -> str:
        return self.of_id(record_field(line, "source")[0])
