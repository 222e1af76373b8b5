"""Operation selection by tag, path glob, method and operationId."""

from __future__ import annotations

from typing import Any

import pytest

import httpllm
from httpllm.parse import OperationSite
from httpllm.pointer import join
from httpllm.selection import matches, select


def site(method: str, path: str, op_id: str | None = None, tags: list[str] | None = None,
         ) -> OperationSite:
    node: dict[str, Any] = {}
    if op_id is not None:
        node["operationId"] = op_id
    if tags is not None:
        node["tags"] = tags
    return OperationSite(method=method, path=path, pointer=join("#/paths", path, method),
                         node=node, path_item={method: node}, base="root:")


SITES = [
    site("get", "/pets", "listPets", ["pets"]),
    site("post", "/pets", "createPet", ["pets", "write"]),
    site("get", "/pets/{petId}", "showPetById", ["pets"]),
    site("delete", "/pets/{petId}", "deletePet", ["pets", "write"]),
    site("get", "/stores", None, ["stores"]),
]


def picked(include: Any = None, exclude: Any = None) -> list[str]:
    return [f"{s.method} {s.path}" for s in select(SITES, include, exclude)]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("tag:write", ["post /pets", "delete /pets/{petId}"]),
        ("tag:nope", []),
        ("GET /pets/*", ["get /pets/{petId}"]),
        ("get /pets", ["get /pets"]),
        ("/pets/*", ["get /pets/{petId}", "delete /pets/{petId}"]),
        ("path:/stores", ["get /stores"]),
        ("method:delete", ["delete /pets/{petId}"]),
        ("method: GET", ["get /pets", "get /pets/{petId}", "get /stores"]),
        ("listPets", ["get /pets"]),
        ("operationId:*Pet", ["post /pets", "delete /pets/{petId}"]),
        ("show*", ["get /pets/{petId}"]),
    ],
)
def test_one_selector(selector: str, expected: list[str]) -> None:
    """Each selector form picks the operations it names, in document order."""
    assert picked([selector]) == expected


def test_method_selector_is_case_insensitive_on_the_method_only() -> None:
    """`method:GET` matches `get`; paths and operationIds stay case-sensitive."""
    assert picked("method:GET") == ["get /pets", "get /pets/{petId}", "get /stores"]
    assert picked("LISTPETS") == []
    assert picked("/PETS") == []


def test_none_selects_everything_and_empty_selects_nothing() -> None:
    """`include=None` keeps every operation; an empty include list keeps none."""
    assert len(picked()) == len(SITES)
    assert picked([]) == []


def test_exclude_wins_over_include() -> None:
    """An operation picked by `include` and by `exclude` is left out."""
    assert picked(["tag:pets"], ["tag:write"]) == ["get /pets", "get /pets/{petId}"]
    assert picked(exclude="tag:pets") == ["get /stores"]


def test_a_single_string_is_one_selector() -> None:
    """A bare string is one selector, not a sequence of one-letter selectors."""
    assert picked("listPets") == ["get /pets"]


def test_predicate_selector() -> None:
    """A callable gets `(method, path, operation)`."""
    seen: list[tuple[str, str]] = []

    def writes(method: str, path: str, op: dict[str, Any]) -> bool:
        seen.append((method, path))
        return method in ("post", "delete")

    assert picked(writes) == ["post /pets", "delete /pets/{petId}"]
    assert seen[0] == ("get", "/pets")
    assert matches(lambda m, p, o: o.get("operationId") == "listPets", SITES[0])


def test_operation_without_id_is_not_matched_by_id_globs() -> None:
    """`*` as an operationId glob needs an operationId."""
    assert "get /stores" not in picked("operationId:*")


def test_compile_include_and_exclude() -> None:
    """compile() compiles only the selected operations."""
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/pets": {
                "get": {"operationId": "listPets", "tags": ["pets"],
                        "responses": {"204": {"description": "x"}}},
                "post": {"operationId": "createPet", "tags": ["pets", "write"],
                         "responses": {"204": {"description": "x"}}},
            },
        },
    }
    names = [f.name for f in httpllm.compile(doc, include="tag:pets", exclude="tag:write")
             .functions]
    assert names == ["listPets"]


def test_the_function_name_selects_too() -> None:
    """`include=` takes the name the function gets (what `inspect` and `search` show) as
    well as the raw operationId; a name made from the method and path works too."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/repos/{r}/contents": {"get": {
               "operationId": "repos/get-content",
               "parameters": [{"name": "r", "in": "path", "required": True,
                               "schema": {"type": "string"}}],
               "responses": {"200": {"description": "ok"}}}},
               "/pets/{id}": {"get": {
                   "parameters": [{"name": "id", "in": "path", "required": True,
                                   "schema": {"type": "string"}}],
                   "responses": {"200": {"description": "ok"}}}}}}
    for selector, expected in (("repos_get-content", ["repos_get-content"]),
                               ("repos/get-content", ["repos_get-content"]),
                               ("repos_*", ["repos_get-content"]),
                               ("get__pets_by_id", ["get__pets_by_id"])):
        assert [f.name for f in httpllm.compile(doc, include=selector).functions] == expected


def test_an_operation_id_with_glob_characters_selects_itself() -> None:
    """`[weird]` is a glob character class, but the operationId `[weird]` written out
    selects its operation."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/w": {"get": {"operationId": "[weird]",
                                    "responses": {"200": {"description": "ok"}}}}}}
    assert len(httpllm.compile(doc, include="[weird]").functions) == 1


def test_select_reads_a_one_shot_iterable_of_selectors_for_every_site() -> None:
    """Selectors given as an iterator are read once into a tuple: the second operation is
    matched too (it matched nothing once the first had used the iterator up)."""
    assert picked(iter(["GET /pets", "GET /stores"]), iter(["nosuch"])) == [
        "get /pets", "get /stores"]
