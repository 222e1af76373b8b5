"""httpllm benchmark harness: httpllm side by side with its peers.

    python benchmarks/run.py [--quick] [--json out.json] [--no-httpllm] [--no-peers] ...

Every measurement runs in a fresh subprocess (so peak-memory figures never mix) with a
hard timeout, sequentially (the machine has 2 cores; parallel runs would skew timings).
Each reports the median of N timed runs after 1 untimed warm-up. With ``--rounds R`` the
whole list of timed measurements runs R times over (round-robin), and each row pools the
runs of its R subprocesses: on a shared machine whose speed drifts over minutes, every
tool is then sampled across the same stretch of time instead of its own few seconds. See
benchmarks/README.md for what exactly sits inside each timer.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import (
    BENCH_DIR,
    github_spec,
    iter_json_lines,
    largest_real_specs,
    specs_root,
)

PY = sys.executable
FASTMCP_PY = os.environ.get("HTTPLLM_FASTMCP_PYTHON", sys.executable)
"""The Python that has fastmcp (its pins may clash with the test extras: a venv of its own)."""
HTTPLLM_BENCH = BENCH_DIR / "httpllm_bench.py"
FASTMCP_BENCH = BENCH_DIR / "peers" / "fastmcp_bench.py"
SAMCHON_DIR = BENCH_DIR / "peers" / "samchon"
MIB = 1024 * 1024

# (variant label, extra httpllm_bench.py arguments)
HTTPLLM_VARIANTS: list[tuple[str, list[str]]] = [
    ("chatgpt ref=off dict", ["--provider", "chatgpt"]),
    ("chatgpt ref=on dict", ["--provider", "chatgpt", "--reference"]),
    ("chatgpt strict dict", ["--provider", "chatgpt", "--strict"]),
    ("chatgpt +outputs dict", ["--provider", "chatgpt", "--outputs"]),
    ("gemini dict", ["--provider", "gemini"]),
    ("chatgpt ref=off file", ["--provider", "chatgpt", "--source", "file"]),
    ("load only (parse)", ["--mode", "load"]),
]
BASELINE = "chatgpt ref=off dict"
# (label, httpllm variant, peer tool, peer variant)
PAIRS: list[tuple[str, str, str, str]] = [
    ("vs samchon ref=off", BASELINE, "samchon", "ref=off"),
    ("vs samchon ref=on", "chatgpt ref=on dict", "samchon", "ref=on"),
    ("vs fastmcp tools", BASELINE, "fastmcp", "tools"),
    ("vs fastmcp routes", BASELINE, "fastmcp", "routes"),
]


@dataclass
class Job:
    spec: Path
    tool: str
    variant: str
    cmd: list[str]
    group: str = "main"
    extra: dict[str, Any] = field(default_factory=dict)


TIMED_GROUPS = frozenset({"main", "scaling", "selection"})
"""Groups whose jobs run again in every round (tracemalloc jobs run once)."""

# (list of runs, its median) pooled across rounds
_POOLED = (
    ("times_s", "median_s"),
    ("cpu_s", "median_cpu_s"),
    ("times_with_serialize_s", "median_s_with_serialize"),
    ("cpu_with_serialize_s", "median_cpu_s_with_serialize"),
)


def merge_rounds(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One result from the same job's results of several rounds.

    The timed runs of the rounds that finished are pooled (medians and minimum over all of
    them; peak RSS the highest); ``round_medians_s`` keeps each round's own median
    (``None`` for a round that failed, listed in ``failed_rounds``). A job that failed in
    its first round was not run again: its failure record is the result.
    """
    ok = [r for r in rows if r.get("status") == "ok" and r.get("times_s")]
    if len(rows) == 1 or not ok:
        return rows[-1]
    out = dict(ok[-1])
    for runs_key, median_key in _POOLED:
        if all(isinstance(r.get(runs_key), list) and r[runs_key] for r in ok):
            pooled = [float(t) for r in ok for t in r[runs_key]]
            out[runs_key] = pooled
            out[median_key] = statistics.median(pooled)
    out["min_s"] = min(out["times_s"])
    out["runs"] = len(out["times_s"])
    out["rounds"] = len(ok)
    out["round_medians_s"] = [r.get("median_s_with_serialize", r.get("median_s"))
                              if r in ok else None for r in rows]
    out["peak_rss_bytes"] = max(int(r.get("peak_rss_bytes") or 0) for r in ok)
    out["budget_truncated"] = any(bool(r.get("budget_truncated")) for r in ok)
    out["wall_s"] = sum(float(r.get("wall_s") or 0.0) for r in ok)
    failed = [r for r in rows if r not in ok]
    if failed:
        out["failed_rounds"] = [str(r.get("error", r.get("status"))) for r in failed]
    return out


