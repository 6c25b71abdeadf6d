"""Tags queries + extract(): golden files per language, focused facts, and bad input.

Golden cases live in tests/data/tags/<lang>/<case>.<ext>, their expected extraction beside them
in <case>.<ext>.tags. A mismatch writes <case>.<ext>.tags.actual next to the expected file;
`GITGRAPH_UPDATE_GOLDEN=1 pytest tests/test_tags.py` rewrites the expected files (review the
diff: every line must be what a reader of the source would say is right).
"""

from __future__ import annotations

import difflib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitgraph.extract import extract
from gitgraph.languages import LANGUAGES, query_path, query_text
from gitgraph.model import Extraction, Import

DATA = Path(__file__).parent / "data" / "tags"
MAX_BYTES = 1_000_000
CASES = sorted(
    path for path in DATA.glob("*/*")
    if path.is_file() and not path.name.endswith((".tags", ".actual"))
)


def render(extraction: Extraction) -> str:
    """One stable, readable line per fact: symbols, then refs, then imports, in source order."""
    out = [f"status {extraction.status or 'ok'} lines={extraction.lines}"]
    for s in sorted(extraction.symbols, key=lambda s: (s.start_line, s.qualname)):
        doc = f" doc={json.dumps(s.doc, ensure_ascii=False)}" if s.doc else ""
        out.append(f"symbol {s.kind} {s.qualname} {s.start_line}-{s.end_line} "
                   f"test={int(s.test)} sig={json.dumps(s.signature, ensure_ascii=False)}{doc}")
    for r in sorted(extraction.refs, key=lambda r: (r.line, r.kind, r.name, r.scope)):
        scope = f" in {r.scope}" if r.scope else ""
        out.append(f"ref {r.kind} {r.name}{scope} line {r.line}")
    for i in sorted(extraction.imports, key=lambda i: (i.line, i.module, i.name, i.alias)):
        name = f" name={i.name}" if i.name else ""
        alias = f" alias={i.alias}" if i.alias else ""
        out.append(f"import {i.module}{name}{alias} line {i.line}")
    return "\n".join(out) + "\n"


def run(source: str | bytes, lang: str, max_bytes: int = MAX_BYTES) -> Extraction:
    data = source.encode() if isinstance(source, str) else source
    return extract(data, lang, max_bytes)


# -- golden files ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[str(c.relative_to(DATA)) for c in CASES])
def test_golden(case: Path) -> None:
    actual = render(extract(case.read_bytes(), case.parent.name, MAX_BYTES))
    expected_path = case.with_name(case.name + ".tags")
    actual_path = case.with_name(case.name + ".tags.actual")
    if os.environ.get("GITGRAPH_UPDATE_GOLDEN") == "1":
        expected_path.write_text(actual, encoding="utf-8")
    expected = expected_path.read_text(encoding="utf-8") if expected_path.exists() else ""
    if actual == expected:
        actual_path.unlink(missing_ok=True)
        return
    actual_path.write_text(actual, encoding="utf-8")
    diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                        str(expected_path), str(actual_path)))
    pytest.fail(f"extraction differs from {expected_path.name} "
                f"(GITGRAPH_UPDATE_GOLDEN=1 to accept):\n{diff}")


def test_every_language_has_a_golden_case() -> None:
    assert {case.parent.name for case in CASES} >= set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_query_compiles_and_accepts_empty_input(lang: str) -> None:
    assert query_path(lang).exists()
    assert run("", lang) == Extraction((), (), (), 0, "")


def test_grammar_versions_are_part_of_the_cache_key() -> None:
    """A new grammar release must invalidate cached extractions: the digest reads both
    packages' installed versions (the language pack has no __version__ to read)."""
    from importlib.metadata import version

    from gitgraph.grammars import installed

    assert installed("tree_sitter") == version("tree-sitter")
    assert installed("tree_sitter_language_pack") == version("tree-sitter-language-pack")


