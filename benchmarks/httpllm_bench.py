"""One httpllm measurement, run in its own process; prints one JSON line.

    python benchmarks/httpllm_bench.py SPEC [--provider chatgpt] [--reference] [--strict]
        [--source dict|file] [--runs 7] [--warmup 1] [--repeat K] [--include-n N]
        [--mode time|trace|load]

Inside the timer (mode `time`):
  --source dict : httpllm.compile(doc, ...) -> app.tools() -> json.dumps(...)
                  where `doc` is a fresh deep copy of the parsed document, made (and
                  gc.collect() run) before the clock starts.
  --source file : httpllm.compile(path, ...) -> app.tools() -> json.dumps(...)
                  (reading and parsing the file is inside the timer; OS cache warm).
Mode `trace` reports the tracemalloc peak of one such run (input copy not counted).
Mode `load` times only parsing the file (json.load / yaml CSafeLoader) for reference.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import (
    REPO_ROOT,
    FreshCopies,
    count_operations,
    current_rss_bytes,
    emit,
    load_document,
    operation_ids,
    partial_emitter,
    peak_rss_bytes,
    pick_evenly,
    repeat_paths,
    time_runs,
    traced_peak_bytes,
)


def import_httpllm() -> ModuleType:
    """Import httpllm from the working tree (src layout) in preference to any install."""
    src = REPO_ROOT / "src"
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))
    import httpllm

    return httpllm


def is_unknown_dialect(exc: BaseException) -> bool:
    return any(cls.__name__ == "UnknownDialect" for cls in type(exc).__mro__)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", type=Path)
    ap.add_argument("--provider", default="chatgpt")
    ap.add_argument("--reference", action="store_true")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--outputs", action="store_true",
                    help="also read every function's output (response schemas are lazy)")
    ap.add_argument("--source", choices=("dict", "file"), default="dict")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--budget", type=float, default=240.0, help="stop timing after this")
    ap.add_argument("--repeat", type=int, default=1, help="repeat the paths K times")
    ap.add_argument("--include-n", type=int, default=0, help="include= N operationIds")
    ap.add_argument("--mode", choices=("time", "trace", "load"), default="time")
    return ap.parse_args(argv)


def build_call(
    httpllm: ModuleType, args: argparse.Namespace, include: list[str] | None
) -> Callable[[Any], Any]:
    kwargs: dict[str, Any] = {"reference": args.reference, "strict": args.strict}
    if include is not None:
        kwargs["include"] = include
    provider = args.provider
    outputs = getattr(args, "outputs", False)

    def run(spec: Any) -> Any:
        app = httpllm.compile(spec, provider, **kwargs)
        text = json.dumps(app.tools())
        if outputs:
            text += json.dumps([f.output for f in app.functions])
        return app, text

    return run


def describe_call(args: argparse.Namespace, include: list[str] | None) -> str:
    spec = "path" if args.source == "file" else "doc"
    extra = f", include=<{len(include)} operationIds>" if include is not None else ""
    return (
        f"json.dumps(httpllm.compile({spec}, {args.provider!r}, reference={args.reference}, "
        f"strict={args.strict}{extra}).tools())"
        + (" + json.dumps([f.output for f in app.functions])" if getattr(args, "outputs", False)
           else "")
    )


def measure(args: argparse.Namespace, out: dict[str, Any]) -> None:
    doc = load_document(args.spec)
    if args.repeat > 1:
        doc = repeat_paths(doc, args.repeat)
    out["n_operations"] = count_operations(doc)
    if args.mode == "load":
        timing, _ = time_runs(
            lambda: args.spec,
            load_document,
            runs=args.runs,
            warmup=args.warmup,
            budget_s=args.budget,
        )
        out.update(status="ok", call="load_document(path)", **timing.summary())
        return
    include = pick_evenly(operation_ids(doc), args.include_n) if args.include_n else None
    httpllm = import_httpllm()
    out["httpllm_version"] = getattr(httpllm, "__version__", None)
    out["call"] = describe_call(args, include)
    if not hasattr(httpllm, "compile"):
        out.update(status="unavailable", error="httpllm.compile does not exist yet")
        return
    run = build_call(httpllm, args, include)
    if args.source == "file":
        if args.repeat > 1:
            raise SystemExit("--repeat needs --source dict")
        prepare: Callable[[], Any] = lambda: str(args.spec)  # noqa: E731
    else:
        copies = FreshCopies(doc)
        prepare = copies.get
    del doc
    out["rss_after_load_bytes"] = current_rss_bytes()
    if args.mode == "trace":
        out["tracemalloc_peak_bytes"] = traced_peak_bytes(prepare, run)
        out["status"] = "ok"
        return
    timing, (app, text) = time_runs(
        prepare,
        run,
        runs=args.runs,
        warmup=args.warmup,
        budget_s=args.budget,
        progress=partial_emitter(out),
    )
    out.update(
        status="ok",
        **timing.summary(),
        functions=len(app.functions),
        errors=len(app.errors),
        tools_json_bytes=len(text.encode()),
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out: dict[str, Any] = {
        "tool": "httpllm",
        "spec": str(args.spec),
        "provider": args.provider,
        "reference": args.reference,
        "strict": args.strict,
        "source": args.source,
        "repeat": args.repeat,
        "include_n": args.include_n,
        "mode": args.mode,
        "warmup": args.warmup,
    }
    try:
        measure(args, out)
    except Exception as exc:
        if is_unknown_dialect(exc):
            out.update(status="skipped", error=f"UnknownDialect: {exc}")
        else:
            tb = traceback.format_exc().strip().splitlines()
            out.update(status="error", error=f"{type(exc).__name__}: {exc}", traceback=tb[-8:])
    out["peak_rss_bytes"] = peak_rss_bytes()
    emit(out)
    return 0 if out.get("status") in ("ok", "skipped", "unavailable") else 1


if __name__ == "__main__":
    raise SystemExit(main())
