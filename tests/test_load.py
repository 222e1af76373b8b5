"""Source -> raw document: safe JSON/YAML, limits, and the file/network gate."""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
import shared

import httpllm
from httpllm._json import Unheld, scalar_text
from httpllm.errors import AccessDenied, LimitExceeded, LoadError
from httpllm.load import (
    Limits,
    Loader,
    load_text,
    source_of,
    string_keys,
    without_lone_surrogates,
)

FIXTURES = Path(__file__).parent / "fixtures" / "refs"
ROOT = FIXTURES / "api" / "openapi.yaml"
DEEP = 10_000


def billion_laughs(levels: int = 9) -> str:
    """The YAML alias bomb: nine levels of nine aliases each, about 10**9 strings."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghijklmnop"[: levels - 1]:
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
        previous = name
    return "\n".join(lines) + "\n"


def test_json_and_yaml_give_the_same_value() -> None:
    """JSON text and YAML text decode to plain JSON values."""
    assert load_text('{"openapi": "3.1.0", "paths": {}}') == {"openapi": "3.1.0", "paths": {}}
    assert load_text("openapi: 3.1.0\npaths: {}\n") == {"openapi": "3.1.0", "paths": {}}


def test_yaml_keys_become_strings_and_dates_stay_text() -> None:
    """Status codes and booleans as YAML keys become strings; dates are not converted."""
    out = load_text("200: ok\ntrue: yes\nnull: x\nwhen: 2024-01-02\n")
    assert out == {"200": "ok", "true": True, "null": "x", "when": "2024-01-02"}


def test_bytes_with_bom_and_latin1() -> None:
    """Bytes are UTF-8 (a BOM is skipped), falling back to Latin-1."""
    assert load_text(b"\xef\xbb\xbfa: 1\n") == {"a": 1}
    assert load_text("a: caf\xe9\n".encode("latin-1")) == {"a": "caf\xe9"}


def test_invalid_text_names_line_and_column() -> None:
    """Text that is neither JSON nor YAML is a LoadError with the place of the problem."""
    with pytest.raises(LoadError, match=r"<text>: not valid JSON or YAML at line 2, column") as err:
        load_text("a: [1, 2\nb: }\n")
    assert not isinstance(err.value, LimitExceeded)


def test_size_limit() -> None:
    """Text over `max_bytes` is refused before it is parsed."""
    with pytest.raises(LimitExceeded, match="larger than 10 bytes"):
        load_text("a: 12345678901", limits=Limits(max_bytes=10))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("[" * DEEP + "]" * DEEP, id="json-arrays"),
        pytest.param('{"a":' * DEEP + "1" + "}" * DEEP, id="json-objects"),
        pytest.param("- " * DEEP + "1", id="yaml-block-sequences"),
        pytest.param("a: " + "{a: " * DEEP + "1" + "}" * DEEP, id="yaml-flow-mappings"),
        pytest.param("a: " + "[" * DEEP + "1" + "]" * DEEP, id="yaml-flow-sequences"),
    ],
)
def test_depth_10000_is_limit_exceeded(text: str) -> None:
    """JSON or YAML text nested 10,000 levels raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded, match="nesting"):
        load_text(text)


def test_depth_limit_is_ours_below_the_parsers() -> None:
    """Nesting past `max_depth` but within what the parsers take is refused too."""
    text = '{"a":' * 40 + "1" + "}" * 40
    assert load_text(text)
    with pytest.raises(LimitExceeded, match="deeper than 30 levels") as raised:
        load_text(text, limits=Limits(max_depth=30))
    assert raised.value.pointer == "#/a/a/a/a/a/a/a/a/…"  # where, its first levels
    with pytest.raises(LimitExceeded, match="deeper than 30 levels"):
        load_text("a:\n" + "".join("  " * i + "a:\n" for i in range(1, 40)) + "  " * 40 + "1",
                  limits=Limits(max_depth=30))


def test_billion_laughs_is_refused() -> None:
    """A YAML alias bomb is refused with LimitExceeded before anything walks it."""
    with pytest.raises(LimitExceeded, match="YAML alias expansion"):
        load_text(billion_laughs())


def test_small_alias_use_is_fine() -> None:
    """Ordinary anchors and aliases still load, sharing nothing the caller can see."""
    out = load_text("base: &b {type: string}\nother: *b\n")
    assert out == {"base": {"type": "string"}, "other": {"type": "string"}}


def test_recursive_alias_is_refused() -> None:
    """A YAML alias that contains itself is refused, not looped over."""
    with pytest.raises(LimitExceeded):
        load_text("a: &a [*a]\n")


def test_node_limit_counts_expanded_values() -> None:
    """`max_nodes` counts values after alias expansion."""
    with pytest.raises(LimitExceeded):
        load_text(billion_laughs(3), limits=Limits(max_nodes=500))
    assert load_text(billion_laughs(3), limits=Limits(max_nodes=5_000))


def test_source_of_each_kind(tmp_path: Path) -> None:
    """A dict, bytes, text and a path are told apart; a missing file is a LoadError."""
    assert source_of({"openapi": "3.1.0"}) == ({"openapi": "3.1.0"}, None, "<dict>")
    assert source_of(b"openapi: 3.1.0\n") == (b"openapi: 3.1.0\n", None, "<bytes>")
    assert source_of("openapi: 3.1.0\n") == ("openapi: 3.1.0\n", None, "<text>")
    assert source_of('{"openapi": "3.1.0"}')[2] == "<text>"
    spec = tmp_path / "spec.yaml"
    spec.write_text("openapi: 3.1.0\n")
    raw, path, label = source_of(spec)
    assert (raw, path, label) == (b"openapi: 3.1.0\n", spec.resolve(), str(spec))
    assert source_of(str(spec))[1] == spec.resolve()
    with pytest.raises(LoadError, match="no such file"):
        source_of(tmp_path / "missing.yaml")


