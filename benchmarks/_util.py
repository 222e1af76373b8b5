"""Shared helpers for the httpllm benchmarks (loading, copying, timing, memory).

Nothing here is timed: these helpers prepare inputs outside the timers and summarise
the measurements afterwards.
"""

from __future__ import annotations

import copy
import csv
import gc
import json
import os
import pickle
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
GITHUB_REL = "bench/github/api.github.com.json"


def specs_root() -> Path:
    """The corpus folder, found as the tests find it (tests/shared.py: $HTTPLLM_SPECS, else
    ../shared/specs beside the checkout); that path even when it holds no corpus."""
    if str(REPO_ROOT / "tests") not in sys.path:
        sys.path.append(str(REPO_ROOT / "tests"))
    import shared

    folder = shared.find("specs")
    env = os.environ.get("HTTPLLM_SPECS")
    return folder or (Path(env) if env else shared.BESIDE / "specs")


def github_spec() -> Path:
    return specs_root() / GITHUB_REL


def largest_real_specs(n: int = 5) -> list[Path]:
    """The n largest OpenAPI 3.x documents of set `real` in MANIFEST.tsv, by size_bytes."""
    root = specs_root()
    rows: list[tuple[int, str]] = []
    with (root / "MANIFEST.tsv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row.get("set") != "real" or not row.get("openapi_version", "").startswith("3"):
                continue
            rows.append((int(row["size_bytes"]), row["local_path"]))
    rows.sort(key=lambda r: (-r[0], r[1]))
    return [root / p for _, p in rows[:n]]


def yaml_loader() -> type[Any]:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_document(path: Path) -> Any:
    """Parse a JSON or YAML file (libyaml's CSafeLoader when available)."""
    with path.open("rb") as fh:
        if path.suffix.lower() in (".yaml", ".yml"):
            return yaml.load(fh, Loader=yaml_loader())
        return json.load(fh)


def count_operations(doc: Any) -> int:
    paths = doc.get("paths") if isinstance(doc, dict) else None
    if not isinstance(paths, dict):
        return 0
    return sum(
        1
        for item in paths.values()
        if isinstance(item, dict)
        for method in HTTP_METHODS
        if isinstance(item.get(method), dict)
    )


def operation_ids(doc: Any) -> list[str]:
    """operationIds in document order."""
    out: list[str] = []
    for item in (doc.get("paths") or {}).values():
        if not isinstance(item, dict):
            continue
        for method in HTTP_METHODS:
            op = item.get(method)
            if isinstance(op, dict) and isinstance(op.get("operationId"), str):
                out.append(op["operationId"])
    return out


def pick_evenly(items: list[str], n: int) -> list[str]:
    """n items spread evenly over the list (deterministic)."""
    if n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def repeat_paths(doc: dict[str, Any], times: int) -> dict[str, Any]:
    """The document with its paths repeated `times` times.

    Copy i gets paths prefixed with `/r{i}` and operationIds suffixed with `_r{i}`;
    components are shared (not repeated), so the operation count scales, not the schemas.
    """
    if times <= 1:
        return doc
    out = dict(doc)
    paths: dict[str, Any] = {}
    for i in range(times):
        for p, item in (doc.get("paths") or {}).items():
            new_item = copy.deepcopy(item)
            if isinstance(new_item, dict):
                for method in HTTP_METHODS:
                    op = new_item.get(method)
                    if isinstance(op, dict) and isinstance(op.get("operationId"), str):
                        op["operationId"] = f"{op['operationId']}_r{i}"
            paths[f"/r{i}{p}"] = new_item
    out["paths"] = paths
    return out


class FreshCopies:
    """Hands out independent deep copies of a parsed document, made outside any timer.

    A pickle round trip is a deep copy with the same semantics as copy.deepcopy (shared
    sub-objects such as YAML aliases stay shared) and is much faster on big documents.
    """

    def __init__(self, doc: Any) -> None:
        self._blob = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)

    def get(self) -> Any:
        return pickle.loads(self._blob)


def peak_rss_bytes() -> int:
    """Peak resident set size of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss_bytes() -> int:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


@dataclass
class Timing:
    times_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    budget_truncated: bool = False

    @property
    def median_s(self) -> float:
        return statistics.median(self.times_s)

    @property
    def min_s(self) -> float:
        return min(self.times_s)

    @property
    def median_cpu_s(self) -> float:
        return statistics.median(self.cpu_s)

    def summary(self) -> dict[str, Any]:
        return {
            "runs": len(self.times_s),
            "median_s": self.median_s,
            "min_s": self.min_s,
            "times_s": self.times_s,
            "median_cpu_s": self.median_cpu_s,
            "cpu_s": self.cpu_s,
            "budget_truncated": self.budget_truncated,
        }


def time_runs(
    prepare: Callable[[], Any],
    run: Callable[[Any], Any],
    *,
    runs: int,
    warmup: int,
    budget_s: float,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[Timing, Any]:
    """Time `run(prepare())` `runs` times after `warmup` untimed runs.

    Wall time (perf_counter) and this process's CPU time (process_time) are both kept:
    on a shared machine the CPU time is the steadier of the two.

    `prepare` (fresh input copy) and a gc.collect() happen before the clock starts.
    Stops early (keeping at least one timed run) once `budget_s` has elapsed.
    `progress`, when given, is called after every run (warm-up included) with what is known
    so far, so that a caller killed by a timeout still leaves partial figures behind.
    Returns the timings and the result of the last run.
    """
    started = time.perf_counter()
    result: Any = None
    warmup_s: list[float] = []
    for _ in range(warmup):
        result = None
        arg = prepare()
        t0 = time.perf_counter()
        result = run(arg)
        warmup_s.append(time.perf_counter() - t0)
        del arg
        if progress:
            progress({"warmup_s": warmup_s, "times_s": []})
    timing = Timing()
    for i in range(runs):
        if i > 0 and time.perf_counter() - started > budget_s:
            timing.budget_truncated = True
            break
        # The previous run's result holds its document: freeing it (about 25 ms for
        # GitHub's) is no part of this run, so it happens before the clock starts.
        result = None
        arg = prepare()
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = run(arg)
        t1 = time.perf_counter()
        timing.cpu_s.append(time.process_time() - c0)
        timing.times_s.append(t1 - t0)
        del arg
        if progress:
            progress({"warmup_s": warmup_s, "times_s": list(timing.times_s)})
    return timing, result


def traced_peak_bytes(prepare: Callable[[], Any], run: Callable[[Any], Any]) -> int:
    """tracemalloc peak of one `run(prepare())`, counting only what `run` allocates.

    The input copy is made before tracing starts, so the parsed document is not counted.
    Run this in its own process: tracing slows Python down 2-4x, so never mix it with timing.
    """
    arg = prepare()
    gc.collect()
    tracemalloc.start()
    try:
        run(arg)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def emit(obj: dict[str, Any]) -> None:
    """Print one JSON result line on stdout (the protocol between run.py and workers)."""
    sys.stdout.write(json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


def partial_emitter(out: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A `time_runs` progress callback printing {"status": "partial", ...} lines."""

    def progress(info: dict[str, Any]) -> None:
        emit({**out, "status": "partial", **info})

    return progress


def iter_json_lines(text: str) -> Iterator[dict[str, Any]]:
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue
