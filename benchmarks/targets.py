"""Issue 12's speed targets that need no peer: each dialect against chatgpt, reading every
``Function.output`` against the compile, and the command line from process start to exit.

    python benchmarks/targets.py [--rounds 5] [--spec PATH ...] [--json]
        [--no-dialects] [--no-outputs] [--no-cli]
    python benchmarks/targets.py --table [--rounds 3] [--runs 3] [--no-samchon]
        [--no-fastmcp]

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

``--table`` prints one markdown table instead, every row from the same alternating rounds
on GitHub's description: each round runs every dialect once (in this process), then the
peers in their own processes (``@samchon/openapi`` ``reference: false`` up to
``JSON.stringify``: ``benchmarks/peers/samchon/bench.mjs --runs N``; FastMCP ``tools``:
``peers/fastmcp_bench.py --runs N`` with ``$HTTPLLM_FASTMCP_PYTHON``), then the command
line once. A peer's ratio is httpllm chatgpt's CPU median over the peer's (each peer
process's median of its ``--runs``, then the median over rounds), with each round's own
ratio and the wall ratio beside it.
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
from _util import (
    BENCH_DIR,
    REPO_ROOT,
    FreshCopies,
    github_spec,
    iter_json_lines,
    load_document,
    specs_root,
)
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


def _dialect_round(httpllm: Any, copies: FreshCopies) -> dict[str, float]:
    """CPU seconds of each dialect's compile + tools + dumps, once each, in turn."""
    spent_by: dict[str, float] = {}
    for label, options in DIALECTS:
        doc = copies.get()
        provider = label.split()[0]
        spent, _ = _cpu(lambda d, p, o: json.dumps(httpllm.compile(d, p, **o).tools()),
                        doc, provider, options)
        spent_by[label] = spent
        del doc
    return spent_by


def _dialect_rows(times: dict[str, list[float]]) -> dict[str, Any]:
    base = statistics.median(times["chatgpt"])
    return {label: {"median_s": statistics.median(ts), "ratio": statistics.median(ts) / base,
                    "times_s": ts} for label, ts in times.items()}


def dialects(httpllm: Any, spec: Path, rounds: int) -> dict[str, Any]:
    """Median CPU seconds of each dialect's compile + tools + dumps, alternating."""
    copies = FreshCopies(load_document(spec))
    times: dict[str, list[float]] = {label: [] for label, _ in DIALECTS}
    for turn in range(rounds + 1):  # the first round warms up
        for label, spent in _dialect_round(httpllm, copies).items():
            if turn:
                times[label].append(spent)
    return _dialect_rows(times)


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


def _cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}


def _cli_command(spec: Path, out: str) -> list[str]:
    return [sys.executable, "-m", "httpllm", "compile", str(spec), "-o", out, "-q"]


def _cli_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of the command line, start to exit."""
    before, start = _child_cpu(), time.perf_counter()
    subprocess.run(command, env=env, check=True)
    return time.perf_counter() - start, _child_cpu() - before


def cli(spec: Path, rounds: int) -> dict[str, Any]:
    """The command line from process start to exit: wall and CPU seconds, medians."""
    env = _cli_env()
    walls: list[float] = []
    cpus: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        command = _cli_command(spec, str(Path(folder) / "out.json"))
        for turn in range(rounds + 1):
            wall, cpu = _cli_once(command, env)
            if turn:
                walls.append(wall)
                cpus.append(cpu)
        imports = {}
        for label, code in (("import httpllm", ["-c", "import httpllm"]),
                            ("compile command", command[1:])):
            proc = subprocess.run([sys.executable, "-X", "importtime", *code], env=env,
                                  capture_output=True, text=True, check=True)
            imports[label] = _imported(proc.stderr)
    return {"wall_s": statistics.median(walls), "wall_min_s": min(walls),
            "cpu_s": statistics.median(cpus), "imports_s": imports}


SAMCHON = BENCH_DIR / "peers" / "samchon"
FASTMCP_PY = os.environ.get("HTTPLLM_FASTMCP_PYTHON", sys.executable)
"""The Python that has fastmcp (as in ``run.py``)."""


def _peer(command: list[str], cpu_key: str, wall_key: str) -> tuple[float, float] | str:
    """``(cpu, wall)`` medians from a peer's last JSON line, or why there are none."""
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    lines = [d for d in iter_json_lines(proc.stdout) if d.get("status") != "partial"]
    if not lines:
        return f"no result (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"
    last = lines[-1]
    if last.get("status", "ok") != "ok":
        return str(last.get("status"))
    return float(last[cpu_key]), float(last[wall_key])


def _samchon(spec: Path, runs: int) -> tuple[float, float] | str:
    if not (SAMCHON / "node_modules" / "@samchon" / "openapi").is_dir():
        return "skipped: run benchmarks/peers/samchon/setup.sh"
    return _peer(["node", "--expose-gc", str(SAMCHON / "bench.mjs"), str(spec),
                  "--reference", "false", "--runs", str(runs)],
                 "median_cpu_s_with_serialize", "median_s_with_serialize")


def _fastmcp(spec: Path, runs: int) -> tuple[float, float] | str:
    return _peer([FASTMCP_PY, str(BENCH_DIR / "peers" / "fastmcp_bench.py"), str(spec),
                  "--variant", "tools", "--runs", str(runs)], "median_cpu_s", "median_s")


