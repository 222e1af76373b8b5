"""One record for every safety limit: `httpllm.Limits`."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import httpllm
from httpllm._limits import DEFAULT_LIMITS, PER_COMPILE, Limits

SRC = Path(__file__).resolve().parents[1] / "src" / "httpllm"
PETSTORE = Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml"


def test_one_record_for_every_limit() -> None:
    """The record is the only home of a safety limit: no module keeps a MAX_DEPTH or
    MAX_NODES of its own (three of each clashed, 512/200/512 and 2,000,000/500,000/
    100,000), and the loader's `Limits` is this one."""
    from httpllm import load

    assert load.Limits is Limits is httpllm.Limits and load.DEFAULT_LIMITS is DEFAULT_LIMITS
    clashing = re.compile(r"^(MAX_DEPTH|MAX_NODES|MAX_STATES)\s*=", re.MULTILINE)
    assert [p.name for p in SRC.rglob("*.py") if clashing.search(p.read_text())] == []
    names = {f.name for f in dataclasses.fields(Limits)}
    assert names >= PER_COMPILE


def test_a_compile_refuses_a_limit_it_cannot_apply() -> None:
    """A process-wide limit changed for one compile is an OptionError naming it and the
    ones a compile takes, never a value silently ignored."""
    with pytest.raises(httpllm.OptionError, match="walk_depth cannot be set") as caught:
        httpllm.compile(str(PETSTORE), limits=Limits(walk_depth=10))
    assert caught.value.option == "limits" and "parameters_depth" in str(caught.value)


def test_the_document_limits_apply_per_compile() -> None:
    """`max_bytes` of the compile's limits bounds the file read."""
    with pytest.raises(httpllm.LimitExceeded, match="larger than"):
        httpllm.compile(str(PETSTORE), limits=Limits(max_bytes=100))
    assert httpllm.compile(str(PETSTORE), limits=Limits(max_bytes=10**6)).functions
