"""The compile options' one record: each field of ``Options`` carries its documentation,
its flag (or why it has none) and its check; ``compile()``'s keywords are exactly its
fields, documented from them, and each reaches ``Application.options``."""

from __future__ import annotations

import inspect
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

import httpllm
from httpllm import Limits
from httpllm.dialects import Options, get_dialect
from httpllm.dialects._options import check_options, document_keywords, option_of

DOC: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "paths": {"/a": {"get": {"operationId": "getA", "tags": ["pets"],
                             "responses": {"200": {"description": "ok"}}}}}}

KEYWORDS = {name: p for name, p in inspect.signature(httpllm.compile).parameters.items()
            if p.kind is p.KEYWORD_ONLY}


@pytest.mark.parametrize("spec", fields(Options), ids=lambda spec: spec.name)
def test_every_option_has_its_doc_and_a_flag_or_the_reason_it_has_none(spec: Any) -> None:
    """A field declared without its metadata (``import httpllm`` fails already), without
    a doc, or with neither a flag (one ``--name`` and its help) nor the reason the command
    line has none, fails here."""
    option = option_of(spec)  # TypeError without field(metadata=_meta(...))
    assert option.doc and option.doc == " ".join(option.doc.split())
    if option.flag is None:
        assert option.cli, f"Options.{spec.name} has no flag and no reason for it (cli=)"
    else:
        assert option.flag.name == "--" + spec.name.replace("_", "-") and option.flag.help
        assert not option.cli
        assert (option.flag.kind == "choice") == bool(option.flag.choices)


def test_compile_keywords_are_the_record_fields() -> None:
    """compile()'s keyword-only parameters are exactly the fields of Options, with the same
    defaults and types: a keyword added to one and not the other fails here."""
    record = {spec.name: spec for spec in fields(Options)}
    assert set(KEYWORDS) == set(record)
    for name, parameter in KEYWORDS.items():
        assert parameter.default == record[name].default, name
        assert parameter.annotation == record[name].type, name


def test_compile_documents_each_keyword_from_the_record() -> None:
    """compile()'s Args section holds each keyword's entry from its field's doc, before
    Returns, in the signature's order."""
    doc = httpllm.compile.__doc__ or ""
    args, _, returns = doc.partition("\n    Returns:")
    flat = " ".join(args.split())
    places = [flat.index(f"{name}: {option_of(spec).doc}")
              for name in KEYWORDS for spec in fields(Options) if spec.name == name]
    assert len(places) == len(KEYWORDS) and places == sorted(places)
    assert flat.index("provider: ") < places[0]
    assert "Raises:" in returns


def test_document_keywords_refuses_a_keyword_the_record_lacks() -> None:
    """A function documented from the record with a keyword that is no field of Options
    fails at once, naming the keyword."""
    def compile_like(*, strict: bool = False, nosuch: int = 0) -> None:
        """Do it.

        Returns:
            Nothing.
        """

    with pytest.raises(TypeError, match="keyword 'nosuch' is no field"):
        document_keywords(compile_like)


def _given(tmp_path: Path) -> dict[str, Any]:
    """A value other than the default for each field (valid for chatgpt)."""
    def separate(argument: Any) -> bool:
        return False

    return {
        "strict": True, "reference": True, "strip_constraints": True, "unroll": 2,
        "envelope": "responses", "split_unions": True, "examples": "off", "max_depth": 5,
        "collapse_deep": True, "include": ["tag:pets"], "exclude": ["nosuch"],
        "separate": separate, "allow_network": True, "allow_outside_root": True,
        "document_url": "https://api.example.com/", "root": str(tmp_path), "lenient": False,
        "limits": replace(Limits(), max_bytes=1_000_000), "form_style": "repeat"}


def test_each_keyword_reaches_the_application_options(tmp_path: Path) -> None:
    """Every keyword given to compile() is the value of its field in app.options."""
    given = _given(tmp_path)
    assert set(given) == {spec.name for spec in fields(Options)}
    assert all(given[spec.name] != spec.default for spec in fields(Options))
    app = httpllm.compile(DOC, "chatgpt", **given)
    assert app.options == Options(**given)
    assert [f.name for f in app.functions] == ["getA"]


