"""Find the functions that serve a task said in a user's words: BM25 (``bm25s``) over what
every description carries, fused with a sentence-embedding ranking when one is installed.

The index keeps one BM25 per field of each function and adds their scores with
:data:`FIELD_WEIGHTS`: its name and operationId, its path's nouns, its summary (the
description's first paragraph), the rest of its description, its tags and their
descriptions, its parameters' names, enum values and descriptions, and its success
response's field names. Words are split at ``camelCase``, ``snake_case`` and
``kebab-case`` and stemmed (Snowball, so ``repositories`` and ``repository`` meet). The
query's verb is matched to the action the method and path express (:data:`VERBS`: an
English verb's REST action, ``GET /things`` lists, ``POST /things`` creates,
``DELETE /things/{id}`` deletes; a question reads unless it asks how to change something:
:func:`intent`), and current, less nested operations
come first between equals. No table of any API's or domain's vocabulary: what bridges a
user's words to a description's is the embedding model.

With an embedder (:mod:`httpllm.toolsets.embedders`: the built-in model of the
``search-embed`` extra, a fastembed model, or any callable) the ranker is *hybrid*: the
functions are ranked by the cosine of their embedded summary to the query's too, and
reciprocal-rank fusion merges both rankings, which reaches tasks that share no word with
the operation. The functions' vectors are computed once per machine: they are kept in the
user's cache (:mod:`httpllm.toolsets._store`), keyed by the texts embedded and the model.
Without an embedder, or with ``ranker="bm25"`` (``HTTPLLM_SEARCH_RANKER=bm25``), BM25
ranks alone; :attr:`SearchIndex.ranker` says which one did.
``benchmarks/search_recall.py`` measures each part on the tasks of ten APIs.

Needs the ``search`` extra (``pip install "httpllm[search]"``: ``bm25s`` and ``PyStemmer``).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from httpllm._json import valid_unicode
from httpllm._types import Schema
from httpllm.errors import MissingExtra, requires_extra
from httpllm.records import Function

if TYPE_CHECKING:
    import numpy as np

    from httpllm.toolsets.embedders import Embedder

__all__ = ["FIELD_WEIGHTS", "PHRASES", "QUESTION_WORDS", "RANKERS", "REQUESTING", "SearchIndex",
           "VERBS", "action", "intent", "meaning", "one_line", "words"]

RANKERS = ("auto", "bm25", "hybrid")
"""``auto`` is ``hybrid`` when an embedder is given or the ``search-embed`` extra is
installed, ``bm25`` otherwise."""

RANKER_VARIABLE = "HTTPLLM_SEARCH_RANKER"
"""The environment variable that picks the ranker when the caller does not."""

FIELD_WEIGHTS: dict[str, float] = {
    "name": 0.5,
    "path": 1.0,
    "summary": 4.0,
    "tags": 0.5,
    "description": 0.6,
    "parameters": 0.2,
    "parameter_descriptions": 0.2,
    "responses": 0.3,
}
"""How much each field's BM25 score counts: the summary says what an operation does in a
sentence, the name and path say it in identifiers; the parameters' and the response's
words find "the org's base currency" in ``GET /Organisation``'s answer. Chosen on the
``dev`` tasks of ten APIs (``benchmarks/README.md``); every field but the summary moves
their recall by a task or two."""

BM25_PARAMETERS: dict[str, float] = {"k1": 1.5, "b": 0.75}
"""bm25s's defaults (Lucene's BM25)."""

VERBS: dict[str, tuple[str, ...]] = {
    "delete": ("delete", "remove", "destroy", "erase", "discard", "wipe", "purge", "drop",
               "unassign", "deregister", "unregister"),
    "create": ("create", "add", "make", "new", "register", "insert", "generate", "open",
               "issue", "start", "invite", "upload", "submit"),
    "update": ("update", "change", "edit", "modify", "rename", "set", "move", "replace",
               "adjust", "toggle", "enable", "disable"),
    "list": ("list", "all", "every", "browse", "enumerate"),
    "get": ("get", "fetch", "read", "show", "view", "retrieve", "see", "look", "what",
            "which", "how", "who", "whats", "is", "are", "does", "do", "check", "download",
            "find"),
}
"""English verbs (and question words) by the REST action they ask for; the query's
intent is its first such word (``"remove a pet"``: delete), unless that word only asks
(:data:`QUESTION_WORDS`) and a request for a change follows (:data:`REQUESTING`): ``"how do
I remove a pet"`` asks to delete. ``get`` (a question, a read) is met by reading one thing
or listing. General English, not any API's vocabulary.

