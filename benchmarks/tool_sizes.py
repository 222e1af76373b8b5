"""What a tool carries, over the real corpus (issues 26 and 28): sizes and patterns.

1. ``--listing``: every real document (and GitHub's 13 MB description) as ``httpllm
   serve`` lists it (``mcp``, default options, ``--output-schemas auto``): the bytes of
   the whole ``tools/list`` result, its largest tool, whether output schemas are listed.
   Prints the ten largest listings and the count past 10 MiB and 1 MiB.
2. ``--tools``: the ten largest tools per dialect (``app.tools()``, compact JSON bytes and
   ``o200k_base`` tokens) over the same documents.
3. ``--patterns``: every ``pattern`` and ``patternProperties`` key the mcp listing holds,
   compiled by node in one process as ``new RegExp(p, "u")`` (what the MCP TypeScript
   SDK's Ajv does); prints the ones refused.

    python benchmarks/tool_sizes.py --listing --tools --patterns [--json out.json]
    python benchmarks/tool_sizes.py --listing --src /path/to/other/src   # another tree

The corpus comes from `$HTTPLLM_SPECS`. ``--src`` measures another checkout (the
"before" of a change): code it lacks (``output_schemas_listed``) is taken as listing
every output schema.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DIALECTS = ("chatgpt", "claude", "gemini", "mcp")
MiB = 1024 * 1024


def _documents(root: Path) -> list[str]:
    with (root / "MANIFEST.tsv").open(newline="", encoding="utf-8") as handle:
        rows = [r["local_path"] for r in csv.DictReader(handle, delimiter="\t")
                if r["set"] == "real"]
    return [*rows, "bench/github/api.github.com.json"]


def _bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _served(app: Any) -> tuple[list[Any], bool]:
    """The tools as ``httpllm serve`` lists them, and whether output schemas are listed."""
    from httpllm.server import build

    listed = True
    try:
        from httpllm.server.tools import output_schemas_listed

        listed = output_schemas_listed(app.functions, "auto")[0]
    except ImportError:  # a tree before --output-schemas: every schema listed
        pass
    return [t.tool for t in build.function_tools(app, output_schemas=listed)], listed


def listing(root: Path, docs: list[str]) -> list[dict[str, Any]]:
    """One row per document: listing bytes, largest tool, outputs listed, seconds."""
    import httpllm

    rows = []
    for doc in docs:
        start = time.perf_counter()
        try:
            app = httpllm.compile(root / doc, "mcp", allow_outside_root=True)
            tools, listed = _served(app)
        except Exception as exc:  # a row says what failed
            rows.append({"document": doc, "error": f"{type(exc).__name__}: {exc}"})
            continue
        sizes = [(_bytes(t), t["name"]) for t in tools]
        big = max(sizes, default=(0, ""))
        rows.append({"document": doc, "tools": len(tools), "bytes": _bytes({"tools": tools}),
                     "largest_tool": big[0], "largest_name": big[1], "outputs": listed,
                     "seconds": round(time.perf_counter() - start, 2)})
        print(f"{doc}: {rows[-1]['bytes'] / MiB:.2f} MiB", file=sys.stderr, flush=True)
    return rows


def largest_tools(root: Path, docs: list[str], n: int = 10) -> dict[str, list[dict[str, Any]]]:
    """The ``n`` largest tools per dialect: document, name, bytes, tokens."""
    import httpllm

    try:
        from httpllm.toolsets.tokens import tokenizer_for
    except ImportError:
        tokenizer_for = None
    out: dict[str, list[dict[str, Any]]] = {}
    for dialect in DIALECTS:
        found: list[tuple[int, str, str, Any]] = []
        for doc in docs:
            try:
                app = httpllm.compile(root / doc, dialect, allow_outside_root=True)
                tools = app.tools() if dialect != "mcp" else _served(app)[0]
            except Exception:  # counted by --listing
                continue
            if dialect == "gemini" and tools and "functionDeclarations" in tools[0]:
                tools = [d for t in tools for d in t["functionDeclarations"]]
            found.extend((_bytes(t), doc, str(t.get("name") or t.get("function", {})
                                               .get("name")), t) for t in tools)
            found = sorted(found, key=lambda x: -x[0])[:n]
        counter = tokenizer_for(httpllm.get_dialect(dialect)) if tokenizer_for else None
        out[dialect] = [{"document": d, "tool": name, "bytes": size,
                         "tokens": counter.count(json.dumps(t, ensure_ascii=False,
                                                            separators=(",", ":")))
                         if counter else None}
                        for size, d, name, t in found]
        print(f"{dialect}: done", file=sys.stderr, flush=True)
    return out


_VALUES = frozenset({"examples", "example", "default", "enum", "const"})
"""Keywords whose values are instances, not schemas (a ``pattern`` key there is data)."""


def _patterns_of(node: Any, found: dict[str, str], doc: str) -> None:
    """Every ``pattern`` value and ``patternProperties`` key under ``node``."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("pattern"), str):
                found.setdefault(item["pattern"], doc)
            keyed = item.get("patternProperties")
            if isinstance(keyed, dict):
                for key in keyed:
                    found.setdefault(key, doc)
            stack.extend(v for k, v in item.items() if k not in _VALUES)
        elif isinstance(item, list):
            stack.extend(item)