@pytest.mark.parametrize("name", ["[v2]/openapi.yaml", "{service}.yaml", "[v2]"])
def test_a_path_that_begins_like_json_is_a_path(tmp_path: Path, name: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A path beginning with ``[`` or ``{`` (a folder ``[v2]``, a file ``{service}.yaml``)
    was read as document text (``<text>: not valid JSON or YAML``): a ``str`` that names
    something existing is a path, relative to the working folder or absolute."""
    spec = tmp_path / "[v2]" / "openapi.yaml"
    spec.parent.mkdir()
    spec.write_text("openapi: 3.1.0\n")
    (tmp_path / "{service}.yaml").write_text("openapi: 3.1.0\n")
    monkeypatch.chdir(tmp_path)
    for given in (name, str(tmp_path / name)):
        if name == "[v2]":
            with pytest.raises(LoadError, match="is a folder"):
                source_of(given)
            continue
        raw, path, label = source_of(given)
        assert (raw, path, label) == (b"openapi: 3.1.0\n", (tmp_path / name).resolve(), given)
    assert source_of("[v3]")[2] == "<text>"  # nothing of that name: text, as before


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_string_is_an_empty_document(text: str) -> None:
    """``compile("")`` said the current folder "." is a folder; it is an empty document."""
    assert source_of(text) == (text, None, "<text>")
    with pytest.raises(httpllm.SpecError, match="got an empty document"):
        httpllm.compile(text)


def test_a_folder_is_named_as_a_folder(tmp_path: Path) -> None:
    """A folder given as the document is a LoadError saying it is a folder, not that it
    does not exist."""
    with pytest.raises(LoadError, match="is a folder, not a file"):
        source_of(tmp_path)


# -- the gate ----------------------------------------------------------------------------


def test_loader_reads_files_in_the_folder_once() -> None:
    """A file beside the document is read, decoded and cached by URI."""
    loader = Loader(ROOT.resolve())
    uri = (FIXTURES / "api" / "schemas" / "pet.yaml").resolve().as_uri()
    first = loader(uri + "#/Pet")
    assert first["Tag"] == {"type": "string", "maxLength": 8}
    assert loader(uri) is first


def test_outside_folder_needs_opt_in() -> None:
    """`../outside.yaml` is AccessDenied unless `allow_outside_root=True`."""
    uri = (FIXTURES / "outside.yaml").resolve().as_uri()
    with pytest.raises(AccessDenied, match="outside the document's folder"):
        Loader(ROOT.resolve())(uri)
    assert Loader(ROOT.resolve(), allow_outside_root=True)(uri) == {
        "Thing": {"type": "integer", "maximum": 9}
    }


def test_dot_dot_inside_a_uri_is_resolved_before_the_check() -> None:
    """`api/schemas/../../outside.yaml` is still outside."""
    sneaky = (FIXTURES / "api" / "schemas").resolve().as_uri() + "/../../outside.yaml"
    with pytest.raises(AccessDenied):
        Loader(ROOT.resolve())(sneaky)


def test_network_needs_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """`http(s)://` is AccessDenied unless `allow_network=True` (nothing is fetched here)."""
    with pytest.raises(AccessDenied, match="needs the network"):
        Loader(ROOT.resolve())("https://example.invalid/a.yaml")
    fetched: list[str] = []

    def fake_fetch(self: Loader, uri: str) -> Any:
        fetched.append(uri)
        return {"ok": True}

    monkeypatch.setattr(Loader, "_fetch", fake_fetch)
    loader = Loader(ROOT.resolve(), allow_network=True)
    assert loader("https://example.invalid/a.yaml#/x") == {"ok": True}
    assert fetched == ["https://example.invalid/a.yaml"]


def test_text_documents_read_no_files() -> None:
    """A document given as text or a dict has no folder: every file reference is denied."""
    with pytest.raises(AccessDenied, match="given as text"):
        Loader(None)("file:///etc/passwd")
    with pytest.raises(AccessDenied, match=r"relative file reference 'other\.yaml'"):
        Loader(None)("other.yaml")


def test_other_schemes_are_denied() -> None:
    """Only `file:` and `http(s):` exist; `ftp:` and the like are AccessDenied."""
    with pytest.raises(AccessDenied, match="unsupported reference scheme 'ftp'"):
        Loader(ROOT.resolve(), allow_network=True, allow_outside_root=True)("ftp://h/a.yaml")


def test_missing_file_in_folder_is_a_load_error() -> None:
    """A missing file beside the document is a LoadError naming the file."""
    uri = (FIXTURES / "api" / "missing.yaml").resolve().as_uri()
    with pytest.raises(LoadError, match="cannot read referenced file") as err:
        Loader(ROOT.resolve())(uri)
    assert err.value.source is not None and err.value.source.endswith("missing.yaml")


# -- through compile -----------------------------------------------------------------------


def deep_schema(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {"type": "array"}
    node = root
    for _ in range(depth):
        node["items"] = {"type": "array"}
        node = node["items"]
    return root


def operation_with(schema: Any) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"post": {
            "operationId": "deep",
            "requestBody": {"content": {"application/json": {"schema": schema}}},
            "responses": {"204": {"description": "none"}},
        }}, "/b": {"get": {"operationId": "fine", "responses": {"204": {"description": "x"}}}}},
    }


def test_compile_dict_depth_10000_is_limit_exceeded() -> None:
    """A dict document with a schema 10,000 levels deep reports LimitExceeded for that
    operation (never RecursionError), and the others compile."""
    app = httpllm.compile(operation_with(deep_schema(DEEP)), "3.1")
    assert [(e.path, e.kind) for e in app.errors] == [("/a", "LimitExceeded")]
    assert [f.name for f in app.functions] == ["fine"]


def test_compile_deep_text_is_limit_exceeded() -> None:
    """JSON or YAML text 10,000 levels deep is refused by compile with LimitExceeded."""
    with pytest.raises(LimitExceeded):
        httpllm.compile("[" * DEEP + "]" * DEEP)
    with pytest.raises(LimitExceeded):
        httpllm.compile("openapi: 3.1.0\nx: " + "[" * DEEP + "]" * DEEP + "\n")


def test_the_whole_document_depth_limit_is_for_text_not_for_a_dict() -> None:
    """As the README says: a document read as text nested past 256 levels is refused with
    LimitExceeded; passed as a dict it is not measured as a whole (a deep extension
    compiles), and an operation nested too deep fails alone with LimitExceeded."""
    doc = {**operation_with({"type": "string"}), "x-deep": deep_schema(300)}
    with pytest.raises(LimitExceeded, match="deeper than 256 levels"):
        httpllm.compile(json.dumps(doc), "3.1")
    app = httpllm.compile(doc, "3.1")
    assert [f.name for f in app.functions] == ["deep", "fine"] and not app.errors
    app = httpllm.compile(operation_with(deep_schema(300)), "3.1")
    assert [(e.path, e.kind) for e in app.errors] == [("/a", "LimitExceeded")]
    assert [f.name for f in app.functions] == ["fine"]


def test_compile_refuses_billion_laughs() -> None:
    """compile() refuses a YAML alias bomb with LimitExceeded."""
    with pytest.raises(LimitExceeded):
        httpllm.compile("openapi: 3.1.0\n" + billion_laughs())


# -- the root= bound ---------------------------------------------------------------------------


def test_root_bound_allows_a_sibling_folder() -> None:
    """With `bound` the parent folder, `../outside.yaml` is read; the default still refuses."""
    uri = (FIXTURES / "outside.yaml").resolve().as_uri()
    assert Loader(ROOT.resolve(), bound=FIXTURES)(uri) == {"Thing": {"type": "integer",
                                                                     "maximum": 9}}
    with pytest.raises(AccessDenied, match="outside the document's folder"):
        Loader(ROOT.resolve())(uri)


def test_root_bound_refuses_what_is_outside_it(tmp_path: Path) -> None:
    """A file outside the `bound` folder is refused, naming the root folder."""
    (tmp_path / "repo" / "api").mkdir(parents=True)
    (tmp_path / "secret.yaml").write_text("a: 1\n")
    doc = tmp_path / "repo" / "api" / "openapi.yaml"
    doc.write_text("openapi: 3.1.0\n")
    with pytest.raises(AccessDenied, match="outside the root folder"):
        Loader(doc, bound=tmp_path / "repo")((tmp_path / "secret.yaml").as_uri())


def test_symlink_leaving_the_root_is_refused(tmp_path: Path) -> None:
    """A symbolic link inside the root folder that points outside it is refused."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "secret.yaml").write_text("a: 1\n")
    (repo / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    doc = repo / "openapi.yaml"
    doc.write_text("openapi: 3.1.0\n")
    with pytest.raises(AccessDenied, match="outside the root folder"):
        Loader(doc, bound=repo)((repo / "link.yaml").as_uri())


def test_document_outside_its_root_is_refused(tmp_path: Path) -> None:
    """A `root=` folder that does not hold the document itself is refused."""
    with pytest.raises(AccessDenied, match="outside the root folder"):
        httpllm.compile(ROOT, "3.1", root=tmp_path)


def test_a_root_that_is_no_folder_is_refused(tmp_path: Path) -> None:
    """A `root=` that does not exist or is a file: the Loader's LoadError saying it is not
    a folder; compile()'s OptionError naming root, before anything is read."""
    for root in (tmp_path / "missing", ROOT):
        with pytest.raises(LoadError, match="is not a folder"):
            Loader(ROOT, bound=root)
        with pytest.raises(httpllm.OptionError, match="root must be an existing folder"):
            httpllm.compile(ROOT, "3.1", root=root)


def test_compile_with_root_reads_the_sibling_folder() -> None:
    """`compile(root=...)` reads `../outside.yaml`; without it that operation is an error."""
    bound = httpllm.compile(ROOT, "3.1", root=FIXTURES, include="readOutside")
    assert [f.name for f in bound.functions] == ["readOutside"] and not bound.errors
    default = httpllm.compile(ROOT, "3.1", include="readOutside")
    assert [e.kind for e in default.errors] == ["AccessDenied"]


def _multi_file_rows() -> list[Any]:
    """The real documents split over several files (MANIFEST.tsv `n_files` > 1)."""
    return shared.params(r["local_path"] for r in shared.manifest(["real"])
                         if r["n_files"] not in ("", "1"))


@pytest.mark.parametrize("local_path", _multi_file_rows())
def test_multi_file_repositories_compile_within_their_root(specs_dir: Path,
                                                           local_path: str) -> None:
    """A real multi-file document compiles with `root=` its repository folder, with no
    operation refused by the file gate and none lost."""
    repository = specs_dir / Path(local_path).parts[0] / Path(local_path).parts[1]
    app = httpllm.compile(specs_dir / local_path, "3.1", root=repository)
    assert [e for e in app.errors if e.kind == "AccessDenied"] == []
    assert app.functions


def test_a_yaml_key_given_twice_is_refused_with_its_line() -> None:
    """PyYAML keeps the last of two equal keys silently; a document that says a path twice
    is refused naming the line, since YAML requires unique keys."""
    with pytest.raises(LoadError, match=r"line 4, column 3: the key '/a' is given twice"):
        load_text("paths:\n  /a:\n    get: {}\n  /a:\n    post: {}\n", label="x.yaml")


def test_yaml_merge_keys_may_be_overridden() -> None:
    """A `<<` merge followed by a key it also brings is YAML's override, not a duplicate."""
    assert load_text("b: &x {c: 1, d: 1}\ne:\n  <<: *x\n  c: 2\n")["e"] == {"c": 2, "d": 1}


def test_size_limit_speaks_in_binary_units() -> None:
    """A document over the size limit is refused with both sizes in KiB/MiB, not a bare
    count of bytes."""
    text = "{}" + " " * (3 * 1024 * 1024)
    with pytest.raises(LimitExceeded, match=r"larger than 2 MiB \(3\.0 MiB\)"):
        load_text(text, limits=Limits(max_bytes=2 * 1024 * 1024))


def string_bomb(copies: int = 100_000, size: int = 100_000) -> str:
    """A YAML document of about 600 KB whose one 100 KB string is aliased ``copies`` times:
    few values (the node limit passes it), 10 GB once written out."""
    return (f"openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\npaths: {{}}\n"
            f"x-big: &s \"{'A' * size}\"\nx-copies: [" + "*s," * copies + "]\n")


def test_an_aliased_string_counts_its_size_at_every_place() -> None:
    """The expanded size bounds a YAML document, not the number of aliases: one 100 KB
    string aliased 100,000 times is refused, the error naming the limit, before anything
    writes it out (`compile -o` and `tools/list` ran out of memory on it)."""
    text = string_bomb()
    assert len(text) < 600_000
    with pytest.raises(LimitExceeded, match=r"larger than 256 MiB after YAML alias "
                                            r"expansion \(max_expanded_bytes\)"):
        load_text(text)


def test_the_expanded_size_limit_counts_keys_strings_and_shared_mappings() -> None:
    """`max_expanded_bytes` counts keys and strings at every place a shared mapping or
    string occurs; a document within it loads, as ordinary anchors do."""
    text = "a: &a {key: '" + "x" * 1000 + "'}\nb: [" + "*a, " * 50 + "]\n"
    assert len(load_text(text, limits=Limits(max_expanded_bytes=60_000))["b"]) == 50
    with pytest.raises(LimitExceeded, match=r"larger than 39\.1 KiB after YAML alias"):
        load_text(text, limits=Limits(max_expanded_bytes=40_000))
    with pytest.raises(LimitExceeded, match="larger than 30 KiB"):
        load_text("s: &s '" + "y" * 1000 + "'\nl: [" + "*s, " * 40 + "]\n",
                  limits=Limits(max_expanded_bytes=30 * 1024))


def test_a_yaml_string_bomb_is_one_line_on_the_command_line(tmp_path: Path) -> None:
    """`httpllm compile -o` on the string bomb stops with one line naming the limit and
    writes nothing."""
    import subprocess
    import sys

    spec = tmp_path / "bomb.yaml"
    spec.write_text(string_bomb())
    out = tmp_path / "tools.json"
    done = subprocess.run([sys.executable, "-m", "httpllm", "compile", str(spec), "-p", "openai",
                           "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "max_expanded_bytes" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


REGISTRY_SECRET = "dXNlcjpyZWdpc3RyeS1wYXNzd29yZA=="


def _downloads(tmp_path: Path) -> Path:
    """A downloaded document beside a home folder's files: `.docker/config.json` (a
    registry credential), a service-account key, a schema in a dot-folder, and an ordinary
    schema file; one operation refers to each."""
    (tmp_path / ".docker").mkdir()
    (tmp_path / ".docker" / "config.json").write_text(json.dumps(
        {"auths": {"registry.example.com": {"auth": REGISTRY_SECRET}}}))
    (tmp_path / "key.json").write_text(json.dumps(
        {"type": "service_account", "private_key": REGISTRY_SECRET, "client_email": "a@b.c"}))
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "pet.yaml").write_text("type: object\nproperties: {name: {type: "
                                                  "string}}\n")
    (tmp_path / "pet.yaml").write_text("type: object\nproperties: {name: {type: string}}\n")
    (tmp_path / "ignore.txt").write_text("type: object\n")
    refs = {"docker": ".docker/config.json", "dockerAuths": ".docker/config.json#/auths",
            "key": "key.json", "hidden": ".hidden/pet.yaml", "text": "ignore.txt",
            "pet": "pet.yaml"}
    paths = "".join(
        f"  /{name}:\n    post:\n      operationId: {name}\n      requestBody:\n"
        f"        content:\n          application/json:\n            schema:\n"
        f"              $ref: '{ref}'\n      responses: {{'200': {{description: ok}}}}\n"
        for name, ref in refs.items())
    spec = tmp_path / "openapi.yaml"
    spec.write_text("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n" + paths)
    return spec


def test_dotfiles_and_files_that_are_no_schema_are_never_inlined(tmp_path: Path) -> None:
    """A `$ref` to a dotfile, a file in a dot-folder, a file that is not JSON or YAML, or a
    JSON file with no OpenAPI or JSON Schema content is refused (AccessDenied, naming the
    operation's pointer); the registry credential appears in no tool. The ordinary schema
    file beside them is read."""
    app = httpllm.compile(_downloads(tmp_path), "chatgpt")
    assert [f.name for f in app.functions] == ["pet"]
    refused = {e.pointer.split("/")[2]: e for e in app.errors}
    assert set(refused) == {"~1docker", "~1dockerAuths", "~1key", "~1hidden", "~1text"}
    assert {e.kind for e in refused.values()} == {"AccessDenied"}
    assert "dot" in refused["~1docker"].message and "dot" in refused["~1hidden"].message
    assert "OpenAPI or JSON Schema" in refused["~1key"].message
    assert REGISTRY_SECRET not in json.dumps(app.tools())


def test_the_gate_refuses_dotfiles_even_outside_the_root(tmp_path: Path) -> None:
    """With `allow_outside_root=True` a dotfile is still refused; the document itself may
    live in a dot-folder (only what it refers to is checked)."""
    inner = tmp_path / ".cache" / "specs"
    inner.mkdir(parents=True)
    root = inner / "openapi.yaml"
    root.write_text("openapi: 3.1.0\n")
    (inner / "pet.yaml").write_text("type: string\n")
    (tmp_path / ".netrc.json").write_text('{"machine": "x"}')
    loader = Loader(root, allow_outside_root=True)
    assert loader((inner / "pet.yaml").as_uri()) == {"type": "string"}
    with pytest.raises(AccessDenied, match="dot"):
        loader((tmp_path / ".netrc.json").as_uri())
    bound = Loader(root, bound=tmp_path)  # a repository whose document is in a dot-folder
    assert bound((inner / "pet.yaml").as_uri()) == {"type": "string"}
    with pytest.raises(AccessDenied, match="dot"):
        bound((tmp_path / ".netrc.json").as_uri())


def test_the_expanded_size_is_shared_by_the_files_a_document_refers_to(tmp_path: Path) -> None:
    """Files each within `max_expanded_bytes` but past it together are refused: a document
    cannot spread the string bomb over many files (`Loader.expanded` counts them all)."""
    part = "type: string\nx-big: &s '" + "z" * 1000 + "'\nenum: [" + "*s, " * 20 + "]\n"
    for n in range(3):
        (tmp_path / f"part{n}.yaml").write_text(part)
    root = tmp_path / "openapi.yaml"
    root.write_text("openapi: 3.1.0\n")
    loader = Loader(root, limits=Limits(max_expanded_bytes=50_000))
    loader((tmp_path / "part0.yaml").as_uri())
    loader((tmp_path / "part1.yaml").as_uri())
    assert 40_000 < loader.expanded < 50_000
    with pytest.raises(LimitExceeded, match="with the files read before it after YAML alias"):
        loader((tmp_path / "part2.yaml").as_uri())


# -- pipes, devices and endless streams ----------------------------------------------------


def _fifo_document(tmp_path: Path) -> Path:
    """A document whose parameter schema is a ``$ref`` to a named pipe beside it."""
    import os

    os.mkfifo(tmp_path / "pipe.yaml")
    spec = tmp_path / "openapi.yaml"
    spec.write_text(json.dumps({
        "openapi": "3.0.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "ga", "parameters": [
            {"name": "n", "in": "query", "schema": {"$ref": "pipe.yaml"}}],
            "responses": {"200": {"description": "ok"}}}},
                  "/b": {"get": {"operationId": "gb",
                                 "responses": {"200": {"description": "ok"}}}}}}))
    return spec


def test_a_ref_to_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    """A document cannot make compile open a FIFO (which would wait for a writer forever):
    the operation is skipped with an AccessDenied naming the file; the others compile."""
    import subprocess
    import sys

    spec = _fifo_document(tmp_path)
    done = subprocess.run([sys.executable, "-m", "httpllm", "compile", str(spec)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert "pipe.yaml is not a regular file" in done.stderr
    assert [tool["function"]["name"] for tool in json.loads(done.stdout)] == ["gb"]


def test_a_pipe_given_as_the_document_is_read(tmp_path: Path) -> None:
    """``httpllm compile <(cat spec.yaml)`` names a pipe: it is read (it was "no such
    file")."""
    import subprocess
    import sys

    spec = Path(__file__).parents[1] / "specs" / "petstore-3.0.yaml"
    done = subprocess.run(["bash", "-c", f'"{sys.executable}" -m httpllm compile <(cat "{spec}")'],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 4


def test_an_endless_device_is_read_only_to_the_size_limit() -> None:
    """``/dev/zero`` as the document (or on standard input) is refused once it passes
    ``max_bytes``, never read whole."""
    import subprocess
    import sys

    zero = Path("/dev/zero")
    if not zero.exists():
        pytest.skip("no /dev/zero here")
    with pytest.raises(LimitExceeded, match="larger than 1 KiB"):
        httpllm.compile(zero, limits=Limits(max_bytes=1024))
    with zero.open("rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "httpllm", "compile", "-"], stdin=stdin,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "larger than 64 MiB" in done.stderr
    assert "Traceback" not in done.stderr


# -- integers Python does not read ----------------------------------------------------------


@pytest.mark.parametrize(("text", "says"), [
    ('{"openapi": "3.0.0", "maximum": ' + "9" * 5000 + "}", "not valid JSON: an integer of"),
    ("openapi: 3.0.0\nmaximum: " + "9" * 5000 + "\n", "line 2, column 10: an integer of more"),
])
def test_an_integer_python_does_not_read_is_a_load_error(text: str, says: str) -> None:
    """A 5,000-digit integer (past ``sys.get_int_max_str_digits()``) was an internal
    ValueError ("please report it"); it is a LoadError naming the file (and, for YAML, the
    line), without Python's advice to the programmer."""
    with pytest.raises(LoadError) as caught:
        load_text(text, label="spec.yaml")
    assert says in str(caught.value) and "spec.yaml" in str(caught.value)
    assert "set_int_max_str_digits" not in str(caught.value)


def test_large_numbers_still_load() -> None:
    """What a double or an int holds is kept as it was written."""
    big = 10 ** 300
    assert load_text(f'{{"a": 1.0e+308, "b": {big}, "c": 1e-300, "d": 0.0e-400}}') == {
        "a": 1.0e308, "b": big, "c": 1e-300, "d": 0.0}
    assert load_text(f"a: 1.0e+308\nb: {big}\nc: not-a-number\nd: -0.0\ne: 0.000\n") == {
        "a": 1.0e308, "b": big, "c": "not-a-number", "d": 0.0, "e": 0.0}


# -- a document fetched over the network (allow_network=True) --------------------------------


def _endless(chunks: list[int]) -> Any:
    """An ASGI app answering every GET with an endless body, counting the chunks sent."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/fail":
            await send({"type": "http.response.start", "status": 500, "headers": []})
            await send({"type": "http.response.body", "body": b"no"})
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})
        while len(chunks) < 2_000:  # 125 MiB at most (uvicorn drops sends after a close)
            chunks.append(1)
            await send({"type": "http.response.body", "body": b" " * 65536,
                        "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


def test_a_fetched_document_is_read_only_to_the_size_limit() -> None:
    """A server that never stops answering is cut off past ``max_bytes`` (the whole answer
    was read into memory before its size was checked)."""
    import tracemalloc

    from loopback import running

    with running(_endless([])) as url:
        tracemalloc.start()
        try:
            with pytest.raises(LimitExceeded, match="larger than 1 MiB"):
                httpllm.compile(f"{url}/openapi.json", allow_network=True,
                                limits=Limits(max_bytes=2**20))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 32 * 2**20  # held: 1 MiB and a chunk, not the 125 MiB sent


def test_a_password_in_the_document_url_is_never_shown() -> None:
    """``https://user:pass@host/openapi.json`` is fetched as given, and every message names
    it with the password masked (httpx's own message quotes the URL too)."""
    from loopback import running

    with running(_endless([])) as url:
        secret_url = url.replace("http://", "http://me:hunter2secret@") + "/fail"
        with pytest.raises(LoadError) as caught:
            httpllm.compile(secret_url, allow_network=True)
    message = str(caught.value)
    assert "hunter2secret" not in message and "me:[redacted]@127.0.0.1" in message
    assert "500" in message


def test_the_document_urls_password_never_reaches_the_api() -> None:
    """A relative server URL resolves against the document's URL without its
    ``user:password@``: the API is called without them (httpx sent them as Basic
    credentials), and no server URL shows them (``inspect`` and ``call`` printed them)."""
    from loopback import running

    seen: list[dict[str, str]] = []
    document = json.dumps({
        "openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "/api"}],
        "paths": {"/a": {"get": {"operationId": "ga",
                                 "responses": {"200": {"description": "ok"}}}}}}).encode()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        seen.append({"path": scope["path"], **{k.decode(): v.decode()
                                               for k, v in scope["headers"]}})
        body = document if scope["path"] == "/openapi.json" else b"{}"
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    with running(app) as url:
        secret_url = url.replace("http://", "http://me:hunter2secret@") + "/openapi.json"
        compiled = httpllm.compile(secret_url, allow_network=True)
        assert "hunter2secret" not in json.dumps(compiled.to_json())
        result = compiled.execute("ga", {})
    assert result.status == 200
    fetch, call = seen
    assert fetch["path"] == "/openapi.json" and "authorization" in fetch  # as the user asked
    assert call["path"] == "/api/a" and "authorization" not in call


@pytest.mark.parametrize("text", [
    '{"a": [1e400, -1e400, 1e-400, -1E-400, 0.0, 0e10, 1.5]}',
    "a: [1.0e+400, -1.0e+400, 1.0e-400, -1.0E-400, 0.0, 0.0e+10, 1.5]",
])
def test_numbers_no_double_holds_keep_their_text(text: str) -> None:
    """JSON and YAML alike: a number past a double's range, or non-zero yet read as 0.0,
    comes back as an `Unheld` float with the text as written (normalize drops it with a
    loss naming it); zeros and numbers a double holds are plain floats."""
    from httpllm._json import Unheld

    values = load_text(text)["a"]
    assert [type(v) is Unheld for v in values] == [True] * 4 + [False] * 3
    assert [v.text for v in values[:4]] == [
        t.strip("[ ]") for t in text.split(": ", 1)[1].split(",")[:4]]
    assert values[:4] == [float("inf"), float("-inf"), 0.0, 0.0]


@pytest.mark.parametrize(("text", "number"), [
    ("1e3", 1000.0), ("1E3", 1000.0), ("1.0e3", 1000.0), ("1.0e+3", 1000.0), ("-2e-2", -0.02),
    (".5e2", 50.0), ("2.e1", 20.0), ("+1e0", 1.0)])
def test_yaml_12_exponent_floats_are_numbers(text: str, number: float) -> None:
    """A float YAML 1.2 writes with an exponent but YAML 1.1 (PyYAML's) reads as text
    (no dot, or an unsigned exponent: ``1e3``, ``1.0e3``) is the number, as JSON's
    ``1e3`` is; ``maxLength: 1e3`` was sent to providers as the string "1e3"."""
    assert load_text(f"a: {text}\nb: [{text}]") == {"a": number, "b": [number]}
    assert load_text(f'a: "{text}"') == {"a": text}  # quoted: text
    assert load_text("a: 1e3x\nb: e3\nc: 1e") == {"a": "1e3x", "b": "e3", "c": "1e"}


def test_a_yaml_12_exponent_past_a_double_keeps_its_text() -> None:
    """``maximum: 1e400`` in YAML is a number no double holds (kept with its text for
    normalize to drop with a loss), as in JSON; it was the string "1e400"."""
    value = load_text("a: 1e400")["a"]
    assert isinstance(value, Unheld) and value.text == "1e400" and value == float("inf")


def test_a_dict_document_gets_string_keys_without_being_changed() -> None:
    """A document given as a dict with keys that are no strings (``responses: {200: ...}``)
    compiles as its YAML text would (its response schema was lost in silence), and the
    caller's dict is left as it was; a dict whose keys are strings is used as it is."""
    from httpllm.load import string_keys

    responses = {200: {"description": "ok", "content": {
        "application/json": {"schema": {"type": "string"}}}}}
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a": {"get": {"operationId": "a", "responses": responses}}}}
    app = httpllm.compile(doc, "mcp")
    assert app.functions[0].output == {"type": "string"}
    assert list(doc["paths"]["/a"]["get"]["responses"]) == [200]
    plain = {"a": [{"b": 1}]}
    assert string_keys(plain) is plain
    shared_node = {True: None}
    out = string_keys({"x": shared_node, "y": [shared_node]})
    assert out == {"x": {"true": None}, "y": [{"true": None}]} and out["x"] is out["y"][0]


@pytest.fixture(params=["referents", "one by one"])
def key_scan(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``httpllm.load`` with the tree pass of the key scan listing a level's values by
    ``gc.get_referents`` (where this Python gives them all) or reading them one by one."""
    from httpllm import load

    if request.param == "one by one":
        monkeypatch.setattr(load, "_REFERENTS_ARE_VALUES", False)
    elif not load._REFERENTS_ARE_VALUES:
        pytest.skip("gc.get_referents does not list every value on this Python")
    return load


class _Key(str):
    """A key that is a string but no ``str``: copied as ``str(key)``."""


def _holding(key: Any, depth: int, value: Any = "x") -> dict[str, Any]:
    """A document whose one mapping with ``key`` sits ``depth`` levels down, below dicts and
    lists in turn, beside mappings and lists of plain values."""
    node: Any = {key: value, "plain": [1, 2.5, None, True]}
    for level in range(depth):
        node = [{"a": 1}, node, []] if level % 2 else {"b": [], "c": node, "d": {"e": "f"}}
    return {"openapi": "3.1.0", "x": node}


@pytest.mark.parametrize("key", [200, 1.5, True, False, None, _Key("k")])
@pytest.mark.parametrize("depth", [0, 1, 2, 3, 6])
def test_the_key_scan_finds_a_key_that_is_no_str_at_any_level(key_scan: Any, key: Any,
                                                              depth: int) -> None:
    """A key that is no ``str`` (a number, a bool, ``None``, a subclass of ``str``) is found
    at any level, below dicts or lists, by the tree pass and by the careful pass; the same
    document with a ``str`` key has none."""
    document = _holding(key, depth)
    assert key_scan._tree_other_keys(document) is True
    assert key_scan._graph_other_keys(document) is True
    assert key_scan.string_keys(document) == _holding(str(key) if type(key) is _Key else
                                                      scalar_text(key), depth)
    plain = _holding("k", depth)
    assert key_scan._tree_other_keys(plain) is False and key_scan.string_keys(plain) is plain


def test_the_key_scan_finds_the_one_key_deep_in_a_list_of_dicts(key_scan: Any) -> None:
    """The only key that is no string, in the last of many dicts of a list deep down, is
    found; a dict that once held such a key (its table still the kind for any key) and a
    dict of an object's attributes are read as any other dict."""
    items: list[Any] = [{"name": f"n{i}", "in": "query", "schema": {"type": "string"}}
                        for i in range(50)]
    items[-1]["schema"]["enum"] = [{"a": 1}, {2: "two"}]
    document = {"paths": {"/a": {"get": {"parameters": items}}}}
    assert key_scan._tree_other_keys(document) is True
    del items[-1]["schema"]["enum"][1][2]
    assert key_scan._tree_other_keys(document) is False

    once: dict[Any, Any] = {"a": {"b": [1]}, 1: None}
    del once[1]  # only str keys left, in a table that also holds a key after each value
    assert key_scan._tree_other_keys({"x": [once]}) is False
    once["a"]["b"].append({3: "three"})
    assert key_scan._tree_other_keys({"x": [once]}) is True

    class Holder:
        pass

    held = Holder()
    held.schema = {"type": "object", "properties": {"p": {404: "no"}}}  # type: ignore[attr-defined]
    attributes = vars(held)  # a dict; CPython 3.13 lists none of its values by gc
    assert key_scan._other_keys({"x": attributes}) is True
    assert key_scan.string_keys({"x": attributes})["x"]["schema"]["properties"] == {
        "p": {"404": "no"}}


def test_the_key_scan_of_a_huge_shared_wide_node_stays_in_its_budget(key_scan: Any) -> None:
    """A node of 100,000 values held 998 times (``[[[]] * 100_000] * 998``, 10**8 values as
    a tree) is no reason to list its values once per place: the tree pass gives up before
    the level is listed, within its default budget, and the careful pass answers."""
    wide: list[Any] = [[]] * 100_000
    document = {"x": [wide] * 998}
    assert key_scan._tree_other_keys(document) is None
    assert key_scan.string_keys(document) is document
    wide[0] = {False: 0}
    assert key_scan._tree_other_keys(document) is None
    assert key_scan.string_keys(document)["x"][997][0] == {"false": 0}


def test_the_key_scan_of_a_dict_that_holds_itself_ends(key_scan: Any,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """The scan for keys that are no strings takes a dict document for a tree of plain
    values first; one that holds itself (or unfolds past the bound, or holds another kind
    of mapping) is looked at again container by container, with the same answer, and the
    scan ends."""
    load = key_scan
    monkeypatch.setattr(load, "_TREE_VISITS", 50)
    looped: dict[Any, Any] = {"a": [{"b": 1}]}
    looped["a"].append(looped)
    assert load.string_keys(looped) is looped
    looped["a"][0][2] = "two"
    out = load.string_keys(looped)
    assert out["a"][0] == {"b": 1, "2": "two"} and out["a"][1] is out
    shared: list[Any] = [{"k": None}]
    for _ in range(20):  # 2**20 containers as a tree, 21 as a graph
        shared = [shared, shared]
    assert load.string_keys(shared) is shared
    ordered = {"a": [OrderedDict({1: "one"})]}  # another kind of mapping: the careful pass
    assert load.string_keys(ordered) == {"a": [{"1": "one"}]}


def test_the_key_scan_of_a_dict_sharing_a_wide_node_is_bounded(key_scan: Any,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """A small dict document that shares a wide node many times (what ``yaml.safe_load``
    makes of an alias bomb) is no reason for the tree pass to list each of its values
    once per place: the values it reads are bounded before a level is listed, and the
    careful pass answers (each container once)."""
    load = key_scan
    monkeypatch.setattr(load, "_TREE_VALUES", 10_000)
    wide: list[Any] = [[]] * 1_000
    middle = [wide] * 50  # 50 containers, 50,000 values on the level below them
    document = {"openapi": "3.0.0", "x": [middle] * 100}
    assert load._tree_other_keys(document) is None
    assert load.string_keys(document) is document
    wide.append({404: "no"})  # in the shared node: one copy, held by every place
    out = load.string_keys(document)
    assert out["x"][0][0][-1] == {"404": "no"} and out["x"][99][49] is out["x"][0][0]


@pytest.mark.parametrize(("mapping", "said"), [
    ({200: "a", "200": "b"}, "'200'"),
    ({None: "a", "null": "b"}, "'null'"),
    ({True: "a", "true": "b"}, "'true'"),
    ({1.5: "a", "1.5": "b"}, "'1.5'"),
])
def test_keys_that_are_one_string_once_spelled_are_refused(mapping: dict[Any, Any],
                                                           said: str) -> None:
    """Two keys of one mapping of a dict document that are one string once spelled as the
    loader spells a key (``200`` and ``"200"``) are refused, naming the mapping, as the
    loader refuses them in YAML text; neither is dropped without a word."""
    document = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
                "paths": {"/a/b": {"get": {"responses": mapping}}}}
    with pytest.raises(LoadError, match=f"the key {said} is given twice") as caught:
        httpllm.compile(document)
    assert caught.value.pointer == "#/paths/~1a~1b/get/responses"
    with pytest.raises(LoadError, match="given twice"):
        load_text("responses:\n  200: a\n  '200': b\n")
    deep: Any = {"enum": [{"a": 1}, mapping]}
    for _ in range(DEEP):  # the pointer is spelled for the error only, as deep as it is
        deep = {"items": deep}
    with pytest.raises(LoadError, match="given twice") as caught:
        string_keys({"x": [deep]})
    assert caught.value.pointer == "#/x/0" + "/items" * DEEP + "/enum/1"


def test_a_document_of_other_mappings_compiles_as_its_dict_would() -> None:
    """A document given as a ``MappingProxyType`` or another ``Mapping`` (at the top, or
    anywhere in it) compiles as the same document of dicts does, whether or not a key
    of it is no string: it is copied into dicts, never read as no object at all."""
    from collections.abc import Iterator, Mapping
    from types import MappingProxyType

    class Frozen(Mapping[Any, Any]):
        def __init__(self, items: dict[Any, Any]) -> None:
            self._items = items

        def __getitem__(self, key: Any) -> Any:
            return self._items[key]

        def __iter__(self) -> Iterator[Any]:
            return iter(self._items)

        def __len__(self) -> int:
            return len(self._items)

    def document(status: Any = "200") -> dict[str, Any]:
        schema = {"type": "object", "properties": {"a": {"type": "string"}}}
        return {"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
                "paths": {"/p": {"get": {"operationId": "g", "responses": {status: {
                    "description": "ok", "content": {"application/json": {"schema": schema}}}}}}}}

    expected = httpllm.compile(document(), "mcp").tools()
    inner = document()
    body = inner["paths"]["/p"]["get"]["responses"]["200"]["content"]["application/json"]
    body["schema"] = Frozen(body["schema"])
    for given in (MappingProxyType(document()), Frozen(document()), Frozen(document(200)),
                  {**document(), "paths": Frozen(document()["paths"])}, inner):
        assert httpllm.compile(given, "mcp").tools() == expected
    plain = document()
    assert string_keys(plain) is plain


@pytest.mark.parametrize("text", [
    '{"a": "x\\ud800", "b": ["\\udfff"]}', b'{"a": "x\\ud800", "b": ["\\udfff"]}',
    'a: "x\\ud800"\nb: ["\\udfff"]', 'a: "x\\U0000d800"\nb: ["\\U0000dfff"]'])
def test_lone_surrogates_read_from_text_are_replacement_characters(
        text: str | bytes) -> None:
    """What JSON or YAML text held as the escape of half a surrogate pair is U+FFFD, with
    the pointers of the strings changed (what libyaml refuses to read at all is no case)."""
    try:
        value = load_text(text)
    except LoadError:  # libyaml: "found invalid Unicode character escape code"
        assert isinstance(text, str) and text.startswith("a:")
        return
    fixed, pointers = without_lone_surrogates(value, text)
    assert (fixed, sorted(pointers)) == ({"a": "x\ufffd", "b": ["\ufffd"]}, ["#/a", "#/b/0"])


def test_halves_of_a_pair_in_the_wrong_order_are_lone() -> None:
    """A low half before a high half is no pair: both are U+FFFD."""
    text = '{"a": "\\udc4d\\ud83d"}'
    assert without_lone_surrogates(load_text(text), text) == ({"a": "\ufffd\ufffd"}, ["#/a"])


@pytest.mark.parametrize("text", [
    '{"a": "\\\\ud800 is an escape"}', '{"a": "\\ud83d\\ude00"}', '{"a": "é"}',
    '{"a": "\\uD83D\\uDE00"}'])
def test_text_without_a_lone_surrogate_is_kept(text: str) -> None:
    """A pair's escapes (one character), an escaped backslash before `ud800` (text that
    only looks like an escape) and plain non-ASCII text change nothing."""
    value = load_text(text)
    assert without_lone_surrogates(value, text)[0] is value
    assert without_lone_surrogates(value, text)[1] == []


def test_a_referenced_file_with_lone_surrogates_is_replaced_and_told(tmp_path: Path) -> None:
    """A file a `$ref` reads is cleaned alike, and the loader tells whose strings changed."""
    (tmp_path / "s.json").write_text('{"type": "string", "description": "x\\udc00"}')
    loader = Loader(tmp_path / "api.json")
    told: list[tuple[str, list[str]]] = []
    loader.on_replaced = lambda label, pointers: told.append((label, pointers))
    assert loader((tmp_path / "s.json").as_uri())["description"] == "x\ufffd"
    assert told == [(str(tmp_path / "s.json"), ["#/description"])]
