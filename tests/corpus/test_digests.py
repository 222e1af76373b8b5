"""What a compile produces over a few real documents is byte for byte what it produced when
`digests.json` was recorded: every `Function.output` and the tool lists of several dialects.

A change made for speed must not change a byte of output; one meant to change output
records the digests again, and the diff of `digests.json` shows which documents and modes
moved:

    PYTHONPATH=src:tests python tests/corpus/test_digests.py --update

(the corpus is found as tests/shared.py says: HTTPLLM_SPECS, else ../shared/specs).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import shared

import httpllm

pytestmark = pytest.mark.corpus

DIGESTS = Path(__file__).with_name("digests.json")

DOCUMENTS = (
    "bench/github/api.github.com.json",
    "real/stripe/spec3.yaml",
    "real/openai/openapi.yaml",
    "real/okta/current/management-minimal.yaml",
    "real/figma/openapi.yaml",
    "real/asana/asana_oas.yaml",
    "real/hubspot/mediaBridge.json",
    "real/opensearch/spec/namespaces/_core.yaml",
    "real/azure/compute/resource-manager/Microsoft.Compute/stable/2019-03-01/compute.json",
)
"""Large, recursive (Stripe, HubSpot, OpenSearch), discriminated (Okta, OpenAI, Figma),
readOnly-heavy (Asana) and Swagger 2.0 (Azure) documents."""

MODES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "chatgpt": ("chatgpt", {}, True),
    "chatgpt-reference": ("chatgpt", {"reference": True}, True),
    "chatgpt-strict": ("chatgpt", {"strict": True}, False),
    "claude": ("claude", {}, False),
    "gemini": ("gemini", {}, False),
    "mcp": ("mcp", {}, False),
}
"""name -> (provider, options, whether the outputs are digested too)."""


def _digest(values: Any) -> str:
    """sha256 of each value's JSON text in turn (never one string for all: Stripe's outputs
    are 224 MB of JSON)."""
    digest = hashlib.sha256()
    for value in values:
        digest.update(json.dumps(value, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def measure(folder: Path, document: str, mode: str) -> dict[str, str]:
    """The digests of one document compiled in one mode."""
    provider, options, outputs = MODES[mode]
    app = httpllm.compile(folder / document, provider, allow_outside_root=True, **options)
    found = {
        "tools": _digest(app.tools()),
        "functions": _digest([f.name, f.schema, [x.to_json() for x in f.losses], f.extra]
                             for f in app.functions),
        "report": _digest([[e.to_json() for e in app.errors],
                           [w.to_json() for w in app.warnings], app.cycles]),
    }
    if outputs:
        found["outputs"] = _digest(f.output for f in app.functions)
    return found


CASES = [(d, m) for d in DOCUMENTS for m in MODES]


@pytest.mark.parametrize(("document", "mode"), CASES,
                         ids=[f"{Path(d).parent.name}-{m}" for d, m in CASES])
def test_output_is_unchanged(specs_dir: Path, document: str, mode: str) -> None:
    """The document compiles, in this mode, to exactly the recorded output."""
    recorded = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert measure(specs_dir, document, mode) == recorded[f"{document} {mode}"]


def update() -> None:
    """Record the digests of every case again."""
    folder = shared.require("specs")
    found = {f"{d} {m}": measure(folder, d, m) for d, m in CASES}
    DIGESTS.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit(f"usage: {sys.argv[0]} --update")
    update()