Source: RFC 9110 section 9.3 (method semantics)."""

QUESTION_WORDS = frozenset({"what", "which", "how", "who", "whats", "is", "are", "does",
                            "do"})
"""Words of :data:`VERBS` that make a question rather than name an action: a read, unless
the question asks how to change something (``"how do I remove a pet"``)."""

REQUESTING = frozenset({"i", "we", "you", "to", "please"})
"""Words after which a verb is the action asked for, within a question: ``"how do I
delete"``, ``"what's the way to add"``, ``"can you please remove"`` (but not ``"which
issues are open"``, where the verb is an adjective)."""

PHRASES: dict[tuple[str, str], str] = {
    ("get", "rid"): "delete", ("set", "up"): "create", ("sign", "up"): "create",
    ("look", "up"): "get", ("turn", "on"): "update", ("turn", "off"): "update",
    ("switch", "on"): "update", ("switch", "off"): "update",
}
"""English phrasal verbs whose first word alone would say another action (``"get rid of
pet 7"`` deletes, ``"set up a webhook"`` creates)."""

_INTENT = {word: act for act, verbs in VERBS.items() for word in verbs}


def intent(said: Sequence[str]) -> str | None:
    """The REST action (a key of :data:`VERBS`) that a query's words ask for, ``None`` when
    none: its first verb (or phrasal verb, :data:`PHRASES`); a question's word yields to a
    change requested after it (:data:`QUESTION_WORDS`, :data:`REQUESTING`).

    >>> intent(words("how do I remove a pet")), intent(words("which issues are open"))
    ('delete', 'get')
    """
    first: str | None = None
    for i, word in enumerate(said):
        act = PHRASES.get((word, said[i + 1])) if i + 1 < len(said) else None
        act = act or _INTENT.get(word)
        if act is None:
            continue
        if first is None:
            if word not in QUESTION_WORDS:
                return act
            first = act
        elif act not in ("get", "list") and i and said[i - 1] in REQUESTING:
            return act
    return first

DEPRECATED_PENALTY = 0.2
"""How much less a deprecated operation scores (its replacement is the better answer)."""

DEPTH_PENALTY = 0.05
"""How much less each path segment makes an operation score: between equals, the general
operation (``GET /balance_transactions``) before the nested one (``.../{id}/...``)."""

ACTION_BOOST = 1.0
"""How much more a function's BM25 score counts when its action is the one the query's
verb asks for."""

RRF_K = 10
"""Reciprocal-rank fusion's constant: a function at rank ``r`` (0-based) of a ranking earns
``weight / (RRF_K + r)`` (Cormack, Clarke and Buettcher, SIGIR 2009)."""

EMBEDDING_WEIGHT = 1.0
"""How much the embedding's ranking counts beside BM25's in the fusion."""

INTENT_SIMILARITY = 0.05
"""Added to a function's cosine similarity when its action is the one the query's verb
asks for (a sentence model tells "delete a repository" from "list repositories" poorly)."""

SAVED_FORMAT = 2
"""The format of a saved index (:meth:`SearchIndex.save`); 2: the BM25 scores as
``.npy`` arrays and the vocabularies and stop words in ``functions.json``, read without
bm25s (1: bm25s's own folders)."""

MIN_SIMILARITY = 0.2
"""Least cosine similarity for a function that shares no word with the query to be
returned by the hybrid ranker (below it, the model finds the two unrelated)."""

_RUN = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_PARAMETER = re.compile(r"^\{.*\}$")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
"""An HTML tag in a description (CommonMark allows them; Stripe's summaries are ``<p>``)."""

SCHEMA_WORDS = 200
"""Most property names, enum values and descriptions taken from one schema."""


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


