"""tests/shared.py: the corpus from the environment, else `../shared` beside the checkout,
else a skip that says how to get it (a failure under CI)."""

from __future__ import annotations

from pathlib import Path

import pytest
import shared


@pytest.fixture
def beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty `shared` folder in place of the one beside the checkout; no variables set."""
    folder = tmp_path / "shared"
    folder.mkdir()
    monkeypatch.setattr(shared, "BESIDE", folder)
    for variable in (*shared.VARIABLES.values(), *shared.REQUIRE_VARIABLES):
        monkeypatch.delenv(variable, raising=False)
    return folder


def corpus(folder: Path) -> Path:
    """A corpus folder with one `real` row and a bug-case folder with C01."""
    (folder / "specs").mkdir(parents=True)
    (folder / "specs" / "MANIFEST.tsv").write_text("set\tlocal_path\nreal\treal/a.json\n"
                                                  "edge\tedge/b.json\n")
    (folder / "cases").mkdir()
    (folder / "cases" / "C01-recursive.yaml").write_text("openapi: 3.1.0\n")
    return folder


def test_beside_the_checkout_when_no_variable_is_set(beside: Path) -> None:
    corpus(beside)
    assert shared.find("specs") == beside / "specs"
    assert shared.case("C01") == beside / "cases" / "C01-recursive.yaml"
    assert shared.case_ids() == ("C01",)
    assert [r["local_path"] for r in shared.manifest(["real"])] == ["real/a.json"]


def test_the_variables_win(beside: Path, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    corpus(beside)
    elsewhere = corpus(tmp_path / "elsewhere")
    monkeypatch.setenv("HTTPLLM_SPECS", str(elsewhere / "specs"))
    monkeypatch.setenv("HTTPLLM_CASES", str(elsewhere / "cases"))
    assert shared.find("specs") == elsewhere / "specs"
    assert shared.find("cases") == elsewhere / "cases"


def test_a_wrong_variable_is_reported_not_replaced(beside: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    corpus(beside)
    monkeypatch.setenv("HTTPLLM_SPECS", str(beside / "nowhere"))
    folder, reason = shared.locate("specs")
    assert folder is None and reason == f"HTTPLLM_SPECS={beside / 'nowhere'} holds no MANIFEST.tsv"


def test_without_a_corpus_tests_skip_saying_how_to_get_it(beside: Path) -> None:
    assert shared.manifest() == [] and shared.case_ids() == ()
    with pytest.raises(pytest.skip.Exception, match=r"HTTPLLM_SPECS is not set .*\.\./shared"):
        shared.require("specs")
    (placeholder,) = shared.params([])
    assert placeholder.id == shared.PLACEHOLDER


@pytest.mark.parametrize("variable", shared.REQUIRE_VARIABLES)
def test_without_a_corpus_tests_fail_under_ci(beside: Path, variable: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, "1")
    with pytest.raises(pytest.fail.Exception, match="HTTPLLM_CASES is not set"):
        shared.require("cases")
    monkeypatch.setenv(variable, "0")
    with pytest.raises(pytest.skip.Exception):
        shared.require("cases")