@pytest.mark.parametrize(("provider", "change", "option", "message"), [
    ("chatgpt", {"examples": "bogus"}, "examples",
     "examples must be 'native', 'description' or 'off', not 'bogus'"),
    ("chatgpt", {"unroll": True}, "unroll", "unroll must be a whole number >= 0, not True"),
    ("chatgpt", {"max_depth": -1}, "max_depth",
     "max_depth must be a whole number >= 0, not -1"),
    ("mistral", {"envelope": "chat"}, "envelope",
     "provider 'mistral' has no envelope variant, not 'chat'"),
    ("gemini", {"envelope": "chat"}, "envelope",
     "provider 'gemini' has the envelopes 'parameters', 'json-schema', not 'chat'"),
    ("gemini", {"strict": True}, "strict", "provider 'gemini' has no strict mode"),
    ("chatgpt", {"limits": Limits(walk_depth=5)}, "limits",
     "limits: walk_depth cannot be set for one compile; these can: max_bytes, max_depth, "
     "max_expanded_bytes, max_nodes, parameters_depth, parameters_nodes"),
])
def test_check_options_refuses_a_value_naming_its_keyword(
        provider: str, change: dict[str, Any], option: str, message: str) -> None:
    """check_options raises OptionError with the field's message and name; the defaults
    pass for every provider."""
    with pytest.raises(httpllm.OptionError) as caught:
        check_options(Options(**change), get_dialect(provider))
    assert (caught.value.option, caught.value.message) == (option, message)
    for name in httpllm.dialects.providers():
        check_options(Options(), get_dialect(name))


def test_options_docstring_lists_every_field() -> None:
    """Options' Attributes section has one entry per field, from its doc."""
    doc = " ".join((Options.__doc__ or "").split())
    for spec in fields(Options):
        assert f"{spec.name}: {option_of(spec).doc}" in doc


_WRONG: dict[str, list[Any]] = {
    "strict": [None, "yes", 1, {}], "reference": [None, "yes", 1, {}],
    "strip_constraints": [None, "no", 0, []], "unroll": ["3", True, -1, 1.5, {}],
    "envelope": [3, True, {}, ""], "split_unions": [None, "yes", 1.0],
    "examples": [None, True, "", {}], "max_depth": ["3", True, -1, 2.5, []],
    "collapse_deep": [None, "yes", 1], "include": [True, 3, 1.5, [3], ["tag:a", None], [" "],
                                                   {"tag:a": 1}, b"tag:a"],
    "exclude": [False, 0, [""], {"x"} | {3}], "separate": ["header:X", True, 3, ["x"]],
    "allow_network": [None, "false", 1], "allow_outside_root": [None, "true", 1],
    "document_url": [3, True, {}, "", "not a url", "/relative/o.json", "ftp://x.example/o",
                     "http://[::1", "https://x.example:99999/", "https://u:p@x.example/"],
    "root": [3, True, {}, "", "/no/such/folder", __file__], "lenient": [None, "no", 0],
    "limits": [None, {}, "x", Limits(max_bytes="x"),  # type: ignore[arg-type]
               Limits(max_depth=-1), Limits(max_nodes=10**30), Limits(parameters_depth=True)],
    "form_style": [None, "", "Brackets", 1, True],
}
"""Values of the wrong type or out of range for each option: every option has some."""


def test_every_option_has_wrong_values_to_try() -> None:
    """A new option without wrong values in the table fails here, so its check is tried."""
    assert set(_WRONG) == {spec.name for spec in fields(Options)}


class _Foreign:
    """A value of no type any option takes; its repr is stable, so the test ids are the same
    in every process (pytest-xdist's workers must collect the same ids)."""

    def __repr__(self) -> str:
        return "<foreign>"


def _stable_id(value: Any) -> str:
    """A test id the same in every process: a set's repr follows the hash seed."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(map(repr, value))) + "}"
    return repr(value)


@pytest.mark.parametrize(("option", "value"), [
    (name, value) for name, values in _WRONG.items() for value in [*values, _Foreign()]],
    ids=_stable_id)
def test_compile_refuses_a_wrong_option_value_naming_the_option(option: str,
                                                                value: Any) -> None:
    """compile() refuses an option value of the wrong type or out of range with an
    OptionError naming the option and what it expected, never a TypeError or
    AttributeError from deep inside nor a compile that silently ignores it."""
    with pytest.raises(httpllm.OptionError) as caught:
        httpllm.compile(DOC, "chatgpt", **{option: value})
    assert caught.value.option == option
    message = caught.value.message
    assert option.split("_")[0] in message and "\n" not in message, message


def test_selectors_given_as_a_generator_select_every_operation() -> None:
    """include=/exclude= given as a generator are kept as a tuple: every operation is
    matched against every selector (a generator was used up by the first operation), and
    Application.options can select again."""
    doc = {**DOC, "paths": {f"/{n}": {"get": {"operationId": n, "responses": {
        "200": {"description": "ok"}}}} for n in ("a", "b", "c")}}
    app = httpllm.compile(doc, "chatgpt", include=(s for s in ["a", "c"]),
                          exclude=iter(["b"]))
    assert [f.name for f in app.functions] == ["a", "c"]
    assert app.options.include == ("a", "c") and app.options.exclude == ("b",)
