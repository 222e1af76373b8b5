"""Issue 12's speed targets that need no peer: each dialect against chatgpt, reading every
``Function.output`` against the compile, and the command line from process start to exit.

    python benchmarks/targets.py [--rounds 5] [--spec PATH ...] [--json]
        [--no-dialects] [--no-outputs] [--no-cli]

All figures are CPU seconds (``time.process_time()``; for the command line, the child's
user + system time from ``getrusage``, plus its wall time), medians over ``--rounds``
rounds in which the variants alternate (chatgpt, claude, ..., chatgpt, claude, ...), so
that a machine whose speed drifts over minutes moves every variant alike. Inside the
timers:

- dialects (GitHub's description): ``json.dumps(compile(doc, provider).tools())`` on a
  fresh copy of the parsed document (made, and ``gc.collect()`` run, outside the timer);
  the ratio is each dialect's median over chatgpt's.
- outputs (each ``--spec``, default GitHub's and Stripe's): ``compile(doc, "chatgpt")``,
  then, timed apart, ``[f.output for f in app.functions]`` (the ratio is this over the
  compile), then ``json.dumps`` of that list (Stripe's is 224 MB: most outputs carry the
  same few hundred recursive ``$defs``).
- cli (GitHub's description): ``python -m httpllm compile SPEC -o OUT -q`` in a fresh
  process (OS file cache warm); ``-X importtime``'s total for ``import httpllm`` and for
  the modules that command imports is printed too.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import REPO_ROOT, FreshCopies, github_spec, load_document, specs_root
from httpllm_bench import import_httpllm

DIALECTS: list[tuple[str, dict[str, Any]]] = [
    ("chatgpt", {}), ("chatgpt strict", {"strict": True}), ("claude", {}),
    ("claude strict", {"strict": True}), ("gemini", {}), ("gemini-json", {}),
    ("mistral", {}), ("ollama", {}), ("llama", {}), ("qwen", {}), ("deepseek", {}),
    ("bedrock", {}), ("mcp", {}), ("3.0", {}), ("3.1", {}),
]
"""(label, keyword options): the label's first word is the provider."""


def _cpu(run: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any]:
    gc.collect()
    start = time.process_time()
    out = run(*args, **kwargs)
    return time.process_time() - start, out


def dialects(httpllm: Any, spec: Path, rounds: int) -> dict[str, Any]:
    """Median CPU seconds of each dialect's compile + tools + dumps, alternating."""
    copies = FreshCopies(load_document(spec))
    times: dict[str, list[float]] = {label: [] for label, _ in DIALECTS}
    for turn in range(rounds + 1):  # the first round warms up
        for label, options in DIALECTS:
            doc = copies.get()
            provider = label.split()[0]
            spent, _ = _cpu(lambda d, p, o: json.dumps(httpllm.compile(d, p, **o).tools()),
                            doc, provider, options)
            if turn:
                times[label].append(spent)
            del doc
    base = statistics.median(times["chatgpt"])
    return {label: {"median_s": statistics.median(ts), "ratio": statistics.median(ts) / base,
                    "times_s": ts} for label, ts in times.items()}


def outputs(httpllm: Any, spec: Path, rounds: int) -> dict[str, Any]:
    """Median CPU seconds of a chatgpt compile, of reading every output after it, and of
    serializing those outputs."""
    copies = FreshCopies(load_document(spec))
    compiled: list[float] = []
    read: list[float] = []
    dumped: list[float] = []
    size = 0
    for turn in range(rounds + 1):
        doc = copies.get()
        spent, app = _cpu(httpllm.compile, doc, "chatgpt")
        start = time.process_time()
        found = [f.output for f in app.functions]
        middle = time.process_time()
        size = len(json.dumps(found))
        if turn:
            compiled.append(spent)
            read.append(middle - start)
            dumped.append(time.process_time() - middle)
        del app, doc, found
    c, r = statistics.median(compiled), statistics.median(read)
    return {"compile_s": c, "outputs_s": r, "ratio": r / c,
            "dumps_s": statistics.median(dumped), "json_bytes": size}


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _imported(text: str) -> float:
    """Seconds of every top-level import in ``-X importtime`` output (cumulative column of
    the lines not indented under another module)."""
    total = 0
    for line in text.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            if cumulative.strip().isdigit() and not name[1:].startswith(" "):
                total += int(cumulative)
    return total / 1e6


def cli(spec: Path, rounds: int) -> dict[str, Any]:
    """The command line from process start to exit: wall and CPU seconds, medians."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    walls: list[float] = []
    cpus: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "out.json")
        command = [sys.executable, "-m", "httpllm", "compile", str(spec), "-o", out, "-q"]
        for turn in range(rounds + 1):
            before, start = _child_cpu(), time.perf_counter()
            subprocess.run(command, env=env, check=True)
            if turn:
                walls.append(time.perf_counter() - start)
                cpus.append(_child_cpu() - before)
        imports = {}
        for label, code in (("import httpllm", ["-c", "import httpllm"]),
                            ("compile command", command[1:])):
            proc = subprocess.run([sys.executable, "-X", "importtime", *code], env=env,
                                  capture_output=True, text=True, check=True)
            imports[label] = _imported(proc.stderr)
    return {"wall_s": statistics.median(walls), "wall_min_s": min(walls),
            "cpu_s": statistics.median(cpus), "imports_s": imports}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--spec", type=Path, action="append", default=None,
                    help="documents for the outputs row (default: GitHub's and Stripe's)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    ap.add_argument("--no-dialects", dest="dialects", action="store_false")
    ap.add_argument("--no-outputs", dest="outputs", action="store_false")
    ap.add_argument("--no-cli", dest="cli", action="store_false")
    args = ap.parse_args(argv)
    httpllm = import_httpllm()
    gh = github_spec()
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                              "rounds": args.rounds}
    if args.dialects:
        report["dialects"] = dialects(httpllm, gh, args.rounds)
    if args.outputs:
        specs = args.spec or [gh, specs_root() / "real/stripe/spec3.yaml"]
        report["outputs"] = {s.name: outputs(httpllm, s, args.rounds) for s in specs}
    if args.cli:
        report["cli"] = cli(gh, args.rounds)
    if args.json:
        print(json.dumps(report))
        return 0
    for label, row in report.get("dialects", {}).items():
        print(f"dialect {label:16} {row['median_s'] * 1e3:7.1f} ms cpu  "
              f"{row['ratio']:.2f}x chatgpt")
    for name, row in report.get("outputs", {}).items():
        print(f"outputs {name:22} compile {row['compile_s'] * 1e3:6.1f} ms  outputs "
              f"{row['outputs_s'] * 1e3:6.1f} ms  {row['ratio']:.2f}x the compile; "
              f"json.dumps of them {row['dumps_s'] * 1e3:.0f} ms, {row['json_bytes'] / 1e6:.1f} MB")
    if "cli" in report:
        row = report["cli"]
        print(f"cli     compile GitHub -o -q  wall {row['wall_s']:.3f} s (min "
              f"{row['wall_min_s']:.3f})  cpu {row['cpu_s']:.3f} s")
        for label, seconds in row["imports_s"].items():
            print(f"import  {label:22} {seconds * 1e3:.0f} ms (-X importtime)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
