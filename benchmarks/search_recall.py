"""Recall of httpllm's operation search on natural-language tasks (issue 15 part 4).

    python benchmarks/search_recall.py [--json] [--misses]

Reads benchmarks/search_tasks.yaml (136 tasks over GitHub's and Stripe's descriptions, a dev
half and a held-out half fixed before tuning), compiles both documents, and reports
recall@5 and recall@10 (a task is a hit when any of its operations ranks within the first
k) for:

- ``baseline``: plain BM25 (bm25s, its default tokenizer and English stop words) over each
  operation's own text in one field: name, summary and description, tags, path, parameter
  names;
- ``final``: httpllm.toolsets.search.SearchIndex (per-field weights, word splitting and
  stemming, synonyms, method intent);
- the final index without one part at a time (ablations), on all tasks.

Also: the time and the tracemalloc peak of building the final index over GitHub's 1,223
functions (median of 5 builds; the compiled application not counted).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import specs_root

import httpllm
from httpllm.toolsets import search as search_module
from httpllm.toolsets.search import SearchIndex

TASKS = Path(__file__).resolve().parent / "search_tasks.yaml"
KS = (5, 10)

Ranker = Callable[[str, int], list[str]]


def baseline(functions: Sequence[httpllm.Function]) -> Ranker:
    """Plain BM25 over each function's own text, one field, bm25s's own tokenizer."""
    import bm25s

    texts = [" ".join([f.name, f.description, *f.tags, f.path,
                       *(a.original or a.name for a in f.arguments)]) for f in functions]
    index = bm25s.BM25()
    index.index(bm25s.tokenize(texts, stopwords="en", show_progress=False),
                show_progress=False)
    names = [f.name for f in functions]

    def rank(query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False,
                                return_ids=False)[0]
        if not tokens:
            return []
        scores = index.get_scores(tokens)
        order = sorted(range(len(names)), key=lambda i: -float(scores[i]))
        return [names[i] for i in order[:k] if scores[i] > 0]

    return rank


def final(functions: Sequence[httpllm.Function]) -> Ranker:
    index = SearchIndex(functions)
    return lambda query, k: [f.name for f in index.search(query, k)]


@contextmanager
def patched(name: str, value: Any) -> Iterator[None]:
    """Set ``search_module.<name>`` (a weight, or the synonym and intent tables it
    imported) for an ablation."""
    old = getattr(search_module, name)
    setattr(search_module, name, value)
    try:
        yield
    finally:
        setattr(search_module, name, old)


ABLATIONS: dict[str, tuple[str, Any]] = {
    "no synonyms": ("SYNONYMS", {}),
    "no method intent": ("INTENTS", {}),
    "equal field weights": ("FIELD_WEIGHTS", dict.fromkeys(search_module.FIELD_WEIGHTS, 1.0)),
    "translated words full": ("TRANSLATED_WEIGHT", 1.0),
    "no depth prior": ("DEPTH_PENALTY", 0.0),
    "no deprecation prior": ("DEPRECATED_PENALTY", 0.0),
}


def build_cost(functions: Sequence[httpllm.Function], runs: int = 5) -> dict[str, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        SearchIndex(functions)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    index = SearchIndex(functions)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del index
    return {"functions": len(functions), "build_s": round(statistics.median(times), 4),
            "peak_mb": round(peak / 2**20, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--misses", action="store_true", help="list the final index's misses")
    args = parser.parse_args()
    data = yaml.safe_load(TASKS.read_text(encoding="utf-8"))
    apps = {name: httpllm.compile(specs_root() / rel, "3.1")
            for name, rel in data["specs"].items()}
    tasks = data["tasks"]
    groups = {"dev": [t for t in tasks if t["split"] == "dev"],
              "heldout": [t for t in tasks if t["split"] == "heldout"], "all": tasks}

    def evaluate(make: Callable[[Sequence[httpllm.Function]], Ranker],
                 subset: list[dict[str, Any]]) -> dict[str, float]:
        rankers = {name: make(app.functions) for name, app in apps.items()}
        per = [(t, rankers[t["spec"]]) for t in subset]
        out: dict[str, float] = {}
        for k in KS:
            hits = sum(any(n in rank(t["query"], k) for n in t["expect"]) for t, rank in per)
            out[f"recall@{k}"] = round(hits / len(subset), 3)
        return out

    report: dict[str, Any] = {"tasks": {g: len(ts) for g, ts in groups.items()}}
    for label, make in (("baseline", baseline), ("final", final)):
        report[label] = {g: evaluate(make, ts) for g, ts in groups.items()}
        report[label]["by spec"] = {s: evaluate(make, [t for t in tasks if t["spec"] == s])
                                    for s in apps}
    report["ablations (all tasks)"] = {}
    for label, (name, value) in ABLATIONS.items():
        with patched(name, value):
            report["ablations (all tasks)"][label] = evaluate(final, tasks)
    report["index build (github)"] = build_cost(apps["github"].functions)
    if args.misses:
        rankers = {name: final(app.functions) for name, app in apps.items()}
        report["misses"] = [
            {"split": t["split"], "query": t["query"], "expect": t["expect"],
             "got": rankers[t["spec"]](t["query"], 5)}
            for t in tasks if not any(n in rankers[t["spec"]](t["query"], 5)
                                      for n in t["expect"])]
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        show(report, groups)
    return 0


def show(report: dict[str, Any], groups: dict[str, list[dict[str, Any]]]) -> None:
    """Print the report as a table."""
    for label in ("baseline", "final"):
        for group, figures in report[label].items():
            if group == "by spec":
                for spec, f in figures.items():
                    print(f"{label:<9} {spec:<8} {f['recall@5']:.3f} {f['recall@10']:.3f}")
            else:
                print(f"{label:<9} {group:<8} {figures['recall@5']:.3f} {figures['recall@10']:.3f}"
                      f"  ({len(groups[group])} tasks)")
    for label, figures in report["ablations (all tasks)"].items():
        print(f"final, {label:<22} {figures['recall@5']:.3f} {figures['recall@10']:.3f}")
    print("index build (github):", report["index build (github)"])
    for miss in report.get("misses", []):
        print(f"miss [{miss['split']}] {miss['query']!r}: want {miss['expect']}, "
              f"got {miss['got']}")

if __name__ == "__main__":
    raise SystemExit(main())