def patterns(root: Path, docs: list[str]) -> dict[str, Any]:
    """Every pattern of every mcp listing, through node: the refused ones."""
    import httpllm

    found: dict[str, str] = {}
    for doc in docs:
        try:
            app = httpllm.compile(root / doc, "mcp", allow_outside_root=True)
        except Exception:  # counted by --listing
            continue
        for tool in _served(app)[0]:
            _patterns_of(tool.get("inputSchema"), found, doc)
            _patterns_of(tool.get("outputSchema"), found, doc)
    refused = node_refuses(list(found))
    return {"patterns": len(found), "refused": [[found[p], p, why] for p, why in refused]}


_NODE = """
const patterns = JSON.parse(require("fs").readFileSync(0, "utf8"));
const refused = [];
for (const p of patterns) {
  try { new RegExp(p, "u"); } catch (e) { refused.push([p, e.message]); }
}
process.stdout.write(JSON.stringify(refused));
"""


def node_refuses(items: list[str]) -> list[tuple[str, str]]:
    """``(pattern, node's message)`` for each pattern ``new RegExp(p, "u")`` throws on.

    Raises:
        FileNotFoundError: node is not installed.
    """
    node = shutil.which("node")
    if node is None:
        raise FileNotFoundError("node")
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "check.js"
        script.write_text(_NODE, encoding="utf-8")
        done = subprocess.run([node, str(script)], input=json.dumps(items), text=True,
                              capture_output=True, check=True, timeout=300)
    return [(p, why) for p, why in json.loads(done.stdout)]


def _print(result: dict[str, Any]) -> None:
    rows = [r for r in result.get("listing", []) if "bytes" in r]
    if rows:
        print("| document | tools | listing | largest tool | output schemas |")
        print("| --- | ---: | ---: | ---: | --- |")
        for r in sorted(rows, key=lambda r: -r["bytes"])[:10]:
            print(f"| {r['document']} | {r['tools']:,} | {r['bytes'] / MiB:.2f} MiB | "
                  f"{r['largest_tool'] / 1024:,.0f} KiB ({r['largest_name']}) | "
                  f"{'listed' if r['outputs'] else 'left out'} |")
        print(f"\n{sum(r['bytes'] > 10 * MiB for r in rows)} listings over 10 MiB, "
              f"{sum(r['bytes'] > MiB for r in rows)} over 1 MiB, "
              f"{sum(r['largest_tool'] > MiB for r in rows)} with a tool over 1 MiB, "
              f"of {len(rows)}\n")
    for dialect, tools in result.get("tools", {}).items():
        print(f"{dialect}: " + ", ".join(f"{t['tool']} {t['bytes'] / 1024:,.0f} KiB"
                                         + (f"/{t['tokens']:,} tok" if t["tokens"] else "")
                                         for t in tools))
    if "patterns" in result:
        found = result["patterns"]
        print(f"\npatterns: {found['patterns']} distinct, {len(found['refused'])} refused by "
              "node (u flag)")
        for doc, pattern, why in found["refused"]:
            print(f"  {doc}: {pattern[:80]!r}: {why[-60:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--listing", action="store_true")
    parser.add_argument("--tools", action="store_true")
    parser.add_argument("--patterns", action="store_true")
    parser.add_argument("--src", type=Path, default=REPO_ROOT / "src",
                        help="the httpllm source tree to measure (default: this one)")
    parser.add_argument("--only", action="append", default=[],
                        help="documents whose path holds this text (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src))
    sys.path.insert(1, str(Path(__file__).resolve().parent))
    from _util import specs_root

    root = specs_root()
    docs = [d for d in _documents(root) if not args.only or any(o in d for o in args.only)]
    result: dict[str, Any] = {}
    if args.listing:
        result["listing"] = listing(root, docs)
    if args.tools:
        result["tools"] = largest_tools(root, docs)
    if args.patterns:
        result["patterns"] = patterns(root, docs)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    _print(result)


if __name__ == "__main__":
    main()
