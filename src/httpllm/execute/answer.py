"""An HTTP answer -> what a model reads of it: every credential masked first, then cut.

One pipeline for every route an answer takes to a model or a person (the MCP server, the
agent loop and the adapters on it, the discover trio, ``httpllm call``):

1. the body was read as a stream and stopped at a byte limit (:mod:`.send`);
2. it is classified: JSON (parsed), text, binary, or empty;
3. every host-supplied secret is masked in every encoding (:func:`.security.redact`:
   raw, JSON-escaped, percent-encoded, base64 of Basic, base64 and hex of a long one
   ...) — in the whole body, *before*
   any cut, so a cut can never fall inside a credential and show its first characters
   (and a body the byte limit cut inside one has that start masked too);
4. the masked body is cut to the character budget (:mod:`httpllm.cut`: JSON stays JSON);
5. a note says what was left out (characters, items, bytes never read) and how to ask for
   less.

A binary body is passed on whole (an image, audio or resource block) only when it was
read whole and holds no credential; else it is described, never dumped. A redirect that
was not followed shows its ``Location`` (:func:`location`), masked as the body is.

:func:`sent_text` is the one wording of a request that failed on the way (sent or not).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from httpllm._media import essence, is_json
from httpllm.cut import Cut, cut_json, cut_text, dumps, note
from httpllm.errors import TransportError
from httpllm.execute.security import REDACTED, found_in, redact, redact_json
from httpllm.execute.send import AFTER_SENDING, Result

__all__ = ["TEXTUAL", "Fitted", "fit", "location", "media_type", "sent_text"]

TEXTUAL = ("text/", "application/xml", "application/javascript", "application/yaml",
           "application/x-yaml", "application/x-www-form-urlencoded", "application/x-ndjson",
           "application/problem+xml", "application/graphql")
"""Media types (prefixes) read as text; JSON types (``+json``) are read as JSON."""

Kind = Literal["json", "text", "binary", "empty"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Fitted:
    """One answer as a model may read it.

    Attributes:
        kind: ``"json"`` (a parsed JSON body), ``"text"``, ``"binary"`` or ``"empty"``.
        text: the body the model reads: compact JSON or text, credentials masked, within
            the budget; for binary, a sentence naming its type and size.
        value: the masked, cut JSON value (``kind == "json"`` and the cut kept it JSON);
            else ``None``.
        has_value: whether ``value`` is the answer's JSON value: a JSON ``null`` answer is
            one, which ``value`` alone cannot tell from none.
        data: a binary body to pass on whole (read whole, no credential in it); else ``b""``.
        media_type: the answer's media type, lower case, without parameters (``""``).
        note: what was left out and how to ask for less (``""`` when nothing was).
        cut: the character cut's figures (``None`` when nothing was cut).
        location: a redirect's ``Location``, credentials masked (:func:`location`);
            ``""`` for any other answer.
    """

    kind: Kind
    text: str
    value: Any = None
    has_value: bool = False
    data: bytes = b""
    media_type: str = ""
    note: str = ""
    cut: Cut | None = None
    location: str = ""


def media_type(result: Result) -> str:
    """The answer's media type, lower case, without parameters (``""`` when not given)."""
    given: str = result.headers.get("content-type", "")
    return essence(given)


def location(result: Result, secrets: tuple[str, ...] = ()) -> str:
    """The ``Location`` of a redirect httpllm did not follow (a 3xx answer: to an origin
    credentials may not go to, or from a client that does not follow redirects), every
    secret masked as in a body (:func:`~httpllm.execute.security.redact`: a key in its
    query, percent-encoded or not); ``""`` for any other answer or none given. It is what
    a redirect says: where the resource is (RFC 9110 sections 10.2.2 and 15.4); its body
    is often empty.

    >>> import httpx
    >>> answer = Result(status=302, headers=httpx.Headers(
    ...     {"Location": "https://other.example/cb?api_key=k3y-0123456789"}), body="")
    >>> location(answer, ("k3y-0123456789",))
    'https://other.example/cb?api_key=[redacted]'
    """
    if not 300 <= result.status < 400:
        return ""
    return redact(result.headers.get("location", ""), (*secrets, *result.secrets))


def _kind(result: Result, media: str) -> Kind:
    if not result.content and not (isinstance(result.body, str) and result.body):
        return "empty" if isinstance(result.body, str) or result.body is None else "json"
    if not isinstance(result.body, str):
        return "json"
    if media.startswith(TEXTUAL) or is_json(media):
        return "text"
    if not media:  # no type given: text if it reads as UTF-8
        try:
            result.content.decode("utf-8")
        except UnicodeDecodeError:
            return "binary"
        return "text"
    return "binary"


def fit(result: Result, *, secrets: tuple[str, ...] = (), budget: int | None,
        tool: str = "", narrowing: list[str] | tuple[str, ...] = ()) -> Fitted:
    """The answer of ``result`` as a model may read it: classified, every secret masked in
    every encoding, then cut to ``budget`` characters (``None``: never cut) with a note
    naming ``tool``'s ``narrowing`` arguments (see :func:`httpllm.cut.note`); a body cut at
    the byte limit says so too. What the client added to the request as it sent it
    (:attr:`Result.secrets`: an ``httpx.Auth``'s header) is masked with ``secrets``; a
    redirect's ``Location`` is :attr:`Fitted.location`, masked the same way."""
    fitted = _fit(result, (*secrets, *result.secrets), budget, tool, narrowing)
    moved = location(result, secrets)
    return replace(fitted, location=moved) if moved else fitted


def _fit(result: Result, secrets: tuple[str, ...], budget: int | None, tool: str,
         narrowing: list[str] | tuple[str, ...]) -> Fitted:
    media = media_type(result)
    kind = _kind(result, media)
    if kind == "binary":
        return _binary(result, media, secrets)
    if kind == "empty":
        return Fitted(kind="empty", text="", media_type=media, note=_bytes_note(result))
    if kind == "json":
        try:
            text = dumps(result.body)
        except (RecursionError, ValueError):  # too deep (or NaN-like) to write back
            kind, body = "text", result.content.decode("utf-8", "replace")
        else:
            return _json(result, text, media, secrets, budget, tool, narrowing)
    else:
        body = result.body
    masked = redact(body, secrets, cut=result.truncated)  # a byte cut may end in one
    cut = cut_text(masked, budget) if budget is not None else Cut(text=masked,
                                                                 total=len(masked))
    return Fitted(kind=kind, text=cut.text, media_type=media, cut=cut if cut.cut else None,
                  note=_notes(cut, budget, tool, narrowing, result))


def _json(result: Result, text: str, media: str, secrets: tuple[str, ...],
          budget: int | None, tool: str, narrowing: list[str] | tuple[str, ...]) -> Fitted:
    value = redact_json(result.body, secrets, text=text)
    if value is not result.body:
        text = dumps(value)
    cut = cut_json(value, budget) if budget is not None else Cut(text=text, value=value,
                                                                 total=len(text))
    shown, kept = cut.text, cut.value
    if found_in(shown, secrets):  # a secret only whole across strings ("a","b"): as text
        shown, kept = redact(shown, secrets), None
    return Fitted(kind="json", text=shown, value=kept, media_type=media,
                  has_value=kept is not None or shown == "null",  # no longer JSON text is
                  cut=cut if cut.cut else None,                  # never exactly "null"
                  note=_notes(cut, budget, tool, narrowing, result))


def _binary(result: Result, media: str, secrets: tuple[str, ...]) -> Fitted:
    size = f"{len(result.content):,} bytes"
    if result.truncated:
        return Fitted(kind="binary", media_type=media or "application/octet-stream",
                      text=f"A binary answer ({media or 'no media type'}, {_of(result)}), "
                           "not shown.", note=_bytes_note(result))
    if found_in(result.content.decode("utf-8", "replace"), secrets):
        return Fitted(kind="binary", media_type=media, text=(
            f"A binary answer ({media or 'no media type'}, {size}), withheld: it holds a "
            f"credential of this call ({REDACTED})."))
    return Fitted(kind="binary", media_type=media or "application/octet-stream",
                  data=result.content,
                  text=f"A binary answer ({media or 'no media type'}, {size}).")


def _notes(cut: Cut, budget: int | None, tool: str, narrowing: list[str] | tuple[str, ...],
           result: Result) -> str:
    parts = [note(cut, budget, tool, list(narrowing))] if budget is not None and cut.cut \
        else []
    if result.truncated:
        parts.append(_bytes_note(result))
    return " ".join(parts)


def _of(result: Result) -> str:
    size = f"{result.size:,}" if result.size is not None else "an unknown number of"
    return f"cut at {len(result.content):,} bytes of {size}"


def _bytes_note(result: Result) -> str:
    if not result.truncated:
        return ""
    return (f"[The answer was {_of(result)} bytes: the rest was never read. Ask for less "
            "(paging or filter arguments) to see all of it.]")


def sent_text(exc: TransportError, *, tool: str) -> str:
    """What a model reads of a request that failed on the way, saying whether it was sent:
    ``"createItem failed: POST http://...: sent, no answer within 30 s — it may have taken
    effect (ReadTimeout). Check whether it did before calling again."`` (a model must not
    simply retry a ``POST``), or ``"... could not be sent (ConnectError ...); nothing
    reached the API ..."``."""
    sent = isinstance(exc.__cause__, AFTER_SENDING) or ": sent" in exc.message
    hint = ("Check whether it did before calling again." if sent else
            "The API may be down or unreachable from here.")
    return f"{tool} failed: {exc.message}. {hint}"
