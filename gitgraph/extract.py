"""(bytes, language) → Extraction. With grammars.py (which loads grammars and queries), the
only module that imports tree_sitter.

Definitions, references and imports come from the tags queries in `queries/`; this module
adds what a query cannot express: nesting (qualified names), the enclosing scope of each
reference and text hashes; deftext.py reads signatures, docstrings and marks.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any, NamedTuple

from . import __version__, blake2b, grammars
from .deftext import doc_line, modifiers, signature, text_of, with_marks
from .languages import LANGUAGES, query_path, query_text
from .model import Extraction, Import, RawExtraction, Ref, Symbol

# Bump when extraction output changes for the same input; part of every cache key.
EXTRACTOR_VERSION = "7"
MINIFIED_LINE_CHARS = 1000  # average line length above which a file is treated as minified
NAME_CHARS = 200
# Definitions nested deeper than this are generated or hostile input; tree-sitter's parent and
# sibling lookups cost O(depth) each, so extracting them would take quadratic time.
MAX_NESTING = 100

_SCOPE_ONLY = {"impl"}  # scopes that name their members but are not symbols themselves
# functions in these become methods; a module (Rust `mod`, TS `namespace`) holds free functions
_CONTAINERS = {"class", "interface", "struct", "enum", "trait", "impl", "object"}
_TEST_MARKS = (rb"#\[(?:\w+::)*test\]",
               rb"@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b")
_TEST_MARK = re.compile(b"|".join(_TEST_MARKS))
# each alone starts with one literal byte the regex engine scans for fast; the alternation
# tries every position, 8x slower over a whole file
_TEST_MARK_PARTS = tuple(re.compile(mark) for mark in _TEST_MARKS)
_PLAIN_NAME = re.compile(r"[A-Za-z_][\w.]*")
_SPACE = re.compile(r"\s+")
_NOT_A_NAME = re.compile(r"[()\[\]<>{}'\"`!&*]")
_SUPER_CALL = re.compile(r"^super\([^()]*\)\.(\w+)$")
_LAST_NAME = re.compile(r"(\w+)\W*$")


@functools.cache
def extractor_digest(max_bytes: int) -> str:
    """Digest of everything that shapes extraction output (the blob cache's second key)."""
    h = blake2b(digest_size=8)
    versions = (EXTRACTOR_VERSION, __version__, str(max_bytes), str(MINIFIED_LINE_CHARS),
                grammars.installed("tree_sitter"),
                grammars.installed("tree_sitter_language_pack"))
    h.update("\0".join(versions).encode())
    for lang in LANGUAGES:
        if query_path(lang).exists():
            h.update(lang.encode() + b"\0" + query_text(lang).encode())
    return h.hexdigest()


@functools.cache
def _tools(lang: str) -> tuple[Any, Any, dict[tuple[str, ...], _Plan]]:
    """A language's parser, its compiled tags query, and the match plans worked out so far."""
    return grammars.parser(lang), grammars.query(lang), {}


def prepare(langs: set[str]) -> None:
    """Load the grammars and compile the queries of `langs` now: worker processes forked
    afterwards inherit them instead of each compiling its own (JavaScript's takes 50 ms)."""
    for lang in sorted(langs):
        _tools(lang)


def skip_reason(source: bytes, max_bytes: int) -> str:
    """Why a blob is not parsed at all ("" when it should be)."""
    if len(source) > max_bytes:
        return "too-large"
    if b"\0" in source[:8192]:
        return "binary"
    if source.startswith(b"version https://git-lfs.github.com/spec/"):
        return "lfs-pointer"
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return "non-utf8"
    lines = source.count(b"\n") + 1
    if len(source) > 4 * MINIFIED_LINE_CHARS and len(source) / lines > MINIFIED_LINE_CHARS:
        return "minified"
    return ""


def extract(source: bytes, lang: str, max_bytes: int) -> Extraction:
    """Symbols, references and imports of one blob; bad input gives a status, never raises."""
    raw = extract_raw(source, lang, max_bytes)
    # tuple.__new__ fills a record without the Python-level call Ref(...) makes per instance
    return Extraction(raw.symbols, tuple([tuple.__new__(Ref, ref) for ref in raw.refs]),
                      raw.imports, raw.lines, raw.status)


def extract_raw(source: bytes, lang: str, max_bytes: int) -> RawExtraction:
    """`extract`, its references left as plain tuples (for a cache entry)."""
    lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
    reason = skip_reason(source, max_bytes)
    if reason:
        return RawExtraction((), (), (), lines, reason)
    parser, query, plans = _tools(lang)
    import tree_sitter

    tree = parser.parse(source)
    root = tree.root_node
    # node, name node, kind, explicit parent name, @test captured, @self name
    found: list[tuple[Any, Any, str, str, bool, str]] = []
    refs: list[tuple[int, str, str, int]] = []  # start byte, kind, name, line
    imports: list[Import] = []
    names: dict[bytes, str] = {}  # callee text → normalised name: most callees repeat
    for _, captures in tree_sitter.QueryCursor(query).matches(root):
        keys = tuple(captures)
        plan = plans.get(keys)
        if plan is None:
            plan = plans[keys] = _plan(keys)
        if plan.call:  # most matches: a callee and nothing else
            for node in captures[keys[0]]:
                # (a slice of the source costs half of what node.text does)
                start = node.start_byte
                raw = source[start:node.end_byte]
                known = names.get(raw)
                if known is None:
                    known = names[raw] = normalise(raw.decode("utf-8", "replace"))
                if known:
                    refs.append((start, plan.call, known, node.start_point[0] + 1))
            continue
        for key, kind in plan.references:
            receiver = captures.get("reference.receiver")
            for node in captures[key]:
                if receiver:
                    # Java's obj.m(…) has no node spanning "obj.m": the query captures both parts
                    name = normalise(text_of(receiver[0]) + "." + text_of(node))
                else:
                    raw = source[node.start_byte:node.end_byte]
                    known = names.get(raw)
                    if known is None:
                        known = names[raw] = normalise(raw.decode("utf-8", "replace"))
                    name = known
                if name:
                    refs.append((node.start_byte, kind, name, node.start_point[0] + 1))
        for key, name_key, kind in plan.definitions:
            parent = captures.get("definition.parent")
            self_name = captures.get("self")
            found.append((captures[key][0], captures[name_key][0], kind,
                          text_of(parent[0]) if parent else "", plan.test,
                          text_of(self_name[0]) if self_name else ""))
        if plan.imports:
            imports.extend(_imports(captures))
        if plan.assign:
            # an "assign" ref reads "attr=value": "self.x=Cls" in a method, "X=Cls" in a class;
            # "X==f" when X is another name for f itself (`key = hashkey`), not what f returns
            target = captures[plan.assign][0]
            prefix = "self." if plan.assign == "assign.self" else ""
            alias = "=" if "assign.alias" in captures else ""
            value = captures.get("assign.value") or captures["assign.alias"]
            held = normalise(text_of(value[0]))
            if held and not held.startswith("?"):
                refs.append((target.start_byte, "assign",
                             f"{prefix}{text_of(target)}={alias}{held}",
                             target.start_point[0] + 1))
    if len(found) > MAX_NESTING and \
            _nesting([(d[0].start_byte, d[0].end_byte) for d in found]) > MAX_NESTING:
        return RawExtraction((), (), (), lines, "deep-nesting")
    definitions: list[tuple[int, int, Any, Any, Any, str, str, bool, str]] = []
    for node, *rest in found:
        full = with_marks(node)
        definitions.append((full.start_byte, -full.end_byte, node, full, *rest))
    # a mark inside a definition's text is a mark in the file: most files have none
    marks = any(part.search(source) for part in _TEST_MARK_PARTS)
    symbols, scoped = _nest(definitions, refs, source, marks)
    status = "syntax-error" if root.has_error else ""
    return RawExtraction(tuple(symbols), tuple(scoped), tuple(sorted(set(imports))), lines,
                         status)


class _Plan(NamedTuple):
    """What to take from a query match, worked out once per set of capture names."""

    references: tuple[tuple[str, str], ...]  # (capture, ref kind)
    definitions: tuple[tuple[str, str, str], ...]  # (capture, its name's capture, kind)
    test: bool  # @test was captured
    imports: bool  # an import statement
    assign: str  # the capture naming an attribute that holds a value; "" when none
    call: str  # the ref kind when the match is one reference and nothing else, else ""


def _plan(keys: tuple[str, ...]) -> _Plan:
    # Kinds are interned: the same kind from two patterns is then the same string, which
    # sorting the references and every later `kind == "call"` compare by identity.
    definitions = tuple(
        (key, "name.definition." + key[len("definition."):], sys.intern(key[len("definition."):]))
        for key in keys
        if key.startswith("definition.") and key != "definition.parent"
        and "name.definition." + key[len("definition."):] in keys)
    references = tuple((key, sys.intern(key[len("name.reference."):])) for key in keys
                       if key.startswith("name.reference."))
    target = next((key for key in ("assign.self", "assign.class") if key in keys), "")
    return _Plan(references, definitions, "test" in keys,
                 any(key.startswith("import.") for key in keys),
                 target if "assign.value" in keys or "assign.alias" in keys else "",
                 references[0][1] if len(keys) == 1 and references else "")


def _nesting(spans: list[tuple[int, int]]) -> int:
    """How deeply (start, end) byte spans nest inside one another."""
    deepest = 0
    ends: list[int] = []  # end bytes of the spans enclosing the current one
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        while ends and ends[-1] <= start:
            ends.pop()
        ends.append(end)
        deepest = max(deepest, len(ends))
    return deepest


def normalise(text: str) -> str:
    """A callee as written → "f", "mod.f", "self.m", "super.m" or "?.m" (unknown receiver)."""
    if _PLAIN_NAME.fullmatch(text):  # most callees: `f`, `mod.f`, `self.m`
        if text in ("super", "self", "this") or len(text) > NAME_CHARS:
            return ""
        return "self." + text[5:] if text.startswith("this.") else text.strip(".")
    text = _SPACE.sub("", text).replace("::", ".").replace("?.", ".").replace("->", ".")
    if not text or len(text) > NAME_CHARS:
        return ""
    match = _SUPER_CALL.match(text)
    if match:
        return "super." + match.group(1)
    if text in ("super", "self", "this"):
        return ""
    if _NOT_A_NAME.search(text):
        last = _LAST_NAME.search(text)
        return "?." + last.group(1) if last and "." in text else ""
    if text.startswith("this."):
        text = "self." + text[5:]
    return text.strip(".")


def _nest(definitions: list[tuple[int, int, Any, Any, Any, str, str, bool, str]],
          refs: list[tuple[int, str, str, int]], source: bytes, marks: bool
          ) -> tuple[list[Symbol], list[tuple[str, str, str, int]]]:
    """Qualified names from nesting, and the innermost enclosing symbol of each reference
    (`marks`: the source holds a test mark somewhere)."""
    definitions.sort(key=lambda d: (d[0], d[1]))  # stable: a tie keeps the query's order
    refs.sort()  # the order among refs at one byte does not matter: they end up in a set
    stack: list[tuple[int, str, str, str]] = []  # end byte, qualname, kind, receiver name
    outside = len(source) + 1  # the end byte of the file level, which nothing is after
    scope_end, scope, receiver = outside, "", ""  # stack[-1]'s end byte, qualname, receiver
    symbols: dict[str, Symbol] = {}
    added: list[str] = []  # qualnames in the order their first definition was seen
    scoped: set[tuple[str, str, str, int]] = set()
    next_ref, last_ref = 0, len(refs)
    for definition in [*definitions, None]:  # None: the references after the last one
        start = definition[0] if definition else outside
        # the references before this definition (one starting where it does is inside it)
        while next_ref < last_ref and refs[next_ref][0] < start:
            ref_start, kind, name, line = refs[next_ref]
            next_ref += 1
            if ref_start >= scope_end:
                while stack and stack[-1][0] <= ref_start:
                    stack.pop()
                scope_end, scope, _, receiver = stack[-1] if stack else (outside, "", "", "")
            if receiver and name.startswith(receiver + "."):  # Go: s.helper() in func (s *T)
                name = "self" + name[len(receiver):]
            scoped.add((kind, name, scope, line))
        if definition is None:
            break
        if start >= scope_end:
            while stack and stack[-1][0] <= start:
                stack.pop()
            scope_end, scope, _, receiver = stack[-1] if stack else (outside, "", "", "")
        _, _, node, full, name_node, kind, parent_name, test_capture, receiver = definition
        outer = stack[-1] if stack else None
        name = text_of(name_node)
        prefix = parent_name or (outer[1] if outer else "")
        qualname = scope = f"{prefix}.{name}" if prefix else name
        if kind == "function" and (parent_name or (outer and outer[2] in _CONTAINERS)):
            kind = "method"
        scope_end = full.end_byte
        stack.append((scope_end, qualname, kind, receiver))
        if kind in _SCOPE_ONLY:
            continue
        if qualname in symbols:
            symbols[qualname] = _redefined(symbols[qualname], full, source, added)
            continue
        added.append(qualname)
        body = node.child_by_field_name("body")
        symbols[qualname] = Symbol(  # (by position: keywords cost a dict per symbol)
            qualname, kind, full.start_point[0] + 1, full.end_point[0] + 1,
            signature(node, body, source),
            blake2b(source[full.start_byte:scope_end], digest_size=8).hexdigest(),
            doc_line(node, body),
            test_capture or marks and bool(_TEST_MARK.search(
                source[full.start_byte:node.start_byte] + modifiers(node))))
    return sorted(symbols.values()), sorted(scoped)


def _redefined(first: Symbol, node: Any, source: bytes, added: list[str]) -> Symbol:
    """A name defined again: `@overload` stubs before their implementation, a property's
    getter then its setter. When nothing else was defined in between, one symbol spans them
    all and its hash covers every definition, so a change to any of them is a change to it.
    Otherwise the first definition wins (e.g. a redefinition under `if TYPE_CHECKING`)."""
    start = added.index(first.qualname)
    if any(not q.startswith(first.qualname + ".") for q in added[start + 1:]):
        return first
    digest = blake2b(first.hash.encode() + source[node.start_byte:node.end_byte],
                             digest_size=8).hexdigest()
    return first._replace(end_line=max(first.end_line, node.end_point[0] + 1), hash=digest)


def _imports(captures: dict[str, list[Any]]) -> list[Import]:
    def one(key: str) -> str:
        nodes = captures.get(key)
        return text_of(nodes[0]) if nodes else ""

    line = min(n.start_point[0] for nodes in captures.values() for n in nodes) + 1
    # several @import.from nodes are the segments of a nested Rust use list: a::{b::{c}}
    source = "::".join(text_of(n) for n in captures.get("import.from", ())) or one("import.source")
    alias = one("import.alias")
    if "import.star" in captures:
        return [Import(_clean_module(source), "*", alias, line)]
    if source:
        name = one("import.name") or ("default" if "import.default" in captures else "")
        if "import.default" in captures:
            alias = alias or one("import.default")
        return [Import(_clean_module(source), name, alias, line)]
    module = one("import.module")
    return [Import(_clean_module(module), "", alias, line)] if module else []


def _clean_module(text: str) -> str:
    return _SPACE.sub("", text).strip("\"'`")


def code_digests(source: bytes, lang: str, spans: list[tuple[int, int]]) -> list[str]:
    """Per line span, a digest of its code tokens without comments or layout, so a change
    that only touches whitespace or comments keeps the same digest."""
    parser = grammars.parser(lang)
    root = parser.parse(source).root_node
    digests = []
    for start, end in spans:
        h = blake2b(digest_size=8)
        stack = [root]
        while stack:  # iterative, and only into subtrees that overlap the span
            node = stack.pop()
            if node.end_point[0] + 1 < start or node.start_point[0] + 1 > end:
                continue
            if "comment" in node.type:
                continue
            if node.child_count == 0:
                if start <= node.start_point[0] + 1 <= end:
                    h.update((node.text or b"") + b"\0")
            else:
                stack.extend(reversed(node.children))
        digests.append(h.hexdigest())
    return digests
