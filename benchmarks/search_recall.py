"""Recall of httpllm's operation search on natural-language tasks, per API (issue 23).

    python benchmarks/search_recall.py [--json] [--misses] [--no-hybrid] [--split dev]
                                       [--ablations] [--embedder NAME]

Reads benchmarks/search_tasks.yaml (tasks over ten APIs' descriptions: GitHub and Stripe
with dev, held-out, fresh and two blind splits; DigitalOcean, SendGrid, Intercom, Okta,
Asana, Xero, PagerDuty and Box with a dev split written blind; the lead adds the held-out
tasks of those), compiles each document, and reports recall@5 and recall@10 (a task is a
hit when any of its operations ranks within the first k) per API and split, for:

- ``baseline``: plain BM25 (bm25s, its default tokenizer and English stop words) over each
  operation's own text in one field: name, summary and description, tags, path, parameter
  names;
- ``bm25``: httpllm.toolsets.search.SearchIndex with ``ranker="bm25"`` (per-field weights,
  word splitting and stemming, method intent);
- ``hybrid``: the same index with ``ranker="hybrid"`` and the built-in embedder (or
  ``--embedder``), skipped when the search-embed extra is not installed;
- with ``--ablations``: the hybrid (else bm25) index without one part at a time.

Only the ``dev`` split may guide tuning; the others are only reported. Also, per ranker:
building the index over GitHub's 1,223 functions, cold (embedding every function) and warm
(vectors read from the cache), in wall and CPU seconds, and the latency of one query.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import specs_root

import httpllm
from httpllm.toolsets import embedders
from httpllm.toolsets import search as search_module
from httpllm.toolsets.search import SearchIndex

TASKS = Path(__file__).resolve().parent / "search_tasks.yaml"
KS = (5, 10)

Ranker = Callable[[str, int], list[str]]
Maker = Callable[[httpllm.Application], Ranker]


def baseline(app: httpllm.Application) -> Ranker:
    """Plain BM25 over each function's own text, one field, bm25s's own tokenizer."""
    import bm25s

    functions = app.functions
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


def indexed(ranker: str, embedder: Any = None) -> Maker:
    def make(app: httpllm.Application) -> Ranker:
        index = SearchIndex(app.functions, ranker=ranker, tags=app._deferred.tags,
                            embedder=embedder if ranker == "hybrid" else None)
        return lambda query, k: [f.name for f in index.search(query, k)]

    return make


@contextmanager
def patched(name: str, value: Any) -> Iterator[None]:
    """Set ``search_module.<name>`` (a weight or a table) for an ablation."""
    old = getattr(search_module, name)
    setattr(search_module, name, value)
    try:
        yield
    finally:
        setattr(search_module, name, old)


def _without(field: str) -> dict[str, float]:
    return {k: v for k, v in search_module.FIELD_WEIGHTS.items() if k != field}


ABLATIONS: dict[str, list[tuple[str, Any]]] = {
    "no method intent": [("_INTENT", {}), ("PHRASES", {}), ("ACTION_BOOST", 0.0),
                         ("INTENT_SIMILARITY", 0.0)],
    "first verb only": [("QUESTION_WORDS", frozenset()), ("PHRASES", {})],
    "no question -> read": [("_INTENT", {w: a for w, a in search_module._INTENT.items()
                                          if w in ("get", "fetch", "read", "show", "view",
                                                   "retrieve") or a != "get"})],
    "equal field weights": [("FIELD_WEIGHTS", dict.fromkeys(search_module.FIELD_WEIGHTS, 1.0))],
    "no parameter descriptions": [("FIELD_WEIGHTS", _without("parameter_descriptions"))],
    "no response fields": [("FIELD_WEIGHTS", _without("responses"))],
    "no parameters": [("FIELD_WEIGHTS", _without("parameters"))],
    "no depth prior": [("DEPTH_PENALTY", 0.0)],
    "no deprecation prior": [("DEPRECATED_PENALTY", 0.0)],
}


def cost(app: httpllm.Application, embedder: Any = None) -> dict[str, float]:
    """Building the index over ``app`` cold (every function embedded) and warm (vectors
    from the cache, in a throwaway cache folder), and one query's latency."""
    import os

    out: dict[str, float] = {"functions": len(app.functions)}
    before = os.environ.get("HTTPLLM_CACHE_DIR")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["HTTPLLM_CACHE_DIR"] = cache
        try:
            for label in ("cold", "warm"):
                wall, cpu = time.perf_counter(), time.process_time()
                index = SearchIndex(app.functions, ranker="hybrid", embedder=embedder,
                                    tags=app._deferred.tags)
                index.vectors()
                out[f"{label}_s"] = round(time.perf_counter() - wall, 2)
                out[f"{label}_cpu_s"] = round(time.process_time() - cpu, 2)
            times = []
            for query in ("merge a pull request", "who starred my repo", "delete a gist",
                          "list the runners of an org", "create a webhook"):
                start = time.perf_counter()
                index.search(query, 10)
                times.append(time.perf_counter() - start)
            out["query_ms"] = round(1000 * statistics.median(times), 1)
        finally:
            if before is None:
                del os.environ["HTTPLLM_CACHE_DIR"]
            else:
                os.environ["HTTPLLM_CACHE_DIR"] = before
    return out