def test_grammars_load_without_importing_the_language_pack() -> None:
    # importing the package loads ctypes and three unused grammars: ~10 ms of every hook
    script = ("import sys\nfrom gitgraph.extract import extract\nfrom gitgraph.languages import "
              "LANGUAGES\nfor lang in LANGUAGES:\n    extract(b'x', lang, 1000)\n"
              "print('tree_sitter_language_pack' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert proc.stdout == "False\n"


def test_tsx_query_is_typescript_plus_jsx() -> None:
    typescript = query_path("typescript").read_text(encoding="utf-8")
    tsx = query_text("tsx")
    assert tsx.startswith(typescript) and "jsx_self_closing_element" in tsx[len(typescript):]
    assert "jsx_" not in typescript


# -- focused facts -----------------------------------------------------------------------------

def symbols(extraction: Extraction) -> dict[str, tuple[str, bool]]:
    return {s.qualname: (s.kind, s.test) for s in extraction.symbols}


def test_go_method_is_owned_by_its_receiver_type() -> None:
    source = "package s\n\ntype Server struct{}\n\nfunc (s *Server) Run() error { return nil }\n"
    assert symbols(run(source, "go"))["Server.Run"] == ("method", False)


def test_rust_test_attributes_mark_tests() -> None:
    source = ("#[cfg(test)]\nmod tests {\n    #[test]\n    fn works() {}\n"
              "    #[tokio::test]\n    async fn also() {}\n    fn helper() {}\n}\n")
    found = symbols(run(source, "rust"))
    assert found["tests.works"][1] and found["tests.also"][1]
    assert not found["tests.helper"][1] and not found["tests"][1]


def test_rust_impl_is_a_scope_not_a_symbol() -> None:
    source = "struct P;\nimpl Shape for P {\n    fn area(&self) -> f64 { 0.0 }\n}\n"
    extraction = run(source, "rust")
    assert symbols(extraction) == {"P": ("struct", False), "P.area": ("method", False)}
    assert any(r.kind == "inherit" and r.name == "Shape" for r in extraction.refs)


def test_java_test_annotations_mark_tests() -> None:
    source = ("class ATest {\n    @Test\n    void one() {}\n"
              "    @ParameterizedTest\n    @ValueSource(ints = {1})\n    void two(int i) {}\n"
              "    void helper() {}\n}\n")
    found = symbols(run(source, "java"))
    assert found["ATest.one"] == ("method", True)
    assert found["ATest.two"] == ("method", True)
    assert found["ATest.helper"] == ("method", False)


def test_typescript_aliased_import() -> None:
    extraction = run("import {a as b} from './x';\n", "typescript")
    assert extraction.imports == (Import("./x", "a", "b", 1),)


def test_javascript_import_forms() -> None:
    source = ("import d from './a';\nimport * as ns from './b';\n"
              "export * from './c';\nconst m = require('m');\n")
    assert set(run(source, "javascript").imports) == {
        Import("./a", "default", "d", 1), Import("./b", "", "ns", 2),
        Import("./c", "*", "", 3), Import("m", "", "m", 4),
    }


def test_python_relative_module_import() -> None:
    extraction = run("from . import x\n", "python")
    assert extraction.imports == (Import(".", "x", "", 1),)


def test_arrow_function_bound_to_const_is_a_function() -> None:
    for lang in ("javascript", "typescript", "tsx"):
        found = symbols(run("const f = () => { g(); };\n", lang))
        assert found == {"f": ("function", False)}, lang


# -- semantics the queries capture but extract.py does not implement yet ----------------------
# Each is strict: once extract.py implements it, the XPASS fails; then drop the marker.



def refs_in(extraction: Extraction, scope: str) -> set[str]:
    return {r.name for r in extraction.refs if r.scope == scope and r.kind == "call"}


def test_java_call_keeps_its_receiver() -> None:
    source = "class A {\n  void m() { this.n(); repo.save(1); make().run(); }\n}\n"
    assert refs_in(run(source, "java"), "A.m") == {"self.n", "repo.save", "make", "?.run"}


def test_go_receiver_calls_are_self_calls() -> None:
    source = "package s\n\nfunc (s *Server) Run() { s.helper(); other.Do() }\n"
    assert refs_in(run(source, "go"), "Server.Run") == {"self.helper", "other.Do"}


def test_rust_nested_use_list() -> None:
    extraction = run("use crate::{config::Config, errors::{Error, Result as R}};\n", "rust")
    assert set(extraction.imports) == {
        Import("crate::config", "Config", "", 1), Import("crate::errors", "Error", "", 1),
        Import("crate::errors", "Result", "R", 1),
    }


def test_javascript_it_blocks_are_tests() -> None:
    source = "describe('Cart', () => {\n  it('adds', () => {});\n});\n"
    assert symbols(run(source, "javascript")) == {
        "'Cart'": ("function", False), "'Cart'.'adds'": ("function", True),
    }


def test_functions_in_modules_stay_functions() -> None:
    assert symbols(run("mod m {\n    fn f() {}\n}\n", "rust"))["m.f"] == ("function", False)
    assert symbols(run("namespace N {\n  function f() {}\n}\n", "typescript"))["N.f"] == (
        "function", False)


def test_doc_comment_above_a_wrapped_definition() -> None:
    docs = {
        "typescript": "/** Shapes. */\nexport class Shape {}\n",
        "go": "package p\n\n// Shapes.\ntype Shape struct{}\n",
        "javascript": "// Shapes.\nconst Shape = () => {};\n",
        "python": "# Shapes.\n@dataclass\nclass Shape:\n    pass\n",
    }
    for lang, source in docs.items():
        assert [s.doc for s in run(source, lang).symbols] == ["Shapes."], lang


def test_signature_keeps_lines_that_look_like_comments() -> None:
    source = "def f(\n    a,\n    *args,\n    # why\n    **kwargs,\n) -> None:\n    pass\n"
    assert run(source, "python").symbols[0].signature == "def f( a, *args, **kwargs, ) -> None:"
    assert run("class A {\n  #p() {}\n}\n", "javascript").symbols[1].signature == "#p()"


# -- bad input ---------------------------------------------------------------------------------

def test_binary() -> None:
    assert run(b"\x7fELF\x02\x01\x00\x00" + bytes(range(256)), "python").status == "binary"


def test_too_large() -> None:
    result = run("def f():\n    pass\n" * 10, "python", max_bytes=50)
    assert result.status == "too-large" and result.symbols == ()


def test_minified_bundle() -> None:
    bundle = "!function(e){" + ";".join(f"var a{i}=function(b){{return b+{i}}}"
                                        for i in range(2000)) + "}(window);"
    result = run(bundle, "javascript")
    assert result.status == "minified" and result.symbols == () and result.lines == 1


def test_non_utf8() -> None:
    result = run("name = 'café'\n".encode("latin-1"), "python")
    assert result.status == "non-utf8" and result.symbols == ()


def test_lfs_pointer() -> None:
    pointer = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
               "size 12345\n")
    assert run(pointer, "python").status == "lfs-pointer"


