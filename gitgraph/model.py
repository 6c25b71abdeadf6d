"""Frozen records passed between pipeline stages.

Extraction records are path-free (a blob can live at several paths, and a rename must not
invalidate the cache); the graph stage attaches paths and builds node ids `path::Qual.name`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Symbol(NamedTuple):
    """A definition in one blob."""

    qualname: str  # "Class.method"; nesting joined with "."
    kind: str  # class|function|method|interface|struct|enum|trait|type|module
    start_line: int  # 1-based, inclusive
    end_line: int
    signature: str  # header text up to the body, whitespace collapsed
    hash: str  # digest of the definition's bytes (changes whenever the text does)
    doc: str  # first line of its docstring or leading comment
    test: bool  # marked as a test inside the file (#[test], @Test); path rules come later


class Ref(NamedTuple):
    """A use of a name: a call, a base class, or a type mention."""

    kind: str  # call|inherit|type
    name: str  # normalised: "f", "mod.f", "self.m", "cls.m", "super.m", "?.m" (unknown receiver)
    scope: str  # qualname of the innermost enclosing symbol, "" at file level
    line: int


class Import(NamedTuple):
    """One name bound by an import statement."""

    module: str  # as written: "os.path", ".helpers", "./util", "github.com/x/y", "crate::a"
    name: str  # imported member; "" = the module itself; "*" = every public name
    alias: str  # local name it is bound to ("" = the language's default binding)
    line: int


class Extraction(NamedTuple):
    """Everything extracted from one blob in one language; the unit the blob cache stores."""

    symbols: tuple[Symbol, ...]
    refs: tuple[Ref, ...]
    imports: tuple[Import, ...]
    lines: int
    # "" ok; "syntax-error" (extracted anyway); or why nothing was extracted: binary,
    # too-large, minified, non-utf8, lfs-pointer, deep-nesting
    status: str


class RawExtraction(NamedTuple):
    """An Extraction whose references are plain (kind, name, scope, line) tuples: what a
    cache entry holds, so a worker that only encodes its results builds no Ref records."""

    symbols: tuple[Symbol, ...]
    refs: tuple[tuple[str, str, str, int], ...]
    imports: tuple[Import, ...]
    lines: int
    status: str


class FileEntry(NamedTuple):
    """One tracked source file of the described tree."""

    path: str  # repo-relative POSIX path
    blob: str  # git object id
    lang: str


# -- change impact (gitgraph diff) -------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """A changed symbol (a seed of the impact ranking)."""

    node: str  # node id, from the new graph, or the old one when removed
    kind: str  # removed | signature | body | added
    cosmetic: bool = False  # only whitespace/comments changed
    lines: int = 0  # size of the change, for seed weighting


@dataclass(frozen=True)
class ImpactNode:
    """One selected node of the impact subgraph, as the public JSON reports it."""

    id: str
    kind: str
    name: str
    path: str
    start_line: int
    end_line: int
    score: float
    changed: bool
    change: str | None
    tokens: int
    why: tuple[str, ...]
    text: str = ""  # the code at the chosen resolution ("" for resolution "line")
    resolution: str = "line"  # body|hunk|signature|line
    signature: str = ""
    test: bool = False
    parts: tuple[tuple[str, float], ...] = ()  # --explain: score contributions by edge kind
    path_from_seed: tuple[str, ...] = ()  # --explain: seed → ... → this node


@dataclass(frozen=True)
class Impact:
    """The result of `gitgraph diff`: what the renderers turn into text."""

    base: str
    head: str
    budget: int
    encoding: str
    seeds: tuple[str, ...]
    nodes: tuple[ImpactNode, ...]
    edges: tuple[tuple[str, str, str], ...]  # (source, target, kind)
    tests: tuple[str, ...]
    omitted_nodes: int = 0
    omitted_tokens: int = 0
    tokens_used: int = 0
    changed_files: tuple[str, ...] = field(default=())  # every changed path, source or not
    untested: tuple[str, ...] = field(default=())  # changed symbols no test reaches
