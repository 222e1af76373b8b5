"""Where the shared corpus is: the one place the tests (and benchmarks) look for it.

The corpus lives outside the repository, in two folders: the real and edge OpenAPI documents
(``specs``, holding ``MANIFEST.tsv``) and the bug cases (``cases``, holding ``C*.yaml``). Each
is found from its environment variable (``HTTPLLM_SPECS``, ``HTTPLLM_CASES``), else at
``../shared/specs`` and ``../shared/cases`` beside the checkout (where CI puts it: the
repository at ``<dir>/main``, the corpus at ``<dir>/shared``).

When a folder is not found, the tests that need it are skipped with a reason that says how to
get it, or fail when the corpus is required: under CI (the ``CI`` variable is set) or when
``HTTPLLM_REQUIRE_CORPUS`` is set (``0`` or empty means not set).

Collection-time helpers (:func:`manifest`, :func:`case_ids`) never skip: they return nothing
when the corpus is absent, and :func:`params` then yields one placeholder parameter whose
test skips (or fails under CI) through the :func:`require` of its fixture.
"""

from __future__ import annotations

import csv
import functools
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

Kind = Literal["specs", "cases"]

REPO = Path(__file__).resolve().parents[1]
"""The checkout (the folder holding pyproject.toml)."""
BESIDE = REPO.parent / "shared"
"""Where CI puts the corpus: `shared` beside the checkout."""
VARIABLES: dict[Kind, str] = {"specs": "HTTPLLM_SPECS", "cases": "HTTPLLM_CASES"}
MARKERS: dict[Kind, str] = {"specs": "MANIFEST.tsv", "cases": "C*.yaml"}
REQUIRE_VARIABLES = ("CI", "HTTPLLM_REQUIRE_CORPUS")
HOW = ("set HTTPLLM_SPECS to the corpus folder holding MANIFEST.tsv and HTTPLLM_CASES to the "
       "bug-case folder (C*.yaml), or put both at ../shared/specs and ../shared/cases beside "
       "the checkout, as CI does (.ci/run)")


def _holds(folder: Path, kind: Kind) -> bool:
    if kind == "specs":
        return (folder / MARKERS[kind]).is_file()
    return folder.is_dir() and any(folder.glob(MARKERS[kind]))


def locate(kind: Kind) -> tuple[Path | None, str]:
    """The folder of `kind` and "", or None and why it was not found.

    The variable wins when set (a wrong value is reported, never replaced by the default)."""
    variable = VARIABLES[kind]
    value = os.environ.get(variable)
    folder = Path(value) if value else BESIDE / kind
    if _holds(folder, kind):
        return folder, ""
    if value:
        return None, f"{variable}={value} holds no {MARKERS[kind]}"
    return None, f"{variable} is not set and {folder} holds no {MARKERS[kind]}"


def find(kind: Kind) -> Path | None:
    """The folder of `kind`, or None when it is not found."""
    return locate(kind)[0]


def required() -> bool:
    """Whether a missing corpus fails the tests (CI, HTTPLLM_REQUIRE_CORPUS) or skips them."""
    return any(os.environ.get(v, "") not in ("", "0") for v in REQUIRE_VARIABLES)


def unavailable(reason: str) -> None:
    """Fail the current test when the corpus is required, skip it otherwise."""
    import pytest  # here, so that benchmarks/ can find the corpus without pytest

    message = f"no shared corpus ({reason}): {HOW}"
    if required():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def require(kind: Kind) -> Path:
    """The folder of `kind`; else the current test fails under CI and is skipped elsewhere."""
    folder, reason = locate(kind)
    if folder is None:
        unavailable(reason)
        raise AssertionError("unreachable")  # pytest.skip and pytest.fail raise
    return folder


def case(case_id: str) -> Path:
    """The bug case `case_id` (``C22`` -> ``cases/C22-*.yaml``); skips without the cases,
    fails when the folder is there but the case is not."""
    folder = require("cases")
    found = sorted(folder.glob(f"{case_id}-*.yaml"))
    assert found, f"no {case_id}-*.yaml in {folder}"
    return found[0]


def case_ids() -> tuple[str, ...]:
    """The ids of the bug cases present (``C01``...), or () without them."""
    folder = find("cases")
    if folder is None:
        return ()
    return tuple(sorted({p.name.split("-")[0] for p in folder.glob("C*.yaml")}))


def manifest(sets: Iterable[str] = ("real", "edge"), folder: Path | None = None
             ) -> list[dict[str, str]]:
    """The MANIFEST.tsv rows of `sets`, or [] when the corpus is not found."""
    folder = folder or find("specs")
    if folder is None:
        return []
    wanted = set(sets)
    return [r for r in _rows(folder) if r["set"] in wanted]


@functools.cache
def _rows(folder: Path) -> tuple[dict[str, str], ...]:
    with (folder / "MANIFEST.tsv").open(newline="", encoding="utf-8") as handle:
        return tuple(csv.DictReader(handle, delimiter="\t"))


PLACEHOLDER = "no-corpus"
"""The id of the one parameter a corpus test gets without the corpus."""


def params(values: Iterable[Any], ids: Iterable[str] | None = None) -> list[Any]:
    """`values` as pytest parameters, or one placeholder (value None, id ``no-corpus``) when
    there are none, so that the test is collected and its corpus fixture skips it (or fails
    it under CI) instead of pytest skipping an empty parameter set silently."""
    import pytest

    values = list(values)
    names = list(ids) if ids is not None else [str(v) for v in values]
    if not values:
        return [pytest.param(None, id=PLACEHOLDER)]
    return [pytest.param(v, id=i) for v, i in zip(values, names, strict=True)]
