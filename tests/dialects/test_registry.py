"""The dialect registry: built-ins, aliases, `register_provider`, entry points."""

from __future__ import annotations

import re
from dataclasses import replace
from importlib import import_module
from typing import Any

import pytest
from toolkit import CONSTRAINED, doc

import httpllm
from httpllm import dialects
from httpllm.dialects import Dialect, get_dialect, providers, register_provider
from httpllm.errors import UnknownDialect

MINE = {"claude": ("anthropic",), "bedrock": ("bedrock-converse",),
        "llama": ("vllm", "openai-compatible"), "qwen": (), "deepseek": (),
        "mistral": ("mistral-ai",), "mcp": ()}


@pytest.fixture
def registry() -> Any:
    """Restore the registry after a test that changes it."""
    saved = dict(dialects._REGISTRY), dict(dialects._ALIASES), dialects._LOADED_ENTRY_POINTS
    yield
    dialects._REGISTRY.clear()
    dialects._REGISTRY.update(saved[0])
    dialects._ALIASES.clear()
    dialects._ALIASES.update(saved[1])
    dialects._LOADED_ENTRY_POINTS = saved[2]


def test_every_builtin_module_registers_its_dialects() -> None:
    """Each built-in module present exposes `DIALECTS`, and each of them is registered."""
    for module_name in dialects._BUILTIN_MODULES:
        try:
            module = import_module(f"httpllm.dialects.{module_name}")
        except ModuleNotFoundError:
            continue
        for dialect in module.DIALECTS:
            assert isinstance(dialect, Dialect)
            assert get_dialect(dialect.name) is dialect


@pytest.mark.parametrize(("name", "aliases"), MINE.items())
def test_tool_dialects_and_aliases(name: str, aliases: tuple[str, ...]) -> None:
    """Each dialect is registered under its name and aliases."""
    assert name in providers()
    for alias in aliases:
        assert get_dialect(alias) is get_dialect(name)


@pytest.mark.parametrize("name", MINE)
def test_records_state_their_facts(name: str) -> None:
    """Names are lower-hyphen, sources are provider pages, names at most 64 characters."""
    dialect = get_dialect(name)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", dialect.name)
    assert dialect.source.startswith("https://")
    assert dialect.name_max == 64


def test_exclusive_unions_are_spelled_one_of_by_the_json_schema_targets() -> None:
    """Only `3.1` and `mcp` spell a document's `oneOf` as `oneOf`; the others, whose rules
    read `anyOf`, spell it `anyOf` with a loss."""
    assert {n for n in providers() if get_dialect(n).one_of} == {"3.1", "mcp"}


def test_strict_modes() -> None:
    """Which dialects have a strict mode, and which send examples natively."""
    strict = {n for n in MINE if get_dialect(n).has_strict}
    assert strict == {"claude", "bedrock", "llama", "qwen", "deepseek", "mistral"}
    assert {n for n in MINE if get_dialect(n).native_examples} == {"claude"}


_OBJECTS = doc({"type": "object", "required": ["a"], "properties": {
    "a": {"type": "string"}, "b": {"type": "string"},
    "m": {"type": "object", "properties": {"x": {"type": "string"}},
          "additionalProperties": {"type": "integer"}}}})


def _strict_objects_rendered(name: str) -> str:
    """What the dialect's strict tool does to objects, read off the tool itself: an optional
    property made required ("required"), an object's `additionalProperties` schema replaced
    by `false` ("sealed"), or kept as written ("unsaid")."""
    body = httpllm.compile(_OBJECTS, provider=name, strict=True).functions[0].parameters[
        "properties"]["body"]
    if "b" in body["required"]:
        return "required"
    kept = body["properties"]["m"]["additionalProperties"]
    return "sealed" if kept is False else "unsaid" if kept == {"type": "integer"} else repr(kept)


@pytest.mark.parametrize("name", [n for n in providers() if get_dialect(n).has_strict])
def test_the_stated_strict_objects_are_what_the_strict_tool_does(name: str) -> None:
    """`Dialect.strict_objects`, which the way back reads (decode: a null means "not given";
    validate: which objects are closed), is what the dialect's strict rules render."""
    assert _strict_objects_rendered(name) == get_dialect(name).strict_objects
    assert dialects.strict_objects(name) == get_dialect(name).strict_objects


def test_a_name_of_no_dialect_is_read_as_openai_strict() -> None:
    """A `Function` built by hand names no registered dialect: read as OpenAI's."""
    assert dialects.strict_objects("built-by-hand") == "required"


def test_unknown_provider_lists_the_known_ones() -> None:
    """An unknown name raises UnknownDialect naming every registered provider."""
    with pytest.raises(UnknownDialect) as caught:
        get_dialect("no-such-provider")
    for name in MINE:
        assert name in str(caught.value)


@pytest.mark.parametrize("name", [None, 5, ["claude"]])
def test_a_provider_that_is_no_string_is_unknown_dialect(name: object) -> None:
    """``compile(spec, provider=None)`` (or a number, a list) is our UnknownDialect listing
    the providers, never an AttributeError or a TypeError from inside the registry."""
    with pytest.raises(UnknownDialect, match="the provider is a name, got") as caught:
        get_dialect(name)  # type: ignore[arg-type]
    assert "claude" in str(caught.value)


@pytest.mark.usefixtures("registry")
def test_register_a_variant_by_replace() -> None:
    """A user variant (`replace` of a record) compiles under its own name."""
    base = get_dialect("llama")
    register_provider("my-gateway", replace(base, keywords=base.keywords - {"pattern"}),
                      aliases=("gw",))
    app = httpllm.compile(doc(CONSTRAINED), "gw")
    assert app.provider == "my-gateway"
    name = app.functions[0].parameters["properties"]["body"]["properties"]["name"]
    assert "pattern" not in name and "@pattern" in name["description"]


@pytest.mark.usefixtures("registry")
def test_entry_points_are_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dialect published in the `httpllm.providers` entry-point group is found by name;
    a broken plugin is skipped."""
    plugin = replace(get_dialect("mcp"), name="plugin")

    class Entry:
        def __init__(self, name: str, value: Any) -> None:
            self.name, self.value = name, value

        def load(self) -> Any:
            if isinstance(self.value, Exception):
                raise self.value
            return self.value

    def entry_points(group: str) -> list[Entry]:
        assert group == "httpllm.providers"
        return [Entry("my-plugin", plugin), Entry("broken", ImportError("nope"))]

    monkeypatch.setattr(dialects, "_entry_points", entry_points)
    dialects._LOADED_ENTRY_POINTS = False
    assert get_dialect("my-plugin").name == "my-plugin"
    assert "broken" not in providers()