def meaning(function: Function) -> str:
    """The text the embedding model reads for one function: its summary and its path's
    nouns, ``"Merge a pull request (repos pulls merge)"``. On the ``dev`` tasks it ranks as
    well as the summary with the description's first sentence, at a third of the word
    pieces (so of the time to embed a document), and better than the summary alone, with
    the method and path, the tags or the name's words."""
    summary = _HTML_TAG.sub("", function.description).partition("\n\n")[0].strip()
    nouns = " ".join(words(" ".join(s for s in function.path.split("/")
                                    if s and not _PARAMETER.match(s))))
    return f"{summary} ({nouns})" if nouns else summary


def _schema_words(schema: Any) -> tuple[list[str], list[str]]:
    """The property names and string enum values (first list) and the descriptions (second)
    of ``schema``, its items and its combined schemas, two levels of properties deep,
    :data:`SCHEMA_WORDS` of each at most (an iterative walk: schemas may be recursive)."""
    names: list[str] = []
    descriptions: list[str] = []
    stack: list[tuple[Any, int]] = [(schema, 0)]
    seen: set[int] = set()
    while stack and len(names) < SCHEMA_WORDS:
        node, depth = stack.pop()
        if not isinstance(node, dict) or id(node) in seen or depth > 2:
            continue
        seen.add(id(node))
        for key in ("allOf", "anyOf", "oneOf"):
            members = node.get(key)
            if isinstance(members, list):
                stack.extend((m, depth) for m in members)
        stack.append((node.get("items"), depth))
        enum = node.get("enum")
        if isinstance(enum, list):
            names.extend(e for e in enum[:30] if isinstance(e, str))
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                names.append(str(name))
                if isinstance(sub, dict) and isinstance(sub.get("description"), str) \
                        and len(descriptions) < SCHEMA_WORDS:
                    descriptions.append(sub["description"][:200])
                stack.append((sub, depth + 1))
    return names, descriptions


def _texts(function: Function, tags: Mapping[str, str]) -> dict[str, str]:
    """The text of each field of :data:`FIELD_WEIGHTS` for one function."""
    summary, _, description = _HTML_TAG.sub("", function.description).partition("\n\n")
    names: list[str] = []
    descriptions: list[str] = []
    for argument in function.arguments:
        schema: Schema = argument.schema if isinstance(argument.schema, dict) else {}
        if argument.location == "body":
            found, said = _schema_words(schema)
            names.extend(found)
            descriptions.extend(said)
            continue
        names.append(argument.wire_name)
        names.extend(_schema_words({"enum": schema.get("enum")})[0])
        if isinstance(schema.get("description"), str):
            descriptions.append(schema["description"][:200])
    return {field: _valid(text) for field, text in {
        "name": f"{function.name} {function.operation_id or ''}",
        "path": " ".join(s for s in function.path.split("/") if s and not _PARAMETER.match(s)),
        "summary": summary,
        "tags": " ".join([*function.tags, *(tags.get(t, "") for t in function.tags)]),
        "description": description,
        "parameters": " ".join(names),
        "parameter_descriptions": " ".join(descriptions),
        "responses": " ".join(_schema_words(_output(function))[0]),
    }.items()}


def _valid(text: str) -> str:
    """``text`` with a lone surrogate (a ``\\ud800`` escape without its pair, from a
    document or a query) as U+FFFD: the stemmer and the embedders' tokenizers take UTF-8
    only (search raised on it)."""
    return str(valid_unicode(text)[0])


def _output(function: Function) -> Schema | None:
    """The function's success response schema; ``None`` when it has none or it cannot be
    computed (the search never fails for a response it cannot read)."""
    try:
        return function.output
    except Exception:  # an output computed lazily must not sink the index
        return None


@dataclass(frozen=True, slots=True)
class _Query:
    tokens: list[str]
    intent: str | None