def test_syntax_error_keeps_what_parsed() -> None:
    source = ("def ok():\n    return 1\n\n"
              "class Fine:\n    def m(self):\n        ok()\n\n"
              "def broken(:\n")
    result = run(source, "python")
    assert result.status == "syntax-error"
    assert {"ok", "Fine", "Fine.m"} <= {s.qualname for s in result.symbols}
    assert any(r.name == "ok" and r.scope == "Fine.m" for r in result.refs)


@pytest.mark.parametrize("lang, source", [  # 5,000 deep unless noted
    ("python", "x = (\n" + "[\n" * 5000 + "]\n" * 5000 + ")\n"),
    ("python", "".join(" " * i + "if x:\n" for i in range(1000)) + " " * 1000 + "f()\n"),  # 1,000
    ("javascript", "function f() {\n" + "if (a) {\n" * 5000 + "g();\n" + "}\n" * 5000 + "}\n"),
    ("javascript", "function f() {\n" * 1000 + "}\n" * 1000),  # 1,000 nested definitions
    ("rust", "fn f() {\n" + "{\n" * 5000 + "}\n" * 5000 + "}\n"),
    ("java", "class A { void m() {\n" + "if (a) {\n" * 5000 + "g();\n" + "}\n" * 5000 + "} }\n"),
])
def test_deep_nesting_neither_crashes_nor_recurses(lang: str, source: str) -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 50)  # any recursion over the tree would fail
    try:
        result = run(source, lang)
    finally:
        sys.setrecursionlimit(limit)
    assert result.status in ("", "syntax-error", "deep-nesting")


def test_empty_file() -> None:
    for lang in LANGUAGES:
        result = run(b"", lang)
        assert result.symbols == () and result.refs == () and result.lines == 0


def test_docstring_keeps_its_first_letters() -> None:
    source = b'def f():\n    """Run git."""\n\n\ndef g():\n    rb\'\'\'bytes doc\'\'\'\n'
    docs = {s.qualname: s.doc for s in extract(source, "python", 10**6).symbols}
    assert docs == {"f": "Run git.", "g": "bytes doc"}
