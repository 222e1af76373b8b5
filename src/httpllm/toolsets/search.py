"""Find the functions that serve a task said in a user's words: a BM25 index (``bm25s``)
over each function's name, summary, description, tags, path words and parameter names.

Plain BM25 over an operation's own text misses what users say ("PR", "chargeback",
"snippet" never appear in GitHub's or Stripe's descriptions). The index therefore keeps
one BM25 per field and adds their scores with :data:`FIELD_WEIGHTS` (the name and the path
say what an operation is; a long description mostly says how), splits ``camelCase``,
``snake_case`` and ``kebab-case`` words and stems them (Snowball, so ``repositories`` and
``repository`` meet), translates the user's words with the field's synonyms
(:mod:`httpllm.toolsets._vocabulary`; a translated word still counts, less), matches the
query's verb to the action the method and path express (``GET /things`` lists,
``POST /things`` creates, ``DELETE /things/{id}`` deletes), and prefers current and less
nested operations between equals. ``benchmarks/search_recall.py`` measures what each part
brings on 358 tasks.

With the ``search-embed`` extra installed, the ranker is *hybrid*: a small sentence-embedding
model (all-MiniLM-L6-v2, :mod:`httpllm.toolsets._embed`: int8 weights shipped inside a
registry package, run by numpy, no network, no torch) ranks the functions by meaning too,
and reciprocal-rank fusion merges its ranking with BM25's, which reaches tasks that share
no word (and no synonym) with the operation. The functions are embedded on the first
search and kept with the index (about 0.6 ms of CPU a word piece: 20 s for GitHub's 1,223
operations). Without the
extra, or with ``ranker="bm25"`` (``HTTPLLM_SEARCH_RANKER=bm25``), BM25 ranks alone;
:attr:`SearchIndex.ranker` says which one did.

Needs the ``search`` extra (``pip install "httpllm[search]"``: ``bm25s`` and ``PyStemmer``).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from httpllm.errors import MissingExtra
from httpllm.records import Function
from httpllm.toolsets._vocabulary import INTENTS, SYNONYMS

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FIELD_WEIGHTS", "RANKERS", "SearchIndex", "action", "one_line", "words"]

RANKERS = ("auto", "bm25", "hybrid")
"""``auto`` is ``hybrid`` when the ``search-embed`` extra is installed, ``bm25`` otherwise."""

RANKER_VARIABLE = "HTTPLLM_SEARCH_RANKER"
"""The environment variable that picks the ranker when the caller does not."""

FIELD_WEIGHTS: dict[str, float] = {
    "name": 0.5,
    "path": 1.0,
    "summary": 4.0,
    "tags": 0.5,
    "description": 0.6,
    "parameters": 0.2,
}
"""How much each field's BM25 score counts: the summary says what an operation does in a
sentence, the name and path say it in identifiers (tuned on the dev half of the tasks)."""

BM25_PARAMETERS: dict[str, float] = {"k1": 1.5, "b": 0.75}
"""bm25s's defaults (Lucene's BM25)."""

SYNONYM_WEIGHT = 1.0
"""How much the words a synonym brings count beside the query's own."""

TRANSLATED_WEIGHT = 0.3
"""How much a word of the query counts when a synonym translates it."""

DEPRECATED_PENALTY = 0.2
"""How much less a deprecated operation scores (its replacement is the better answer)."""

DEPTH_PENALTY = 0.05
"""How much less each path segment makes an operation score: between equals, the general
operation (``GET /balance_transactions``) before the nested one (``.../{id}/...``)."""

ACTION_BOOST = 0.5
"""How much more a function scores when its action is the one the query's verb asks for."""

RRF_K = 10
"""Reciprocal-rank fusion's constant: a function at rank ``r`` (0-based) of a ranking earns
``weight / (RRF_K + r)`` (Cormack, Clarke and Buettcher, SIGIR 2009)."""

EMBEDDING_WEIGHT = 1.0
"""How much the embedding's ranking counts beside BM25's in the fusion.

The fusion's constants (this, :data:`RRF_K`, :data:`INTENT_SIMILARITY`) were chosen on the
dev half with BM25 *without* :data:`~httpllm.toolsets._vocabulary.SYNONYMS`: the table was
written while reading the dev tasks, so with it BM25 looks better on dev than on new
wording, and dev would ask for less of the embedding than new wording needs (with the
table, dev picks weight 0.5, which loses 0.09 on the fresh split). Equal weights tied with
RRF 20 at weight 1.5 or 2; ``benchmarks/README.md`` has the grid."""