def _ranker(ranker: str | None, embedder: object) -> Literal["bm25", "hybrid"]:
    """The ranker that ``ranker`` (or :data:`RANKER_VARIABLE`, or ``auto``) asks for.

    Raises:
        ValueError: not one of :data:`RANKERS`.
    """
    from httpllm.toolsets import embedders

    chosen = ranker or os.environ.get(RANKER_VARIABLE) or "auto"
    if chosen not in RANKERS:
        raise ValueError(f"expected a search ranker among {', '.join(RANKERS)}, got {chosen!r}")
    if chosen == "auto":
        return "hybrid" if embedder is not None or embedders.available() else "bm25"
    return "hybrid" if chosen == "hybrid" else "bm25"


class SearchIndex:
    """A BM25 index of functions, one per field, searched with :meth:`search`; with the
    hybrid ranker, also the functions' sentence embeddings (read from the cache, else
    computed on the first search and stored).

    >>> index = SearchIndex(app.functions)  # doctest: +SKIP
    >>> [f.name for f in index.search("merge a PR", k=3)]  # doctest: +SKIP
    ['pulls_merge', 'pulls_check-if-merged', 'pulls_merge-async']

    Args:
        functions: the functions to index (an application's ``functions``).
        ranker: ``auto`` (the default, unless :data:`RANKER_VARIABLE` says otherwise),
            ``bm25`` or ``hybrid``; :attr:`ranker` holds the one chosen.
        embedder: what embeds texts for the hybrid ranker: an
            :class:`~httpllm.toolsets.embedders.Embedder`, a callable
            ``(list[str]) -> list[list[float]]``, ``"builtin"`` or ``"fastembed:MODEL"``
            (see :func:`httpllm.toolsets.embedders.resolve`); default: the built-in model.
        tags: the document's tag descriptions by tag name (``tags`` of the document).
        cache: whether the functions' vectors are read from and kept in the user's cache
            (:mod:`httpllm.toolsets._store`).

    Raises:
        MissingExtra: ``bm25s`` or ``PyStemmer`` is not installed (the ``search`` extra),
            or the hybrid ranker is asked for without an embedder or the ``search-embed``
            extra.
        ValueError: ``ranker`` is not one of :data:`RANKERS`, or ``embedder`` is no embedder.
    """

    def __init__(self, functions: Sequence[Function], *, ranker: str | None = None,
                 embedder: Any = None, tags: Mapping[str, str] | None = None,
                 cache: bool = True, _fields: dict[str, _Field | None] | None = None,
                 _stopwords: frozenset[str] | None = None) -> None:
        if _fields is None or _stopwords is None:
            bm25s, stemmer, np = _libraries()
            _stopwords = frozenset(bm25s.stopwords.STOPWORDS_EN_PLUS)
        else:  # a saved index (:meth:`load`): bm25s is not needed to search it
            stemmer, np = _stemmer()
        self.ranker = _ranker(ranker, embedder)
        self.embedder: Embedder | None = None
        if self.ranker == "hybrid":
            from httpllm.toolsets import embedders

            self.embedder = embedders.resolve(embedder)
        self.functions = tuple(functions)
        self.cache = cache
        self._np = np
        self._vectors: list[Any] = []
        self._embedding = threading.Lock()
        self._stem: Callable[[str], str] = stemmer.stemWord
        self._stemming = threading.Lock()  # a PyStemmer stemmer is not thread-safe
        self._stopwords = _stopwords
        if _fields is None:
            texts = [_texts(f, tags or {}) for f in self.functions]
            _fields = {field: self._bm25(bm25s, [self._tokens(t[field]) for t in texts])
                       for field in FIELD_WEIGHTS}
        self._fields: dict[str, _Field | None] = _fields
        self._actions = np.array([action(f) for f in self.functions])
        depth = np.array([f.path.count("/") for f in self.functions], dtype="float32")
        deprecated = np.array([f.deprecated for f in self.functions], dtype="float32")
        self._prior = (1.0 - DEPRECATED_PENALTY * deprecated) / (1.0 + DEPTH_PENALTY * depth)

    @staticmethod
    def _bm25(bm25s: Any, corpus: list[list[str]]) -> _Field | None:
        """The BM25 index of ``corpus``, built by bm25s; ``None`` when it has no word at
        all (bm25s cannot index that: a document without tags has an empty ``tags``
        field)."""
        if not any(corpus):
            return None
        index = bm25s.BM25(**BM25_PARAMETERS)
        index.index(corpus, show_progress=False)
        indptr = index.scores["indptr"]
        # bm25s gives "" an id past its matrix (no word of ours is empty: left out)
        return _Field(data=index.scores["data"], indices=index.scores["indices"],
                      indptr=indptr, documents=int(index.scores["num_docs"]),
                      vocabulary={word: int(i) for word, i in index.vocab_dict.items()
                                  if 0 <= i < len(indptr) - 1})

    def _tokens(self, text: str) -> list[str]:
        """Stemmed words of ``text``, stop words left out."""
        return [self._stem(w) for w in words(text) if w not in self._stopwords]

    def _query(self, text: str) -> _Query:
        """The query's stemmed words and its intent (:data:`VERBS`); a phrasal verb's words
        (:data:`PHRASES`) are its intent only ("get rid of pet 7" does not match ``getPet``
        by its "get")."""
        said = words(_valid(text))
        phrasal = {j for i in range(len(said) - 1) if (said[i], said[i + 1]) in PHRASES
                   for j in (i, i + 1)}
        with self._stemming:
            tokens = [self._stem(w) for i, w in enumerate(said)
                      if w not in self._stopwords and i not in phrasal]
        return _Query(tokens=tokens, intent=intent(said))

    def _intended(self, parsed: _Query) -> np.ndarray[Any, Any]:
        """1 for each function whose action the query's intent asks for, else 0."""
        wanted = {"get": ("get", "list")}.get(parsed.intent or "", (parsed.intent,))
        out: np.ndarray[Any, Any] = self._np.isin(self._actions, wanted).astype("float32")
        return out

    def scores(self, query: str) -> np.ndarray[Any, Any]:
        """Each function's BM25 score for ``query`` (higher is better), in index order."""
        parsed = self._query(query)
        total = self._np.zeros(len(self.functions), dtype="float32")
        if parsed.tokens:
            for field, weight in FIELD_WEIGHTS.items():
                bm25 = self._fields.get(field)
                if bm25 is not None:
                    total += weight * bm25.scores(self._np, parsed.tokens)
        total *= 1.0 + ACTION_BOOST * self._intended(parsed)
        out: np.ndarray[Any, Any] = total * self._prior
        return out

    def vectors(self) -> np.ndarray[Any, Any]:
        """The functions' embeddings, ``(len(functions), dimensions)``, in index order: read
        from the cache when there, else computed (and stored) on the first call.

        Raises:
            MissingExtra: the ranker is not hybrid (no embedder).
        """
        from httpllm.toolsets import _store

        if self.embedder is None:
            raise MissingExtra("this search index has no embedder (ranker='bm25')")
        with self._embedding:
            if not self._vectors:
                texts = [_valid(meaning(f)) for f in self.functions]
                name = self.embedder.name
                key = _store.key(name, texts) if self.cache and name else ""
                found = _store.read(key, len(texts)) if key else None
                if found is None:
                    found = self.embedder.embed(texts)
                    if key:
                        _store.write(key, found, name)
                self._vectors.append(found)
        out: np.ndarray[Any, Any] = self._vectors[0]
        return out

    def similarities(self, query: str) -> np.ndarray[Any, Any]:
        """Each function's cosine similarity to ``query`` by the embedder, in index order."""
        vectors = self.vectors()
        if self.embedder is None or not len(self.functions):
            out: np.ndarray[Any, Any] = self._np.zeros(len(self.functions), dtype="float32")
            return out
        similarity: np.ndarray[Any, Any] = vectors @ self.embedder.embed([_valid(query)])[0]
        return similarity

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
        word with the query are never returned; the hybrid ranker also returns those the
        model finds alike (:data:`MIN_SIMILARITY`). The list may be shorter than ``k``."""
        if k <= 0 or not self.functions or not words(query):
            return []
        scores = self.fused(query) if self.ranker == "hybrid" else self.scores(query)
        wanted = None if tag is None else tag.casefold()
        out: list[Function] = []
        for i in _descending(self._np, scores):
            if scores[i] <= 0 or len(out) == k:
                break
            if wanted is None or wanted in (t.casefold() for t in self.functions[i].tags):
                out.append(self.functions[i])
        return out


    def save(self, folder: Path) -> None:
        """Write the index into ``folder`` (an empty folder): the functions' names, methods,
        paths, one-line summaries and tags, the stop words and each field's vocabulary
        (``functions.json``), each field's BM25 scores (``<field>.data.npy``,
        ``<field>.indices.npy``, ``<field>.indptr.npy``: bm25s's sparse matrix) and, for
        the hybrid ranker, the vectors (``vectors.npy``). :meth:`load` reads it back
        without the document, and without importing bm25s.

        Raises:
            OSError: the folder cannot be written.
        """
        import json

        records = [{"name": f.name, "operationId": f.operation_id, "method": f.method,
                    "path": f.path, "summary": one_line(f), "tags": list(f.tags),
                    "deprecated": f.deprecated} for f in self.functions]
        fields = {field: {"vocabulary": bm25.vocabulary, "documents": bm25.documents}
                  for field, bm25 in self._fields.items() if bm25 is not None}
        (folder / "functions.json").write_text(json.dumps({
            "format": SAVED_FORMAT, "ranker": self.ranker,
            "embedder": self.embedder.name if self.embedder is not None else "",
            "stopwords": sorted(self._stopwords), "fields": fields,
            "functions": records}), encoding="utf-8")
        for field, bm25 in self._fields.items():
            if bm25 is not None:
                for part in _Field.ARRAYS:
                    self._np.save(folder / f"{field}.{part}.npy", getattr(bm25, part),
                                  allow_pickle=False)
        if self.embedder is not None:
            self._np.save(folder / "vectors.npy", self.vectors(), allow_pickle=False)

    @classmethod
    def load(cls, folder: Path, *, embedder: Any = None) -> SearchIndex | None:
        """The index :meth:`save` wrote into ``folder``, its functions standing for the
        document's (name, operationId, method, path, one-line summary and tags only: for
        showing results, not for calling); ``None`` when the folder is not a complete,
        well-formed saved index of this format (nothing in it is run: JSON and ``.npy``
        read without pickle, every array's shape and bounds checked), or was saved with
        another embedder than ``embedder``.

        Raises:
            MissingExtra: ``PyStemmer`` is not installed, or as :class:`SearchIndex` for
                the embedder.
        """
        import json

        from httpllm.toolsets import _store

        _, numpy = _stemmer()
        try:
            saved = json.loads((folder / "functions.json").read_text(encoding="utf-8"))
            if saved.get("format") != SAVED_FORMAT or saved.get("ranker") not in RANKERS:
                return None
            functions = tuple(_stand_in(r) for r in saved["functions"])
            stopwords = saved["stopwords"]
            if not isinstance(stopwords, list) or not all(isinstance(w, str)
                                                          for w in stopwords):
                return None
            described = saved["fields"]
            fields = {field: (_Field.read(numpy, folder, field, described[field],
                                          len(functions))
                              if field in described else None)
                      for field in FIELD_WEIGHTS}
            if any(field in described and fields[field] is None for field in FIELD_WEIGHTS):
                return None
        except Exception:  # any unreadable saved index is a miss
            return None
        index = cls(functions, ranker=saved.get("ranker"), embedder=embedder,
                    cache=False, _fields=fields, _stopwords=frozenset(stopwords))
        name = index.embedder.name if index.embedder is not None else ""
        if name != saved.get("embedder"):
            return None
        if index.embedder is not None:
            vectors = _store.load_matrix(folder / "vectors.npy", len(functions))
            if vectors is None:
                return None
            index._vectors.append(vectors)
        return index


@dataclass(frozen=True, slots=True, kw_only=True)
class _Field:
    """One field's BM25 index as bm25s builds it (its ``lucene`` method scores every word
    of every function at indexing, so a query only adds): the scores as a sparse matrix
    of words by functions (CSC: word ``w``'s functions are
    ``indices[indptr[w]:indptr[w + 1]]``, their scores the same slice of ``data``), the
    word ids, and the number of functions. :meth:`scores` computes what bm25s'
    ``BM25.get_scores`` does, the same additions in the same order, without importing
    bm25s (a saved index is searched without it)."""

    ARRAYS = ("data", "indices", "indptr")

    data: Any
    indices: Any
    indptr: Any
    vocabulary: dict[str, int]
    documents: int

    def scores(self, numpy: Any, tokens: Sequence[str]) -> np.ndarray[Any, Any]:
        """Each function's BM25 score for the stemmed ``tokens`` (float32, in order)."""
        ids = numpy.asarray([self.vocabulary[t] for t in tokens if t in self.vocabulary],
                            dtype=numpy.int32)
        out: np.ndarray[Any, Any] = numpy.zeros(self.documents, dtype=numpy.float32)
        for start, end in zip(self.indptr[ids], self.indptr[ids + 1], strict=True):
            numpy.add.at(out, self.indices[start:end], self.data[start:end])
        return out

    @classmethod
    def read(cls, numpy: Any, folder: Path, field: str, described: Any,
             documents: int) -> _Field | None:
        """The field :meth:`SearchIndex.save` wrote, when well formed: float32 scores,
        word ids within the vocabulary, function ids within ``documents``; else ``None``.

        Raises:
            OSError: a file cannot be read.
            ValueError: a file is no ``.npy`` array (or holds objects).
        """
        vocabulary = described["vocabulary"]
        arrays = [numpy.load(folder / f"{field}.{part}.npy", allow_pickle=False)
                  for part in cls.ARRAYS]
        data, indices, indptr = arrays
        if (described["documents"] != documents or not isinstance(vocabulary, dict)
                or any(a.ndim != 1 for a in arrays) or data.dtype != numpy.float32
                or indices.dtype.kind != "i" or indptr.dtype.kind != "i"
                or len(indices) != len(data) or len(indptr) < 1 or indptr[0] != 0
                or indptr[-1] != len(data) or (numpy.diff(indptr) < 0).any()
                or not numpy.isfinite(data).all()
                or (len(indices) and not 0 <= indices.min() <= indices.max() < documents)
                or not all(isinstance(v, int) and 0 <= v < len(indptr) - 1
                           for v in vocabulary.values())):
            return None
        return cls(data=data, indices=indices, indptr=indptr, vocabulary=vocabulary,
                   documents=documents)


