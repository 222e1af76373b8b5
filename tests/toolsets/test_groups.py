"""Groups: named tool lists under limits, deterministic, nothing dropped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import httpllm
from httpllm.cli import main
from httpllm.errors import HttpllmError
from httpllm.toolsets.groups import groups, key_of, tools_of

from ._specs import PETSTORE, deep, document, many, operation


def _mixed() -> dict[str, object]:
    paths = {f"/a{i}": {"get": operation(f"a{i}", tags=("alpha",))} for i in range(7)}
    paths |= {f"/b{i}": {"get": operation(f"b{i}", tags=("beta", "alpha"))} for i in range(3)}
    paths["/v1/plain/{id}"] = {"get": {**operation("plain"), "parameters": [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]}}
    return document(paths)


def written(tmp_path: Path, spec: dict[str, Any]) -> list[str]:
    """The files `httpllm compile SPEC --group-by tag -o DIR` writes, sorted."""
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec))
    assert main(["compile", str(spec_file), "--group-by", "tag", "-o",
                 str(tmp_path / "groups")]) == 0
    return sorted(path.name for path in (tmp_path / "groups").iterdir())


def test_groups_by_first_tag_in_document_order() -> None:
    """Functions are keyed by their first tag; keys keep the document's order."""
    app = httpllm.compile(_mixed(), "chatgpt")
    found = groups(app)
    assert [(g.name, [f.name for f in g.functions]) for g in found] == [
        ("alpha", [f"a{i}" for i in range(7)]),
        ("beta", ["b0", "b1", "b2"]),
        ("plain", ["plain"]),
    ]


def test_max_tools_splits_a_group_and_keeps_every_function() -> None:
    """A key with more functions than max_tools becomes alpha, alpha_2 ..., none dropped."""
    app = httpllm.compile(_mixed(), "chatgpt")
    found = groups(app, max_tools=3)
    assert [g.name for g in found] == ["alpha", "alpha_2", "alpha_3", "beta", "plain"]
    assert all(len(g.functions) <= 3 for g in found)
    names = [f.name for g in found for f in g.functions]
    assert sorted(names) == sorted(f.name for f in app.functions)
    assert groups(app, max_tools=3) == found


def test_max_tokens_puts_an_oversized_function_alone() -> None:
    """A function whose own tokens pass max_tokens is its own group, marked over."""
    spec = document({"/small": {"get": operation("small", tags=("t",))},
                     "/big": {"post": operation("big", tags=("t",), body=deep(8),
                                                description="long " * 200)},
                     "/small2": {"get": operation("small2", tags=("t",))}})
    app = httpllm.compile(spec, "chatgpt")
    found = groups(app, max_tokens=200)
    assert [(g.name, [f.name for f in g.functions], g.over) for g in found] == [
        ("t", ["small"], False), ("t_2", ["big"], True), ("t_3", ["small2"], False)]
    assert found[1].tokens is not None and found[1].tokens > 200
    assert all(g.tokens is not None and g.tokens <= 200 for g in found if not g.over)


def test_by_path_and_by_callable() -> None:
    """by="path" keys by the first path segment that is not a version; a callable by its result."""
    app = httpllm.compile(_mixed(), "chatgpt")
    assert key_of(app.function("plain"), "path") == "plain"
    by_method = groups(app, by=lambda f: f.method)
    assert [g.name for g in by_method] == ["get"]


def test_names_are_safe_and_unique() -> None:
    """Keys with other characters become [A-Za-z0-9_-] names, made unique."""
    spec = document({"/x": {"get": operation("x", tags=("a b",))},
                     "/y": {"get": operation("y", tags=("a/b",))}})
    assert [g.name for g in groups(httpllm.compile(spec, "chatgpt"))] == ["a_b", "a_b-2"]


DEVICES = ("CON", "nul", "Aux", "prn", "com1", "LPT9", "con_")


def test_names_are_no_windows_device_and_differ_in_any_case(tmp_path: Path) -> None:
    """A tag named like a Windows device (``CON``, ``nul``, ``COM1`` ...: ``CON.json`` is
    the console there, in any case and with any extension) gets a ``_``, and names that
    differ only by case get a suffix: every group is a file of its own on every file
    system (``compile --group-by`` wrote ``CON.json`` and ``nul.json``)."""
    tags = (*DEVICES, "Pets", "pets", "PETS", "console", "com10")
    spec = document({f"/p{i}": {"get": operation(f"op{i}", tags=(tag,))}
                     for i, tag in enumerate(tags)})
    names = [g.name for g in groups(httpllm.compile(spec, "chatgpt"))]
    assert names == ["CON_", "nul_", "Aux_", "prn_", "com1_", "LPT9_", "con_-2", "Pets",
                     "pets-2", "PETS-3", "console", "com10"]
    assert len({name.lower() for name in names}) == len(names)
    assert written(tmp_path, spec) == sorted([*(f"{name}.json" for name in names),
                                              "_index.json"])