INTENT_SIMILARITY = 0.05
"""Added to a function's cosine similarity when its action is the one the query's verb
asks for (the model tells "delete a repository" from "list repositories" poorly)."""

MIN_SIMILARITY = 0.3
"""Least cosine similarity for a function that shares no word with the query to be
returned by the hybrid ranker (below it, the model says the two are unrelated)."""

_RUN = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_PARAMETER = re.compile(r"^\{.*\}$")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
"""An HTML tag in a description (CommonMark allows them; Stripe's summaries are ``<p>``)."""


def words(text: str) -> list[str]:
    """The lower-case words of ``text``, ``camelCase``, ``snake_case`` and ``kebab-case``
    split: ``"PostPaymentIntents /pull_requests"`` -> ``["post", "payment", "intents",
    "pull", "requests"]``. Words outside ASCII are kept whole (``"café"``)."""
    out: list[str] = []
    for run in _RUN.findall(text):
        out.extend(w.lower() for w in (_CAMEL.findall(run) if run.isascii() else [run]))
    return out


def one_line(function: Function, limit: int = 120) -> str:
    """The function's summary: the first line of its description, at most ``limit``
    characters (cut at a word, with an ellipsis)."""
    line = _HTML_TAG.sub("", function.description).strip().split("\n", 1)[0].strip()
    if len(line) <= limit:
        return line
    return line[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def action(function: Function) -> str:
    """What the method and path do, as REST names it: ``list`` (``GET /things``), ``get``
    (``GET /things/{id}``), ``create`` (``POST /things``), ``update`` (``POST``, ``PUT`` or
    ``PATCH`` on an item), ``delete``; ``""`` for other methods.

    Source: RFC 9110 section 9.3 (method semantics); the collection/item convention of
    resource-oriented APIs.
    """
    item = bool(_PARAMETER.match(function.path.rstrip("/").rsplit("/", 1)[-1]))
    return {"get": "get" if item else "list", "post": "update" if item else "create",
            "put": "update", "patch": "update", "delete": "delete"}.get(function.method, "")


def _texts(function: Function) -> dict[str, str]:
    """The text of each field of :data:`FIELD_WEIGHTS` for one function."""
    summary, _, description = _HTML_TAG.sub("", function.description).partition("\n\n")
    segments = [s for s in function.path.split("/") if s]
    names = [a.wire_name for a in function.arguments if a.location != "body"]
    body = next((a.schema for a in function.arguments if a.location == "body"), None)
    if isinstance(body, dict) and isinstance(body.get("properties"), dict):
        names.extend(body["properties"])
    return {
        "name": f"{function.name} {function.operation_id or ''}",
        "path": " ".join(segments),
        "summary": summary,
        "tags": " ".join(function.tags),
        "description": description,
        "parameters": " ".join(names),
    }


@dataclass(frozen=True, slots=True)
class _Query:
    own: list[str]
    synonyms: list[str]
    translated: list[str]
    intents: list[str]


def _meaning(function: Function) -> str:
    """The text the embedding model reads for one function: its summary, method and path
    (on the dev half, adding the tags, the description's first sentence or the whole
    description ranks worse; the path's words alone no better)."""
    summary = _HTML_TAG.sub("", function.description).partition("\n\n")[0].strip()
    return f"{summary}. {function.method.upper()} {function.path}"


def _ranker(ranker: str | None) -> Literal["bm25", "hybrid"]:
    """The ranker that ``ranker`` (or :data:`RANKER_VARIABLE`, or ``auto``) asks for.

    Raises:
        ValueError: not one of :data:`RANKERS`.
    """
    from httpllm.toolsets import _embed

    chosen = ranker or os.environ.get(RANKER_VARIABLE) or "auto"
    if chosen not in RANKERS:
        raise ValueError(f"expected a search ranker among {', '.join(RANKERS)}, got {chosen!r}")
    if chosen == "auto":
        return "hybrid" if _embed.available() else "bm25"
    return "hybrid" if chosen == "hybrid" else "bm25"


class SearchIndex:
    """A BM25 index of functions, one per field, searched with :meth:`search`; with the
    hybrid ranker, also the functions' sentence embeddings (computed on the first search).

    >>> index = SearchIndex(app.functions)  # doctest: +SKIP
    >>> [f.name for f in index.search("merge a PR", k=3)]  # doctest: +SKIP
    ['pulls_merge', 'pulls_merge-async', 'pulls_check-if-merged']

    Args:
        functions: the functions to index (an application's ``functions``).
        ranker: ``auto`` (the default, unless :data:`RANKER_VARIABLE` says otherwise),
            ``bm25`` or ``hybrid``; :attr:`ranker` holds the one chosen.

    Raises:
        MissingExtra: ``bm25s`` or ``PyStemmer`` is not installed (the ``search`` extra),
            or ``ranker="hybrid"`` without the ``search-embed`` extra.
        ValueError: ``ranker`` is not one of :data:`RANKERS`.
    """

    def __init__(self, functions: Sequence[Function], *, ranker: str | None = None) -> None:
        bm25s, stemmer, np = _libraries()
        self.ranker = _ranker(ranker)
        if self.ranker == "hybrid":
            from httpllm.toolsets import _embed

            _embed._load()
        self.functions = tuple(functions)
        self._embeddings: list[Any] = []
        self._embedding = threading.Lock()
        self._stem: Callable[[str], str] = stemmer.stemWord
        self._stemming = threading.Lock()  # a PyStemmer stemmer is not thread-safe
        self._stopwords = frozenset(bm25s.stopwords.STOPWORDS_EN_PLUS)
        self._synonyms = {tuple(self._tokens(k, stop=False)): self._tokens(v)
                          for k, v in SYNONYMS.items()}
        self._longest = max((len(k) for k in self._synonyms), default=0)
        texts = [_texts(f) for f in self.functions]
        self._fields = {field: self._bm25(bm25s, [self._tokens(t[field]) for t in texts])
                        for field in FIELD_WEIGHTS}
        self._np = np
        self._actions = np.array([action(f) for f in self.functions])
        depth = np.array([f.path.count("/") for f in self.functions], dtype="float32")
        deprecated = np.array([f.deprecated for f in self.functions], dtype="float32")
        self._prior = (1.0 - DEPRECATED_PENALTY * deprecated) / (1.0 + DEPTH_PENALTY * depth)

    @staticmethod
    def _bm25(bm25s: Any, corpus: list[list[str]]) -> Any:
        """The BM25 index of ``corpus``; ``None`` when it has no word at all (bm25s
        cannot index that: a document without tags has an empty ``tags`` field)."""
        if not any(corpus):
            return None
        index = bm25s.BM25(**BM25_PARAMETERS)
        index.index(corpus, show_progress=False)
        return index

    def _tokens(self, text: str, *, stop: bool = True) -> list[str]:
        """Stemmed words of ``text``, stop words left out unless ``stop`` is false."""
        return [self._stem(w) for w in words(text) if not (stop and w in self._stopwords)]

    def _query(self, text: str) -> _Query:
        """The query's own words, the words its synonyms bring, and its verb's action.

        A word a synonym translates counts only :data:`TRANSLATED_WEIGHT` among the own
        words ("PR" is also a word of GitHub's "fork-pr" settings): the synonym says what
        the user meant.
        """
        said = words(text)
        with self._stemming:
            raw = [self._stem(w) for w in said]
        covered: set[int] = set()
        synonyms: list[str] = []
        for size in range(self._longest, 0, -1):
            for at in range(len(raw) - size + 1):
                found = self._synonyms.get(tuple(raw[at:at + size]))
                if found is not None:
                    synonyms.extend(found)
                    covered.update(range(at, at + size))
        own = [t for i, (t, w) in enumerate(zip(raw, said, strict=True))
               if w not in self._stopwords and i not in covered]
        translated = [raw[i] for i in sorted(covered) if said[i] not in self._stopwords]
        intents = [INTENTS[w] for w in said if w in INTENTS]
        return _Query(own=own, synonyms=list(dict.fromkeys(synonyms)), translated=translated,
                      intents=intents[:1])

    def scores(self, query: str) -> np.ndarray[Any, Any]:
        """Each function's score for ``query`` (higher is better), in index order."""
        parsed = self._query(query)
        total = self._np.zeros(len(self.functions), dtype="float32")
        for tokens, weight in ((parsed.own, 1.0), (parsed.synonyms, SYNONYM_WEIGHT),
                               (parsed.translated, TRANSLATED_WEIGHT)):
            if not tokens:
                continue
            for field, field_weight in FIELD_WEIGHTS.items():
                if self._fields.get(field) is not None:
                    total += weight * field_weight * self._fields[field].get_scores(tokens)
        total *= 1.0 + ACTION_BOOST * self._intended(parsed)
        out: np.ndarray[Any, Any] = total * self._prior
        return out

    def similarities(self, query: str) -> np.ndarray[Any, Any]:
        """Each function's cosine similarity to ``query`` by the embedding model, in index
        order (the functions are embedded on the first call).

        Raises:
            MissingExtra: the ``search-embed`` extra is not installed.
        """
        from httpllm.toolsets import _embed

        with self._embedding:
            if not self._embeddings:
                self._embeddings.append(_embed.embed([_meaning(f) for f in self.functions]))
        out: np.ndarray[Any, Any] = self._embeddings[0] @ _embed.embed([query])[0]
        return out

    def _intended(self, parsed: _Query) -> np.ndarray[Any, Any]:
        """1 for each function whose action the query's verb asks for, else 0."""
        wanted = parsed.intents[0] if parsed.intents else None
        out: np.ndarray[Any, Any] = (self._actions == wanted).astype("float32")
        return out

    def fused(self, query: str) -> np.ndarray[Any, Any]:
        """Each function's hybrid score for ``query``: reciprocal-rank fusion of BM25's
        ranking (functions that share a word) and the embedding's (functions at least
        :data:`MIN_SIMILARITY` alike, :data:`INTENT_SIMILARITY` more when their action is
        the one asked for); ``0`` for a function in neither."""
        numpy = self._np
        bm25 = self.scores(query)
        cosine = self.similarities(query) + INTENT_SIMILARITY * self._intended(
            self._query(query))
        total: np.ndarray[Any, Any] = numpy.zeros(len(self.functions), dtype="float64")
        for values, weight, floor in ((bm25, 1.0, 0.0),
                                      (cosine, EMBEDDING_WEIGHT, MIN_SIMILARITY)):
            order = numpy.argsort(-values, kind="stable")
            rank = numpy.empty(len(order), dtype="float64")
            rank[order] = numpy.arange(len(order))
            total += numpy.where(values > floor, weight / (RRF_K + rank), 0.0)
        return total

    def search(self, query: str, k: int = 10, *, tag: str | None = None) -> list[Function]:
        """The ``k`` functions that best serve ``query``, best first; only those tagged
        ``tag`` (case-insensitive) when given. With BM25 alone, functions that share no
        word with the query (or its synonyms) are never returned; the hybrid ranker also
        returns those the model finds alike (:data:`MIN_SIMILARITY`). The list may be
        shorter than ``k``."""
        if k <= 0 or not self.functions or not words(query):
            return []
        scores = self.fused(query) if self.ranker == "hybrid" else self.scores(query)
        wanted = None if tag is None else tag.casefold()
        out: list[Function] = []
        for i in self._np.argsort(-scores, kind="stable"):
            if scores[i] <= 0 or len(out) == k:
                break
            if wanted is None or wanted in (t.casefold() for t in self.functions[i].tags):
                out.append(self.functions[i])
        return out


def _libraries() -> tuple[Any, Any, Any]:
    """``bm25s``, an English Snowball stemmer from ``PyStemmer``, and ``numpy`` (which
    bm25s needs).

    Raises:
        MissingExtra: either is not installed.
    """
    try:
        import bm25s
        import bm25s.stopwords
        import numpy
        import Stemmer
    except ImportError as exc:
        raise MissingExtra(f"search needs the 'search' extra (pip install "
                           f"\"httpllm[search]\"): {exc.name} is not installed") from exc
    return bm25s, Stemmer.Stemmer("english"), numpy
