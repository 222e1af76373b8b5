"""`httpllm compile`: what the loss report (`--losses`) holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from httpllm.cli import main


def test_losses_name_a_renamed_operation_id(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """An operationId compile renames is in `--losses` with its operation's pointer."""
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "日本語",
                                 "responses": {"200": {"description": "ok"}}}}}}),
        encoding="utf-8")
    assert main(["compile", str(spec), "--losses"]) == 0
    [loss] = json.loads(capsys.readouterr().out)
    assert loss["function"] == "get__a" and loss["value"] == "日本語"
    assert loss["pointer"] == "#/paths/~1a/get/operationId"
    assert (loss["keyword"], loss["action"]) == ("operationId", "renamed")