def spec_label(path: Path) -> str:
    root = specs_root()
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        return path.stem
    parts = rel.parts
    if parts[0] == "bench":
        return parts[1]
    return parts[1] if parts[0] == "real" and len(parts) > 2 else rel.stem


def run_job(job: Job, timeout: float) -> dict[str, Any]:
    """Run one measurement subprocess; return its JSON result (or a failure record)."""
    base: dict[str, Any] = {
        "spec": str(job.spec),
        "spec_label": spec_label(job.spec),
        "tool": job.tool,
        "variant": job.variant,
        "group": job.group,
        **job.extra,
    }
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            job.cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=BENCH_DIR.parent,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return timeout_record(base, exc, timeout)
    wall = time.perf_counter() - started
    results = list(iter_json_lines(proc.stdout))
    if not results:
        err = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        return {**base, "status": "error", "error": " | ".join(err), "returncode": proc.returncode}
    out = {**results[-1], **base, "wall_s": wall}
    out.setdefault("status", "ok")
    return out


def timeout_record(
    base: dict[str, Any], exc: subprocess.TimeoutExpired, timeout: float
) -> dict[str, Any]:
    """A killed measurement: keep what its last "partial" line said."""
    raw = exc.stdout or b""
    text = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
    partial = [r for r in iter_json_lines(text) if r.get("status") == "partial"]
    out: dict[str, Any] = {**base, "status": "timeout"}
    msg = f"killed after {timeout:.0f} s"
    if partial:
        last = partial[-1]
        times = [float(t) for t in last.get("times_s") or []]
        warm = [float(t) for t in last.get("warmup_s") or []]
        out.update(warmup_s=warm, times_s=times, partial=True)
        if times:
            out.update(median_s=statistics.median(times), min_s=min(times), runs=len(times))
            msg += f" after {len(times)} timed run(s)"
        elif warm:
            msg += f"; warm-up run took {warm[-1]:.1f} s"
    else:
        msg += " before the first run finished"
    out["error"] = msg
    return out