def evaluate(made: dict[str, Ranker], tasks: Sequence[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {"tasks": len(tasks)}
    for k in KS:
        hits = sum(any(n in made[t["spec"]](t["query"], k) for n in t["expect"])
                   for t in tasks)
        out[f"recall@{k}"] = round(hits / len(tasks), 3) if tasks else 0.0
    return out


def table(made: dict[str, Ranker], tasks: Sequence[dict[str, Any]],
          splits: Sequence[str]) -> dict[str, dict[str, float]]:
    """Recall per API and split, then per split over all APIs."""
    out: dict[str, dict[str, float]] = {}
    for spec in made:
        for split in splits:
            subset = [t for t in tasks if t["spec"] == spec and t["split"] == split]
            if subset:
                out[f"{spec}/{split}"] = evaluate(made, subset)
    for split in splits:
        subset = [t for t in tasks if t["split"] == split]
        if subset:
            out[f"ALL/{split}"] = evaluate(made, subset)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--misses", action="store_true", help="list the hybrid ranker's misses")
    parser.add_argument("--no-hybrid", action="store_true", help="skip the hybrid ranker")
    parser.add_argument("--ablations", action="store_true", help="also each part's worth")
    parser.add_argument("--split", action="append", default=None,
                        help="only these splits (repeatable; default all)")
    parser.add_argument("--embedder", default=None,
                        help="the hybrid ranker's embedder ('builtin', 'fastembed:MODEL')")
    args = parser.parse_args()
    data = yaml.safe_load(TASKS.read_text(encoding="utf-8"))
    tasks = data["tasks"]
    splits = args.split or list(dict.fromkeys(t["split"] for t in tasks))
    tasks = [t for t in tasks if t["split"] in splits]
    apps = {name: httpllm.compile(specs_root() / rel, "3.1")
            for name, rel in data["specs"].items() if any(t["spec"] == name for t in tasks)}
    rankers: dict[str, Maker] = {"baseline": baseline, "bm25": indexed("bm25")}
    hybrid = not args.no_hybrid and (args.embedder is not None or embedders.available())
    if hybrid:
        rankers["hybrid"] = indexed("hybrid", args.embedder)
    report: dict[str, Any] = {}
    built: dict[str, dict[str, Ranker]] = {}
    for label, make in rankers.items():
        built[label] = {name: make(app) for name, app in apps.items()}
        report[label] = table(built[label], tasks, splits)
    if args.ablations:
        main_ranker = "hybrid" if hybrid else "bm25"
        report["ablations"] = {}
        for label, changes in ABLATIONS.items():
            with contextmanager_all(changes):
                made = {n: indexed(main_ranker, args.embedder)(a) for n, a in apps.items()}
                report["ablations"][label] = table(made, tasks, ["dev"])
    if "github" in apps and hybrid:
        report["index (github)"] = cost(apps["github"], args.embedder)
    if args.misses and hybrid:
        report["misses"] = [
            {"spec": t["spec"], "split": t["split"], "query": t["query"],
             "expect": t["expect"], "got": built["hybrid"][t["spec"]](t["query"], 5)}
            for t in tasks if not any(n in built["hybrid"][t["spec"]](t["query"], 10)
                                      for n in t["expect"])]
    print(json.dumps(report, indent=2) if args.json else show(report))
    return 0


@contextmanager
def contextmanager_all(changes: list[tuple[str, Any]]) -> Iterator[None]:
    if not changes:
        yield
        return
    (name, value), rest = changes[0], changes[1:]
    with patched(name, value), contextmanager_all(rest):
        yield


def show(report: dict[str, Any]) -> str:
    """The report as text tables."""
    lines: list[str] = []
    labels = [label for label in ("baseline", "bm25", "hybrid") if label in report]
    rows = list(report[labels[0]])
    lines.append(f"{'API/split':<22}{'tasks':>6}" + "".join(f"{label:>16}" for label in labels))
    for row in rows:
        cells = "".join(f"{report[label][row]['recall@5']:>8.2f}"
                        f"{report[label][row]['recall@10']:>8.2f}" for label in labels)
        lines.append(f"{row:<22}{report[labels[0]][row]['tasks']:>6}{cells}")
    for label, figures in report.get("ablations", {}).items():
        row = figures.get("ALL/dev", {})
        per = " ".join(f"{k.split('/')[0][:6]}:{v['recall@5']:.2f}/{v['recall@10']:.2f}"
                       for k, v in figures.items() if k != "ALL/dev")
        lines.append(f"ablation {label:<26} ALL/dev {row.get('recall@5', 0):.3f} "
                     f"{row.get('recall@10', 0):.3f}  {per}")
    if "index (github)" in report:
        lines.append(f"index (github): {report['index (github)']}")
    for miss in report.get("misses", []):
        lines.append(f"miss [{miss['spec']}/{miss['split']}] {miss['query']!r}: want "
                     f"{miss['expect']}, got {miss['got']}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