def table(httpllm: Any, spec: Path, rounds: int, runs: int, *, samchon: bool = True,
          fastmcp: bool = True) -> dict[str, Any]:
    """Every target in alternating rounds: the dialects (after one warm-up round), each
    peer in a process of its own (``runs`` runs), the command line once."""
    copies = FreshCopies(load_document(spec))
    _dialect_round(httpllm, copies)  # warm-up
    times: dict[str, list[float]] = {label: [] for label, _ in DIALECTS}
    peers: dict[str, dict[str, list[float]]] = {}
    notes: dict[str, str] = {}
    wanted = [(name, measure) for name, measure, on in
              (("samchon", _samchon, samchon), ("fastmcp", _fastmcp, fastmcp)) if on]
    env = _cli_env()
    cli_cpu: list[float] = []
    cli_wall: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        command = _cli_command(spec, str(Path(folder) / "out.json"))
        _cli_once(command, env)  # warm-up (OS file cache, bytecode)
        for turn in range(rounds):
            chatgpt_round = []
            for label, spent in _dialect_round(httpllm, copies).items():
                times[label].append(spent)
                if label == "chatgpt":
                    chatgpt_round.append(spent)
            for name, measure in wanted:
                if name in notes:
                    continue
                found = measure(spec, runs)
                if isinstance(found, str):
                    notes[name] = found
                    continue
                row = peers.setdefault(name, {"cpu": [], "wall": [], "ratio": []})
                row["cpu"].append(found[0])
                row["wall"].append(found[1])
                row["ratio"].append(chatgpt_round[0] / found[0])
            wall, cpu = _cli_once(command, env)
            cli_wall.append(wall)
            cli_cpu.append(cpu)
            print(f"[table] round {turn + 1}/{rounds} done", file=sys.stderr)
    rows = _dialect_rows(times)
    return {"dialects": rows, "peers": peers, "notes": notes,
            "cli": {"cpu_s": statistics.median(cli_cpu), "wall_s": statistics.median(cli_wall),
                    "cpu_times_s": cli_cpu}}


def print_table(report: dict[str, Any]) -> None:
    """The ``--table`` result as markdown."""
    rows = report["dialects"]
    base = rows["chatgpt"]["median_s"]
    print("| target | httpllm | other | ratio | per round |")
    print("| --- | ---: | ---: | ---: | --- |")
    labels = {"samchon": "chatgpt vs @samchon/openapi `reference: false` to-json "
                         "(<= 0.10x)",
              "fastmcp": "chatgpt vs FastMCP `tools` (<= 0.10x: 10x faster)"}
    for name, row in report["peers"].items():
        cpu, wall = statistics.median(row["cpu"]), statistics.median(row["wall"])
        rounds = " / ".join(f"{r:.3f}" for r in row["ratio"])
        print(f"| {labels[name]} | {base * 1e3:.0f} ms CPU | {cpu * 1e3:.0f} ms CPU "
              f"({wall * 1e3:.0f} wall) | **{base / cpu:.3f}** | {rounds} |")
    for name, why in report["notes"].items():
        print(f"| chatgpt vs {name} | {base * 1e3:.0f} ms CPU | {why} | | |")
    for label, row in rows.items():
        if label == "chatgpt":
            continue
        ratios = [t / c for t, c in zip(row["times_s"], rows["chatgpt"]["times_s"],
                                        strict=True)]
        print(f"| {label} vs chatgpt (<= 1.5x) | {row['median_s'] * 1e3:.0f} ms CPU | "
              f"{base * 1e3:.0f} ms CPU | **{row['ratio']:.2f}** | "
              f"{' / '.join(f'{r:.2f}' for r in ratios)} |")
    cli_row = report["cli"]
    print(f"| `httpllm compile github.json -o out.json -q`, start to exit (< 1 s) | "
          f"{cli_row['cpu_s']:.3f} s CPU ({cli_row['wall_s']:.3f} wall) | | | "
          f"{' / '.join(f'{t:.3f}' for t in cli_row['cpu_times_s'])} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--spec", type=Path, action="append", default=None,
                    help="documents for the outputs row (default: GitHub's and Stripe's)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    ap.add_argument("--no-dialects", dest="dialects", action="store_false")
    ap.add_argument("--no-outputs", dest="outputs", action="store_false")
    ap.add_argument("--no-cli", dest="cli", action="store_false")
    ap.add_argument("--table", action="store_true",
                    help="one markdown table: peers, dialects and the command line, "
                         "alternating (GitHub's description)")
    ap.add_argument("--runs", type=int, default=3, help="--table: timed runs per peer process")
    ap.add_argument("--no-samchon", dest="samchon", action="store_false")
    ap.add_argument("--no-fastmcp", dest="fastmcp", action="store_false")
    args = ap.parse_args(argv)
    httpllm = import_httpllm()
    gh = github_spec()
    if args.table:
        found = table(httpllm, gh, args.rounds, args.runs, samchon=args.samchon,
                      fastmcp=args.fastmcp)
        if args.json:
            print(json.dumps(found))
        else:
            print_table(found)
        return 0
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