def ensure_samchon(timeout: float) -> str | None:
    """None when samchon can run, else the reason it is skipped."""
    if shutil.which("node") is None:
        return "node not found"
    if not (SAMCHON_DIR / "node_modules" / "@samchon" / "openapi").is_dir():
        print("[setup] installing @samchon/openapi (peers/samchon/setup.sh)", file=sys.stderr)
        try:
            proc = subprocess.run(
                ["bash", str(SAMCHON_DIR / "setup.sh")],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "setup.sh timed out"
        if proc.returncode != 0:
            return f"setup.sh failed: {proc.stderr.strip()[-300:]}"
    return None


def httpllm_jobs(specs: list[Path], common: list[str]) -> list[Job]:
    return [
        Job(spec, "httpllm", label, [PY, str(HTTPLLM_BENCH), str(spec), *args, *common])
        for spec in specs
        for label, args in HTTPLLM_VARIANTS
    ]


def fastmcp_jobs(specs: list[Path], common: list[str]) -> list[Job]:
    return [
        Job(spec, "fastmcp", v,
            [FASTMCP_PY, str(FASTMCP_BENCH), str(spec), "--variant", v, *common])
        for spec in specs
        for v in ("routes", "tools")
    ]


def samchon_jobs(specs: list[Path], runs: int, budget: float) -> list[Job]:
    script = SAMCHON_DIR / "bench.mjs"
    return [
        Job(
            spec,
            "samchon",
            f"ref={'on' if ref else 'off'}",
            [
                "node",
                "--expose-gc",
                str(script),
                str(spec),
                "--reference",
                "true" if ref else "false",
                "--runs",
                str(runs),
                "--budget",
                str(budget),
                "--model",
                "chatgpt",
            ],
        )
        for spec in specs
        for ref in (False, True)
    ]


def trace_jobs(specs: list[Path], args: argparse.Namespace) -> list[Job]:
    jobs: list[Job] = []
    for spec in specs:
        if args.httpllm:
            jobs.append(
                Job(
                    spec,
                    "httpllm",
                    BASELINE,
                    [PY, str(HTTPLLM_BENCH), str(spec), "--mode", "trace"],
                    "trace",
                )
            )
        if args.fastmcp:
            for v in ("routes", "tools"):
                jobs.append(
                    Job(
                        spec,
                        "fastmcp",
                        v,
                        [FASTMCP_PY, str(FASTMCP_BENCH), str(spec), "--variant", v, "--mode",
                         "trace"],
                        "trace",
                    )
                )
    return jobs


def scaling_jobs(spec: Path, factors: list[int], common: list[str], trace: bool) -> list[Job]:
    jobs: list[Job] = []
    for k in factors:
        cmd = [PY, str(HTTPLLM_BENCH), str(spec), "--repeat", str(k)]
        jobs.append(
            Job(spec, "httpllm", f"{BASELINE} x{k}", [*cmd, *common], "scaling", {"repeat": k})
        )
        if trace:
            jobs.append(
                Job(
                    spec,
                    "httpllm",
                    f"{BASELINE} x{k}",
                    [*cmd, "--mode", "trace"],
                    "scaling-trace",
                    {"repeat": k},
                )
            )
    return jobs


def selection_jobs(spec: Path, n: int, common: list[str]) -> list[Job]:
    cmd = [PY, str(HTTPLLM_BENCH), str(spec), "--include-n", str(n), *common]
    return [Job(spec, "httpllm", f"{BASELINE} include={n}", cmd, "selection", {"include_n": n})]


def fmt_s(v: Any) -> str:
    """Seconds shown as milliseconds."""
    return f"{v * 1e3:.1f}" if isinstance(v, (int, float)) else "-"


def fmt_mib(v: Any) -> str:
    return f"{v / MIB:.1f}" if isinstance(v, (int, float)) and v else "-"


def fmt_n(v: Any) -> str:
    return str(v) if isinstance(v, int) else "-"


def like_for_like_s(r: dict[str, Any], kind: str = "median_s") -> float | None:
    """Median seconds up to a serialized tool list when the tool produces one.

    kind is "median_s" (wall) or "median_cpu_s" (process CPU time).
    """
    if r.get("status") != "ok":
        return None
    v = r.get(f"{kind}_with_serialize", r.get(kind))
    return float(v) if isinstance(v, (int, float)) else None


def print_table(headers: list[str], rows: Iterable[list[str]]) -> None:
    rows = list(rows)
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print()


def main_rows(results: list[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for r in results:
        if r["group"] != "main":
            continue
        status = r.get("status", "?")
        if status != "ok":
            status = f"{status}: {str(r.get('error', ''))[:60]}"
        rows.append(
            [
                r["spec_label"],
                r["tool"],
                r["variant"],
                fmt_s(r.get("median_s")),
                fmt_s(like_for_like_s(r)),
                fmt_s(r.get("min_s")),
                fmt_s(like_for_like_s(r, "median_cpu_s")),
                fmt_n(r.get("runs")),
                fmt_n(r.get("functions")),
                fmt_n(r.get("errors")),
                fmt_mib(r.get("peak_rss_bytes")),
                fmt_mib(r.get("tracemalloc_peak_bytes")),
                status,
            ]
        )
    return rows


def attach_traces(results: list[dict[str, Any]]) -> None:
    """Copy tracemalloc peaks from trace jobs onto the matching timing rows."""

    def target(group: str) -> str:
        return "main" if group == "trace" else group.removesuffix("-trace")

    peaks = {
        (r["spec"], r["tool"], r["variant"], target(r["group"])): r["tracemalloc_peak_bytes"]
        for r in results
        if r["group"].endswith("trace") and r.get("status") == "ok"
    }
    for r in results:
        peak = peaks.get((r["spec"], r["tool"], r["variant"], r["group"]))
        if peak and not r["group"].endswith("trace"):
            r["tracemalloc_peak_bytes"] = peak


def compute_ratios(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    index = {(r["spec"], r["tool"], r["variant"]): r for r in results if r["group"] == "main"}
    ratios = []
    for spec in dict.fromkeys(r["spec"] for r in results if r["group"] == "main"):
        for label, ours, peer_tool, peer_variant in PAIRS:
            a = index.get((spec, "httpllm", ours))
            b = index.get((spec, peer_tool, peer_variant))
            ta = like_for_like_s(a) if a else None
            tb = like_for_like_s(b) if b else None
            ca = like_for_like_s(a, "median_cpu_s") if a else None
            cb = like_for_like_s(b, "median_cpu_s") if b else None
            ratios.append(
                {
                    "spec": spec,
                    "spec_label": (a or b or {"spec_label": spec_label(Path(spec))})["spec_label"],
                    "pair": label,
                    "httpllm_variant": ours,
                    "peer": f"{peer_tool} {peer_variant}",
                    "httpllm_s": ta,
                    "peer_s": tb,
                    "ratio": (ta / tb) if ta and tb else None,
                    "httpllm_cpu_s": ca,
                    "peer_cpu_s": cb,
                    "cpu_ratio": (ca / cb) if ca and cb else None,
                    # round i of ours over round i of the peer (same stretch of time)
                    "round_ratios": [x / y for x, y in zip(
                        (a or {}).get("round_medians_s") or [],
                        (b or {}).get("round_medians_s") or [], strict=False) if x and y],
                }
            )
    return ratios


def print_report(report: dict[str, Any]) -> None:
    results = report["results"]
    rounds = report["meta"].get("rounds", 1)
    pooled = f"; the runs of {rounds} rounds pooled" if rounds > 1 else ""
    print(f"\n== Compile time and memory (median of runs after 1 warm-up{pooled}) ==")
    print(
        "median ms = what that tool's timer covers; to-json ms = up to a serialized tool "
        "list\n(samchon: + JSON.stringify of OpenAI tool objects; fastmcp routes: no "
        "serialization);\nmin ms = fastest run of the timer; cpu ms = median process CPU "
        "time up to the tool list.\nRSS = peak RSS of the measuring process (document included); "
        "alloc = tracemalloc peak\nof one run (Python only, document not included).\n"
    )
    print_table(
        [
            "spec",
            "tool",
            "variant",
            "median ms",
            "to-json ms",
            "min ms",
            "cpu ms",
            "runs",
            "functions",
            "errors",
            "RSS MiB",
            "alloc MiB",
            "status",
        ],
        main_rows(results),
    )
    if report["ratios"]:
        print("== httpllm / peer (to-json times; < 1 means httpllm is faster) ==")
        print_table(
            ["spec", "pair", "httpllm ms", "peer ms", "ratio", "cpu ratio", "per round"],
            [
                [
                    r["spec_label"],
                    r["pair"],
                    fmt_s(r["httpllm_s"]),
                    fmt_s(r["peer_s"]),
                    f"{r['ratio']:.3f}" if r["ratio"] else "-",
                    f"{r['cpu_ratio']:.3f}" if r["cpu_ratio"] else "-",
                    " ".join(f"{x:.3f}" for x in r.get("round_ratios") or []) or "-",
                ]
                for r in report["ratios"]
            ],
        )
    print_scaling(results)
    print_selection(results)


def print_scaling(results: list[dict[str, Any]]) -> None:
    rows = [r for r in results if r["group"] == "scaling"]
    if not rows:
        return
    print("== Scaling: GitHub paths repeated K times (httpllm chatgpt ref=off, dict) ==")
    out = []
    for r in rows:
        ops = r.get("n_operations") or 0
        med = r.get("median_s")
        cpu = r.get("median_cpu_s")
        peak = r.get("tracemalloc_peak_bytes")
        out.append(
            [
                f"x{r['repeat']}",
                fmt_n(ops),
                fmt_s(med),
                f"{med / ops * 1e6:.1f}" if isinstance(med, float) and ops else "-",
                f"{cpu / ops * 1e6:.1f}" if isinstance(cpu, float) and ops else "-",
                fmt_mib(r.get("peak_rss_bytes")),
                fmt_mib(peak),
                f"{peak / ops / 1024:.1f}" if peak and ops else "-",
                r.get("status", "?")
                if r.get("status") == "ok"
                else f"{r.get('status')}: {str(r.get('error', ''))[:50]}",
            ]
        )
    print_table(
        [
            "K",
            "operations",
            "median ms",
            "us/op",
            "cpu us/op",
            "RSS MiB",
            "alloc MiB",
            "alloc KiB/op",
            "status",
        ],
        out,
    )


def print_selection(results: list[dict[str, Any]]) -> None:
    sel = [r for r in results if r["group"] == "selection"]
    if not sel:
        return
    full = next(
        (
            r
            for r in results
            if r["tool"] == "httpllm"
            and r["variant"] in (BASELINE, f"{BASELINE} x1")
            and r["group"] in ("main", "scaling")
            and r["spec"] == sel[0]["spec"]
        ),
        None,
    )
    print("== Selection: include= N operationIds vs the full document (httpllm) ==")
    full_s = like_for_like_s(full) if full else None
    rows = []
    for r in [*sel, *([full] if full else [])]:
        own = like_for_like_s(r)
        rows.append(
            [
                r["variant"],
                fmt_s(r.get("median_s")),
                f"{own / full_s:.3f}" if own and full_s else "-",
                fmt_n(r.get("functions")),
                fmt_n(r.get("errors")),
                r.get("status", "?"),
            ]
        )
    print_table(["variant", "median ms", "of full", "functions", "errors", "status"], rows)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 timed runs instead of 7")
    ap.add_argument("--runs", type=int, default=None, help="timed runs per measurement")
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every timed measurement this many times over, round-robin, and pool "
        "the runs (each round is a fresh subprocess of --runs runs)",
    )
    ap.add_argument("--json", type=Path, default=None, help="write the full results here")
    ap.add_argument("--timeout", type=float, default=300.0, help="hard limit per subprocess")
    ap.add_argument(
        "--spec",
        type=Path,
        action="append",
        default=None,
        help="spec(s) to use instead of GitHub + the 5 largest real 3.x",
    )
    ap.add_argument("--no-httpllm", dest="httpllm", action="store_false")
    ap.add_argument("--no-peers", dest="peers", action="store_false")
    ap.add_argument("--no-samchon", dest="samchon", action="store_false")
    ap.add_argument("--no-fastmcp", dest="fastmcp", action="store_false")
    ap.add_argument(
        "--no-trace", dest="trace", action="store_false", help="skip the tracemalloc subprocesses"
    )
    ap.add_argument("--no-scaling", dest="scaling", action="store_false")
    ap.add_argument("--no-selection", dest="selection", action="store_false")
    ap.add_argument("--scaling-factors", default="1,2,4,8")
    ap.add_argument("--select-n", type=int, default=20)
    args = ap.parse_args(argv)
    args.runs = args.runs or (3 if args.quick else 7)
    if not args.peers:
        args.samchon = args.fastmcp = False
    return args


def build_jobs(args: argparse.Namespace, specs: list[Path], notes: dict[str, str]) -> list[Job]:
    budget = max(args.timeout - 30.0, 10.0)
    common = ["--runs", str(args.runs), "--budget", str(budget)]
    jobs: list[Job] = []
    if args.httpllm:
        jobs += httpllm_jobs(specs, common)
    if args.fastmcp:
        jobs += fastmcp_jobs(specs, common)
    if args.samchon:
        reason = ensure_samchon(args.timeout)
        if reason:
            notes["samchon"] = f"skipped: {reason}"
        else:
            jobs += samchon_jobs(specs, args.runs, budget)
    if args.trace:
        jobs += trace_jobs(specs, args)
    gh = github_spec()
    if args.httpllm and args.scaling and gh.is_file():
        factors = [int(x) for x in args.scaling_factors.split(",") if x.strip()]
        jobs += scaling_jobs(gh, factors, common, args.trace)
    if args.httpllm and args.selection and gh.is_file():
        jobs += selection_jobs(gh, args.select_n, common)
    return jobs


def node_version() -> str | None:
    if shutil.which("node") is None:
        return None
    proc = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    return proc.stdout.strip() or None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    specs = args.spec or [github_spec(), *largest_real_specs(5)]
    missing = [s for s in specs if not s.is_file()]
    if missing:
        print(f"missing spec files: {missing} (set HTTPLLM_SPECS)", file=sys.stderr)
        return 2
    notes: dict[str, str] = {}
    jobs = build_jobs(args, specs, notes)
    rows: list[list[dict[str, Any]]] = [[] for _ in jobs]
    for turn in range(max(args.rounds, 1)):
        for i, job in enumerate(jobs):
            if turn and (job.group not in TIMED_GROUPS or rows[i][0].get("status") != "ok"):
                continue  # run once: a tracemalloc job, or one that failed in round 1
            print(
                f"[round {turn + 1}/{args.rounds}] [{i + 1}/{len(jobs)}] "
                f"{spec_label(job.spec)} {job.tool} {job.variant} ({job.group})",
                file=sys.stderr,
                flush=True,
            )
            rows[i].append(run_job(job, args.timeout))
    results = [merge_rounds(r) for r in rows]
    attach_traces(results)
    report = {
        "meta": {
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "python": platform.python_version(),
            "node": node_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "runs": args.runs,
            "rounds": args.rounds,
            "warmup": 1,
            "timeout_s": args.timeout,
            "specs_root": str(specs_root()),
            "specs": [str(s) for s in specs],
            "notes": notes,
        },
        "results": results,
        "ratios": compute_ratios(results),
    }
    for k, v in notes.items():
        print(f"note: {k}: {v}")
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