def test_bad_options_are_httpllm_errors() -> None:
    """An unknown by or a limit below 1 is an HttpllmError."""
    app = httpllm.compile(PETSTORE, "chatgpt")
    with pytest.raises(HttpllmError, match="group by"):
        groups(app, by="colour")  # type: ignore[arg-type]
    with pytest.raises(HttpllmError, match="max_tools"):
        groups(app, max_tools=0)


def test_group_tools_use_the_provider_envelope() -> None:
    """tools_of gives a group's tools as app.tools() shapes them (Gemini: one Tool)."""
    app = httpllm.compile(many(12), "gemini")
    found = app.groups(max_tools=5)
    assert [len(g.functions) for g in found] == [5, 5, 2]
    tools = tools_of(app, found[2].functions)
    assert [d["name"] for d in tools[0]["functionDeclarations"]] == ["op10", "op11"]


def test_files_keep_the_letters_of_every_script(tmp_path: Path) -> None:
    """A tag in another script names its file with its own letters, NFC-normalized, apart
    in any case and under 255 bytes: `宠物`, `Zahlungsvorgänge`, `Платежи` were
    `untagged.json`, `Zahlungsvorg_nge.json`, `untagged-2.json` ..., so the folder told
    a reader nothing. The group's name (an OpenAI namespace name) stays ASCII."""
    tags = ("宠物", "Zahlungsvorgänge", "Платежи", "café", "cafe\u0301", "CAFÉ",
            "a/b\\c:d*e?f\"g<h>i|j", ".hidden. ", "\u202eevil", "COM¹", "𠀀" * 80, "untagged")
    spec = document({f"/p{i}": {"get": operation(f"op{i}", tags=(tag,))}
                     for i, tag in enumerate(tags)})
    found = groups(httpllm.compile(spec, "chatgpt"))
    files = [g.file for g in found]
    assert files == ["宠物", "Zahlungsvorgänge", "Платежи", "café", "café-2", "CAFÉ-3",
                     "a_b_c_d_e_f_g_h_i_j", "hidden", "evil", "COM¹_", "𠀀" * 50,
                     "untagged"]
    assert all(len(f"{f}.json".encode()) <= 255 for f in files)
    assert all(g.name.isascii() for g in found)
    assert written(tmp_path, spec) == sorted([*(f"{f}.json" for f in files), "_index.json"])
    index = json.loads((tmp_path / "groups" / "_index.json").read_text(encoding="utf-8"))
    assert [(g["key"], g["file"]) for g in index["groups"]] == [
        (tag, f"{f}.json") for tag, f in zip(tags, files, strict=True)]


def test_a_split_group_keeps_its_letters_and_suffix() -> None:
    """A key split by max_tools gives `宠物`, `宠物_2` ...; a long key is cut so that its
    suffix still fits in the bytes."""
    spec = document({f"/p{i}": {"get": operation(f"op{i}", tags=(tag,))}
                     for i, tag in enumerate(["宠物"] * 3 + ["𠀀" * 80] * 3)})
    found = groups(httpllm.compile(spec, "chatgpt"), max_tools=2)
    assert [g.file for g in found] == ["宠物", "宠物_2", "𠀀" * 50, "𠀀" * 49 + "_2"]


def test_names_of_keys_outside_ascii_are_transliterated() -> None:
    """A group's name (an OpenAI namespace name, ``[A-Za-z0-9_-]``) spells its key as
    function names are spelled (``compose.names.transliterate``): a tag ``宠物`` was
    ``untagged``, then ``untagged-2`` beside an untagged group, ``café`` was ``caf``."""
    tags = ("宠物", "Zahlungsvorgänge", "Платежи", "café", "cafe\u0301", "CAFÉ", "untagged")
    spec = document({f"/p{i}": {"get": operation(f"op{i}", tags=(tag,))}
                     for i, tag in enumerate(tags)})
    found = groups(httpllm.compile(spec, "chatgpt"))
    assert [g.name for g in found] == ["ChongWu", "Zahlungsvorgange", "Platezhi", "cafe",
                                       "cafe-2", "CAFE-3", "untagged"]
    assert [g.file for g in found][:3] == ["宠物", "Zahlungsvorgänge", "Платежи"]
