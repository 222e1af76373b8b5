"""Recall of httpllm's operation search on natural-language tasks (issue 15 part 4).

    python benchmarks/search_recall.py [--json] [--misses] [--no-hybrid]

Reads benchmarks/search_tasks.yaml (358 tasks over GitHub's and Stripe's descriptions: a
dev half and a held-out half fixed before tuning, a fresh split, and two blind splits
written by helpers that had seen neither the ranker nor the other tasks), compiles both
documents, and reports recall@5 and recall@10 (a task is a hit when any of its operations
ranks within the first k) for:

- ``baseline``: plain BM25 (bm25s, its default tokenizer and English stop words) over each
  operation's own text in one field: name, summary and description, tags, path, parameter
  names;
- ``bm25``: httpllm.toolsets.search.SearchIndex with ``ranker="bm25"`` (per-field weights,
  word splitting and stemming, synonyms, method intent);
- ``hybrid``: the same index with ``ranker="hybrid"`` (BM25 fused with the sentence
  embeddings of the ``search-embed`` extra: all-MiniLM-L6-v2, int8, run by numpy); skipped
  when the extra is not installed;
- the bm25 index without one part at a time (ablations), on all tasks.

Splits: ``dev`` (tuned on), ``heldout`` (only reported), ``fresh`` (written after the
hybrid ranker's design, before its figures, never tuned on), ``blind-a`` and ``blind-b``
(written from the operation lists alone, never tuned on).

Also, per ranker: the time and the memory of building the index over GitHub's 1,223
functions (bm25: median of 5 builds, tracemalloc peak; hybrid: one build including the
embedding of every function, in wall and CPU seconds (the CPU time says more on a shared
machine), the word pieces embedded, and the growth of the process's peak RSS, since the
model's arrays live outside Python's allocator; the model's one-time load is timed apart).
"""

from __future__ import annotations

import argparse
import json
import resource
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
from httpllm.toolsets import _embed
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


def bm25(functions: Sequence[httpllm.Function]) -> Ranker:
    index = SearchIndex(functions, ranker="bm25")
    return lambda query, k: [f.name for f in index.search(query, k)]


def hybrid(functions: Sequence[httpllm.Function]) -> Ranker:
    index = SearchIndex(functions, ranker="hybrid")
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
        SearchIndex(functions, ranker="bm25")
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    index = SearchIndex(functions, ranker="bm25")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del index
    return {"functions": len(functions), "build_s": round(statistics.median(times), 4),
            "peak_mb": round(peak / 2**20, 2)}


def hybrid_cost(functions: Sequence[httpllm.Function]) -> dict[str, float]:
    """Run first (before any hybrid index) so that the model's load is measured."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    model = _embed._load()
    loaded, cpu = time.perf_counter(), time.process_time()
    index = SearchIndex(functions, ranker="hybrid")
    index.similarities("warm up")
    built, cpu = time.perf_counter(), time.process_time() - cpu
    index.search("merge a pull request", 5)
    searched = time.perf_counter()
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
    pieces = sum(len(e.ids) for e in model.tokenizer.encode_batch(
        [search_module._meaning(f) for f in functions]))
    return {"functions": len(functions), "word_pieces": pieces,
            "model_load_s": round(loaded - start, 2), "build_s": round(built - loaded, 2),
            "build_cpu_s": round(cpu, 2), "search_s": round(searched - built, 3),
            "peak_rss_growth_mb": round(grown / 1024, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--misses", action="store_true", help="list each ranker's misses")
    parser.add_argument("--no-hybrid", action="store_true", help="skip the hybrid ranker")
    args = parser.parse_args()
    data = yaml.safe_load(TASKS.read_text(encoding="utf-8"))
    apps = {name: httpllm.compile(specs_root() / rel, "3.1")
            for name, rel in data["specs"].items()}
    tasks = data["tasks"]
    groups = {split: [t for t in tasks if t["split"] == split]
              for split in dict.fromkeys(t["split"] for t in tasks)}
    groups["all"] = tasks
    rankers: dict[str, Callable[[Sequence[httpllm.Function]], Ranker]] = {
        "baseline": baseline, "bm25": bm25}
    report: dict[str, Any] = {"tasks": {g: len(ts) for g, ts in groups.items()}}
    if not args.no_hybrid and _embed.available():
        report["index build (github)"] = {"hybrid": hybrid_cost(apps["github"].functions)}
        rankers["hybrid"] = hybrid

    def evaluate(made: dict[str, Ranker], subset: list[dict[str, Any]]) -> dict[str, float]:
        out: dict[str, float] = {}
        for k in KS:
            hits = sum(any(n in made[t["spec"]](t["query"], k) for n in t["expect"])
                       for t in subset)
            out[f"recall@{k}"] = round(hits / len(subset), 3)
        return out

    def build(make: Callable[[Sequence[httpllm.Function]], Ranker]) -> dict[str, Ranker]:
        return {name: make(app.functions) for name, app in apps.items()}

    built = {label: build(make) for label, make in rankers.items()}
    for label, made in built.items():
        report[label] = {g: evaluate(made, ts) for g, ts in groups.items() if ts}
        report[label]["by spec"] = {s: evaluate(made, [t for t in tasks if t["spec"] == s])
                                    for s in apps}
    report["ablations (bm25, all tasks)"] = {}
    for label, (name, value) in ABLATIONS.items():
        with patched(name, value):
            report["ablations (bm25, all tasks)"][label] = evaluate(build(bm25), tasks)
    report.setdefault("index build (github)", {})["bm25"] = build_cost(apps["github"].functions)
    if args.misses:
        report["misses"] = {}
        for label, made in built.items():
            report["misses"][label] = [
                {"split": t["split"], "query": t["query"], "expect": t["expect"],
                 "got": made[t["spec"]](t["query"], 5)}
                for t in tasks if not any(n in made[t["spec"]](t["query"], 5)
                                          for n in t["expect"])]
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        show(report, groups)
    return 0


def show(report: dict[str, Any], groups: dict[str, list[dict[str, Any]]]) -> None:
    """Print the report as a table."""
    for label in ("baseline", "bm25", "hybrid"):
        if label not in report:
            continue
        for group, figures in report[label].items():
            if group == "by spec":
                for spec, f in figures.items():
                    print(f"{label:<9} {spec:<8} {f['recall@5']:.3f} {f['recall@10']:.3f}")
            else:
                print(f"{label:<9} {group:<8} {figures['recall@5']:.3f} {figures['recall@10']:.3f}"
                      f"  ({len(groups[group])} tasks)")
    for label, figures in report["ablations (bm25, all tasks)"].items():
        print(f"bm25, {label:<22} {figures['recall@5']:.3f} {figures['recall@10']:.3f}")
    for ranker, cost in report["index build (github)"].items():
        print(f"index build (github), {ranker}:", cost)
    for ranker, misses in report.get("misses", {}).items():
        for miss in misses:
            print(f"{ranker} miss [{miss['split']}] {miss['query']!r}: want {miss['expect']}, "
                  f"got {miss['got']}")

if __name__ == "__main__":
    raise SystemExit(main())