def _stand_in(record: Mapping[str, Any]) -> Function:
    """A function standing for a saved one in search results (no parameters)."""
    def text(key: str) -> str:
        value = record.get(key)
        if not isinstance(value, str):
            raise ValueError(f"expected a string {key}")
        return value

    tags = record.get("tags")
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("expected a list of tags")
    operation_id = record.get("operationId")
    return Function(name=text("name"), description=text("summary"), parameters={},
                    method=text("method"), path=text("path"),
                    operation_id=operation_id if isinstance(operation_id, str) else None,
                    tags=tuple(tags), deprecated=record.get("deprecated") is True,
                    arguments=(), schema={})


def _descending(numpy: Any, scores: Any) -> Iterator[int]:
    """Indexes of ``scores`` from the highest, ties in index order."""
    yield from (int(i) for i in numpy.argsort(-scores, kind="stable"))


def _stemmer() -> tuple[Any, Any]:
    """An English Snowball stemmer from ``PyStemmer``, and ``numpy``: what searching a saved
    index needs.

    Raises:
        MissingExtra: either is not installed.
    """
    with requires_extra("search", "search", {"numpy", "Stemmer"}):
        import numpy
        import Stemmer
    return Stemmer.Stemmer("english"), numpy


def _libraries() -> tuple[Any, Any, Any]:
    """``bm25s``, an English Snowball stemmer from ``PyStemmer``, and ``numpy`` (which
    bm25s needs).

    Raises:
        MissingExtra: either is not installed.
    """
    with requires_extra("search", "search", {"bm25s", "numpy", "Stemmer"}):
        import bm25s
        import bm25s.stopwords
        import numpy
        import Stemmer
    return bm25s, Stemmer.Stemmer("english"), numpy
