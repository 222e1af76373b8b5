"""What the cyclic garbage collector costs a compile, measured alternately in one process.

    python benchmarks/gc_cost.py [--spec PATH] [--rounds 6] [--provider chatgpt] [--json]

Each round runs, in alternating order, once with the collector paused around the timed
work (``gc.disable()`` ... ``gc.enable()``, what ``httpllm`` itself no longer does) and once
with it running, on a fresh copy of the parsed document made (and ``gc.collect()`` run)
before the clock starts. Timed (CPU time, ``time.process_time``):

- ``compile``: ``httpllm.compile(doc, provider)`` -> ``app.tools()`` -> ``json.dumps``;
- ``outputs``: then ``json.dumps([f.output for f in app.functions])`` (response schemas
  are computed on first read).

Also counted with ``gc.callbacks`` while the collector runs: collections per generation,
the objects they found unreachable (a reference cycle the compile left to the collector)
and the CPU time spent inside them. Medians and minimums over the rounds.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import FreshCopies, github_spec, load_document
from httpllm_bench import import_httpllm


class _Collections:
    """``gc.callbacks`` hook: collections per generation, time inside them, objects freed."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.collected = 0
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
            return
        self.seconds += time.process_time() - self._started
        self.count[info["generation"]] += 1
        self.collected += info["collected"]


def _one(httpllm: Any, doc: Any, provider: str, paused: bool) -> dict[str, Any]:
    gc.collect()
    seen = _Collections()
    gc.callbacks.append(seen)
    try:
        if paused:
            gc.disable()
        c0 = time.process_time()
        app = httpllm.compile(doc, provider)
        text = json.dumps(app.tools())
        c1 = time.process_time()
        text += json.dumps([f.output for f in app.functions])
        c2 = time.process_time()
    finally:
        gc.enable()
        gc.callbacks.remove(seen)
    return {"compile_cpu_s": c1 - c0, "outputs_cpu_s": c2 - c0, "bytes": len(text),
            "collections": seen.count, "collected": seen.collected,
            "gc_s": seen.seconds}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", type=Path, default=None, help="default: GitHub's description")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--provider", default="chatgpt")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = ap.parse_args(argv)
    spec = args.spec or github_spec()
    httpllm = import_httpllm()
    copies = FreshCopies(load_document(spec))
    _one(httpllm, copies.get(), args.provider, paused=False)  # warm-up: imports, caches
    runs: dict[str, list[dict[str, Any]]] = {"paused": [], "running": []}
    for i in range(args.rounds):
        order = ("paused", "running") if i % 2 == 0 else ("running", "paused")
        for mode in order:
            doc = copies.get()
            runs[mode].append(_one(httpllm, doc, args.provider, paused=mode == "paused"))
            del doc
    summary: dict[str, Any] = {"spec": str(spec), "provider": args.provider,
                               "rounds": args.rounds}
    for mode, rows in runs.items():
        for key in ("compile_cpu_s", "outputs_cpu_s", "gc_s"):
            values = [r[key] for r in rows]
            summary[f"{mode}_{key}_median"] = statistics.median(values)
            summary[f"{mode}_{key}_min"] = min(values)
        summary[f"{mode}_collections"] = rows[-1]["collections"]
        summary[f"{mode}_collected"] = rows[-1]["collected"]
    if len({r["bytes"] for rows in runs.values() for r in rows}) != 1:
        print("warning: the runs' outputs differ in size", file=sys.stderr)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"spec      {spec} ({args.provider}, {args.rounds} alternating rounds, CPU time)")
    for mode in ("paused", "running"):
        print(f"{mode:8}  compile+tools {summary[f'{mode}_compile_cpu_s_median'] * 1e3:7.1f} ms "
              f"(min {summary[f'{mode}_compile_cpu_s_min'] * 1e3:.1f})   "
              f"+ every output {summary[f'{mode}_outputs_cpu_s_median'] * 1e3:7.1f} ms "
              f"(min {summary[f'{mode}_outputs_cpu_s_min'] * 1e3:.1f})   "
              f"in gc {summary[f'{mode}_gc_s_median'] * 1e3:6.1f} ms, collections "
              f"{summary[f'{mode}_collections']}, unreachable found "
              f"{summary[f'{mode}_collected']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
