"""Bad input never crashes: odd files are skipped and counted, user errors are one line."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import Repo

GRAPH = ".gitgraph/graph.json"


def assert_one_line_error(result: tuple[int, str, str], *needles: str) -> str:
    code, out, err = result
    assert code == 1, (code, err)
    assert "Traceback" not in err and "internal error" not in err
    assert err.startswith("gitgraph: error: ") and err.count("\n") == 1, err
    for needle in needles:
        assert needle in err
    return err


def nodes(repo: Repo) -> dict[str, dict]:
    return {n["id"]: n for n in json.loads(repo.read(GRAPH))["nodes"]}


def stats_rows(out: str) -> dict[str, int]:
    """`gitgraph stats` table rows → {what: count}."""
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in re.split(r"[│|]", line)[1:-1]]
        if len(cells) == 2 and cells[1][:1].isdigit():
            rows[cells[0]] = int(cells[1].split()[0])
    return rows


# -- files gitgraph cannot or should not parse -------------------------------------------------


def test_bad_files_are_skipped_and_counted(repo: Repo) -> None:
    repo.write(".gitgraph.yml", "max_file_bytes: 1000\n")
    repo.write("ok.py", "def ok():\n    return 1\n")
    repo.write("binary.py", b"\x89PNG\r\n\x1a\n\x00\x00def nope():\n    pass\n")
    repo.write("big.py", "def big():\n    return 1\n" + "# padding\n" * 120)
    repo.write("latin.py", "def caf\xe9():\n    return '\xe9'\n".encode("latin-1"))
    repo.write("lfs.py", "version https://git-lfs.github.com/spec/v1\n"
                         "oid sha256:" + "0" * 64 + "\nsize 12345\n")
    repo.write("broken.py", "def before():\n    return 1\n\n\ndef broken(:\n    pass\n\n\n"
                            "def after():\n    return before()\n")
    os.symlink("ok.py", repo.path / "link.py")
    repo.git("add", "-A")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},sub")
    (repo.path / "sub").mkdir()  # what an uninitialised submodule looks like
    repo.commit("bad input", add=False)

    code, _, err = repo.run_cli("index")
    assert code == 0
    assert "6 files (6 parsed, 0 cached, 6 skipped)" in err
    found = nodes(repo)
    assert {path: found[path].get("status", "") for path in
            ("ok.py", "binary.py", "big.py", "latin.py", "lfs.py", "broken.py")} == {
        "ok.py": "", "binary.py": "binary", "big.py": "too-large", "latin.py": "non-utf8",
        "lfs.py": "lfs-pointer", "broken.py": "syntax-error"}
    assert "binary.py::nope" not in found and "big.py::big" not in found
    assert "broken.py::before" in found  # symbols before the error are still indexed
    assert found["broken.py::before"]["start_line"] == 1
    assert "link.py" not in found and "sub" not in found

    code, out, err = repo.run_cli("stats")
    assert code == 0, err
    rows = stats_rows(out)
    assert {k: rows.get(k) for k in ("binary", "too-large", "non-utf8", "lfs-pointer",
                                     "syntax-error", "symlink", "submodule")} == {
        "binary": 1, "too-large": 1, "non-utf8": 1, "lfs-pointer": 1, "syntax-error": 1,
        "symlink": 1, "submodule": 1}
    assert rows["skipped or partial files"] == 7
    assert stats_rows(repo.run_cli("stats", "--rev", "HEAD")[1])["submodule"] == 1

    # the staged and committed views agree, and the cache serves the second run
    assert repo.run_cli("update", "--staged")[0] == 0
    code, _, err = repo.run_cli("index", "--rev", "HEAD", "-o", "head.json")
    assert code == 0 and "(0 parsed, 6 cached, 6 skipped)" in err
    assert repo.read("head.json") == repo.read(GRAPH)


def test_minified_bundle_is_skipped(repo: Repo) -> None:
    bundle = ";".join(f"function f{i}(a){{return a+{i}}}" for i in range(400))
    assert len(bundle) > 10_000 and "\n" not in bundle
    repo.write("dist/app.min.js", bundle + "\n")
    repo.write("src/app.js", "function main() {\n  return 1;\n}\n")
    repo.commit("bundle")
    code, _, err = repo.run_cli("index")
    assert code == 0 and "1 skipped" in err
    found = nodes(repo)
    assert found["dist/app.min.js"]["status"] == "minified"
    assert not any(n.startswith("dist/app.min.js::") for n in found)
    assert "src/app.js::main" in found
    assert stats_rows(repo.run_cli("stats")[1])["minified"] == 1


ODD_NAMES = ("with space.py", "new\nline.py", "ünïcødé.py", "-dash.py", '"quoted".py',
             "tab\there.py")


def test_odd_file_names_are_indexed(repo: Repo) -> None:
    for i, name in enumerate(ODD_NAMES):
        repo.write(name, f"def f{i}():\n    return {i}\n")
    repo.commit("odd names")
    assert repo.run_cli("index")[0] == 0
    found = nodes(repo)
    for i, name in enumerate(ODD_NAMES):
        assert found[f"{name}::f{i}"]["path"] == name

    # unstaged edits to every one of them are hashed and picked up (work-tree mode)
    for i, name in enumerate(ODD_NAMES):
        repo.write(name, f"def g{i}():\n    return {i}\n")
    code, _, err = repo.run_cli("update")
    assert code == 0, err
    found = nodes(repo)
    assert all(f"{name}::g{i}" in found for i, name in enumerate(ODD_NAMES))
    files = json.loads(repo.read(GRAPH))["graph"]["files"]
    assert {f["path"]: f["blob"] for f in files} == {
        name: repo.git("hash-object", "--", name).strip() for name in ODD_NAMES}

    assert repo.run_cli("check")[0] == 1  # the index still holds the old blobs
    repo.git("add", "-A")
    assert repo.run_cli("check")[0] == 0


def test_non_utf8_file_name_is_skipped_and_counted(repo: Repo) -> None:
    repo.write("ok.py", "def ok():\n    return 1\n")
    (repo.path / os.fsdecode(b"caf\xe9.py")).write_bytes(b"def cafe():\n    return 1\n")
    repo.commit("latin-1 name")
    code, _, err = repo.run_cli("index")
    assert code == 0, err
    assert "1 files (1 parsed, 0 cached, 1 skipped)" in err
    assert stats_rows(repo.run_cli("stats")[1])["non-utf8-path"] == 1
    (repo.path / os.fsdecode(b"caf\xe9.py")).write_bytes(b"def edited():\n    return 2\n")
    assert repo.run_cli("update")[0] == 0


# -- repositories in unusual states ------------------------------------------------------------


def test_empty_repository(repo: Repo) -> None:
    code, _, err = repo.run_cli("index")
    assert code == 0 and "0 files" in err
    assert json.loads(repo.read(GRAPH))["nodes"] == []
    repo.write("a.py", "def a():\n    return 1\n")
    repo.git("add", "a.py")
    assert repo.run_cli("update", "--staged")[0] == 0
    assert "a.py::a" in nodes(repo)
    assert repo.run_cli("check")[0] == 0
    assert_one_line_error(repo.run_cli("index", "--rev", "HEAD"), "no commits yet")
    assert_one_line_error(repo.gitgraph("index", "--rev", "HEAD"), "no commits yet")


def test_shallow_clone(repo: Repo, tmp_path: Path) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    repo.write("a.py", "def a():\n    return 2\n")
    repo.commit("two")
    shallow = repo.at(tmp_path / "shallow")
    repo.git("clone", "-q", "--depth", "1", f"file://{repo.path}", str(shallow.path))

    code, _, err = shallow.run_cli("index")
    assert code == 0 and "1 files (" in err
    assert "a.py::a" in nodes(shallow)
    assert_one_line_error(shallow.run_cli("index", "--rev", "HEAD~1"), "'HEAD~1'", "shallow")
    assert_one_line_error(shallow.gitgraph("check", "--rev", "HEAD~1"), "shallow")


def test_detached_head(repo: Repo) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    first = repo.commit("one")
    repo.write("a.py", "def b():\n    return 1\n")
    repo.commit("two")
    repo.git("checkout", "-q", first)
    assert repo.run_cli("update", "--staged")[0] == 0
    assert "a.py::a" in nodes(repo)
    assert repo.run_cli("check", "--rev", "HEAD")[0] == 0
    assert repo.run_cli("check", "--rev", "main")[0] == 1


def test_not_a_git_repository(tmp_path: Path, repo: Repo) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for where in (plain, a_file, tmp_path / "missing"):
        for command in ("index", "update", "check", "stats"):
            assert_one_line_error(repo.run_cli("-C", str(where), command),
                                  f"not a git repository: {where}")
    assert_one_line_error(repo.gitgraph("index", cwd=plain), "not a git repository")


def test_unknown_revision(repo: Repo) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    assert_one_line_error(repo.run_cli("index", "--rev", "no-such-branch"),
                          "unknown revision 'no-such-branch'")
    assert_one_line_error(repo.run_cli("index", "--rev", "HEAD~5"), "unknown revision")
    assert_one_line_error(repo.run_cli("stats", "--rev", "HEAD:a.py"), "unknown revision")
    assert_one_line_error(repo.run_cli("check", "--rev=--output=x"), "cannot start with '-'")
    assert_one_line_error(repo.gitgraph("index", "--rev", "nope"), "unknown revision 'nope'")
    assert not (repo.path / GRAPH).exists()


@pytest.mark.parametrize(("config", "needle"), [
    ("graph: [unclosed\n", "cannot parse"),
    ("- a list\n", "expected a mapping"),
    ("graph: 3\n", "'graph' must be a str"),
    ("graph: ../outside.json\n", "inside the repository"),
    ("graph: /abs/graph.json\n", "inside the repository"),
    ("languages: [cobol]\n", "unknown language(s) cobol"),
    ("include: {a: 1}\n", "'include' must be a list of strings"),
    ("max_file_bytes: lots\n", "'max_file_bytes' must be a int"),
    ("weights: {calls: heavy}\n", "bad weight"),
    ("weights: {nonsense: 1}\n", "bad weight"),
    (b"graph: \xff\xfe\n", "cannot parse"),
])
def test_bad_config_is_one_line(repo: Repo, config: str | bytes, needle: str) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    repo.write(".gitgraph.yml", config)
    for command in ("index", "update", "check", "stats"):
        assert_one_line_error(repo.run_cli(command), ".gitgraph.yml: ", needle)
    assert_one_line_error(repo.gitgraph("update", "--staged"), needle)


def test_unknown_config_key_warns_once(repo: Repo) -> None:
    repo.write(".gitgraph.yml", "grpah: x.json\n")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    for command in ("update", "check", "index"):
        code, _, err = repo.run_cli(command)
        assert code in (0, 1)
        assert err.count("unknown key 'grpah' ignored") == 1, (command, err)


def _edit_json(change: Callable[[dict], None]) -> Callable[[bytes], bytes]:
    def damage(raw: bytes) -> bytes:
        graph = json.loads(raw)
        change(graph)
        return json.dumps(graph).encode()

    return damage


def _set_path(path: object) -> Callable[[bytes], bytes]:
    return _edit_json(lambda graph: graph["graph"]["files"][1].update(path=path))


@pytest.mark.parametrize("damage", [
    _set_path("../b.py"),
    _set_path("/etc/b.py"),
    _set_path("a/../../b.py"),
    _set_path(7),
    _edit_json(lambda graph: graph["graph"].update(format="gitgraph/0")),
    lambda raw: raw[: len(raw) // 2],
    lambda raw: b'{"graph": [], "nodes": {}, "links": 3}',
    lambda raw: b"\xff\xfe" + raw,
], ids=["dotdot", "absolute", "dotdot-inside", "not-a-string", "format", "truncated", "shape",
        "encoding"])
def test_untrusted_graph_json_is_rejected_and_regenerated(
    repo: Repo, damage: Callable[[bytes], bytes]
) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.write("b.py", "from a import a\n\n\ndef b():\n    return a()\n")
    repo.commit("one")
    assert repo.run_cli("update", "--staged")[0] == 0
    good = repo.read(GRAPH)
    repo.write(GRAPH, damage(good))
    assert repo.read(GRAPH) != good

    code, out, err = repo.run_cli("check")
    assert code == 1 and "Traceback" not in err and "(graph.json unreadable)" in out
    code, _, err = repo.run_cli("update", "--staged")
    assert code == 0
    assert err.startswith("gitgraph: warning: graph.json ") and "regenerating it" in err
    assert repo.read(GRAPH) == good
    code, _, err = repo.gitgraph("check")
    assert code == 0 and "Traceback" not in err


def test_unwritable_output_is_a_user_error(repo: Repo, tmp_path: Path) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    (repo.path / "adir").mkdir()
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a directory should be")
    for target, shown in (("adir", repo.path / "adir"), (blocker / "g.json", blocker / "g.json")):
        code, _, err = repo.run_cli("index", "-o", str(target))
        assert code == 1 and "Traceback" not in err and "internal error" not in err
        assert err.splitlines()[-1].startswith(f"gitgraph: error: cannot write {shown}: ")
    assert not list((repo.path / "adir").iterdir())  # no temp file left behind


def test_staging_an_ignored_graph_says_why(repo: Repo) -> None:
    repo.write(".gitignore", ".gitgraph/\n")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    assert_one_line_error(repo.run_cli("update", "--staged", "--stage", "--quiet"),
                          "git add failed: The following paths are ignored")


def test_the_console_script_flushes_its_output_before_it_exits(repo: Repo) -> None:
    # `gitgraph` leaves without tearing the interpreter down (os._exit): what it printed to
    # a pipe must still arrive whole, and its exit code must be kept
    for n in range(40):
        repo.write(f"m{n}.py", f"def f{n}(x):\n    return x + {n}\n\n\ndef g{n}():\n"
                                f"    return f{n}(1)\n")
    repo.commit("code")
    for n in range(40):
        repo.write(f"m{n}.py", repo.read(f"m{n}.py").decode().replace("x +", "x -"))
    code, out, err = repo.gitgraph("diff", "-f", "json", "-b", "100000")
    assert code == 0, err
    impact = json.loads(out)
    assert len(impact["seeds"]) == 40 and len(out) > 8192  # more than one pipe buffer
    assert repo.gitgraph("diff", "no-such-revision")[0] == 1
