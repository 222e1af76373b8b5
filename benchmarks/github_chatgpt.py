"""Compile GitHub's REST description for chatgpt and report time, counts and memory.

    python benchmarks/github_chatgpt.py [--runs 7] [--reference] [--json]

Timed per run: httpllm.compile(doc, "chatgpt") -> app.tools() -> json.dumps(...), where
`doc` is a fresh deep copy of the already-parsed document made (and gc.collect() run)
before the clock starts. Median of --runs runs after one untimed warm-up.
Memory: tracemalloc peak of one extra, untimed run (the input document not counted),
and the process's peak RSS (document and copies included).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import (
    FreshCopies,
    count_operations,
    github_spec,
    load_document,
    peak_rss_bytes,
    time_runs,
    traced_peak_bytes,
)
from httpllm_bench import import_httpllm


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", type=Path, default=None, help="default: GitHub's description")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--reference", action="store_true")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = ap.parse_args(argv)
    spec = args.spec or github_spec()

    httpllm = import_httpllm()
    if not hasattr(httpllm, "compile"):
        print("httpllm.compile is not available yet", file=sys.stderr)
        return 1
    doc = load_document(spec)
    n_ops = count_operations(doc)
    copies = FreshCopies(doc)
    del doc

    def run(d: Any) -> Any:
        app = httpllm.compile(d, "chatgpt", reference=args.reference)
        return app, json.dumps(app.tools())

    timing, (app, text) = time_runs(copies.get, run, runs=args.runs, warmup=1, budget_s=600)
    traced = traced_peak_bytes(copies.get, run)
    result = {
        "spec": str(spec),
        "operations": n_ops,
        "reference": args.reference,
        "runs": len(timing.times_s),
        "median_s": timing.median_s,
        "min_s": timing.min_s,
        "median_cpu_s": timing.median_cpu_s,
        "functions": len(app.functions),
        "errors": len(app.errors),
        "tools_json_bytes": len(text.encode()),
        "tracemalloc_peak_bytes": traced,
        "peak_rss_bytes": peak_rss_bytes(),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    mib = 1024 * 1024
    print(f"spec            {spec} ({n_ops} operations)")
    print(
        f"median          {timing.median_s * 1e3:.1f} ms over {len(timing.times_s)} runs "
        f"(min {timing.min_s * 1e3:.1f} ms, CPU {timing.median_cpu_s * 1e3:.1f} ms)"
    )
    print(f"functions       {result['functions']}")
    print(f"errors          {result['errors']}")
    print(f"tools JSON      {result['tools_json_bytes'] / mib:.2f} MiB")
    print(f"alloc peak      {traced / mib:.1f} MiB (tracemalloc, one run, input excluded)")
    print(f"peak RSS        {result['peak_rss_bytes'] / mib:.1f} MiB (whole process)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
