"""The summary line that ends a compile."""

from __future__ import annotations

from pathlib import Path

import pytest

from httpllm.cli import main

PETSTORE = str(Path(__file__).resolve().parents[2] / "specs" / "petstore-3.0.yaml")


def test_tokens_are_counted_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    """`--tokens` adds the tool list's token total, marked `~` where the tokenizer only
    approximates the provider's, and the count grows with the tools."""
    assert main(["compile", PETSTORE, "--provider", "claude", "--tokens"]) == 0
    err = capsys.readouterr().err
    assert "tokens (~o200k_base)" in err
    one = main(["compile", PETSTORE, "--provider", "chatgpt", "--tokens", "--include",
                "listPets"])
    assert one == 0
    few = capsys.readouterr().err
    total_all = int(err.split(" tokens")[0].rsplit("; ", 1)[1].replace(",", ""))
    total_one = int(few.split(" tokens")[0].rsplit("; ", 1)[1].replace(",", ""))
    assert "(o200k_base)" in few and 0 < total_one < total_all
