"""Tokens a model reads in tools mode, discover mode and code mode, on the same tasks (issue 25).

A scripted model does each task three ways over GitHub's description (bench/github) and
Stripe's (real/stripe), against a local upstream on 127.0.0.1 that answers every
operation with a full instance of its documented response schema (every property present,
as GitHub and Stripe answer; lists of 30 items, or the `limit`/`per_page` asked for):

- **tools**: every operation is a tool (the ``mcp`` dialect, as ``httpllm serve`` lists it);
  the model calls the operations and reads each answer (cut to the server's 40,000
  characters, as the server does);
- **discover**: the three trio tools; the model searches, describes the operations it
  picked, invokes them and reads each answer;
- **code**: the two code-mode tools; the model asks ``search_docs`` once, then ``execute``\\ s
  the program written below (by hand, as a model writes them) and reads what it printed.

Tokens are counted with ``o200k_base`` (the ``tokens`` extra, as ``toolsets.tokens`` does)
on the compact JSON of the tool list and on the texts the model reads.

    python benchmarks/code_mode.py            # the markdown table (needs Deno: the code extra)
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "src"))
sys.path.insert(0, str(REPO_ROOT / "tests"))

from _util import specs_root  # noqa: E402
from loopback import running  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402

import httpllm  # noqa: E402
from httpllm.cut import DEFAULT_BUDGET, cut_json  # noqa: E402
from httpllm.toolsets.discover import discover  # noqa: E402
from httpllm.toolsets.tokens import get_tokenizer  # noqa: E402

DOCUMENTS = {"GitHub": "bench/github/api.github.com.json", "Stripe": "real/stripe/spec3.yaml"}
AUTH = {"Stripe": {"bearerAuth": "sk_test_benchmark"}}
"""A made-up credential where the document requires one (the local upstream ignores it)."""

TASKS: dict[str, list[dict[str, Any]]] = {
    "GitHub": [
        {"task": "open pull requests in acme/widgets with no reviewer requested",
         "query": "list pull requests of a repository",
         "calls": [("pulls_list", {"owner": "acme", "repo": "widgets", "state": "open",
                                   "per_page": 30})],
         "program": """
const prs = await api.pulls.list({ owner: "acme", repo: "widgets", state: "open", per_page: 30 });
const lonely = prs.filter((p) => (p.requested_reviewers ?? []).length === 0);
console.log(lonely.map((p) => `#${p.number} ${p.title}`).slice(0, 10).join("\\n") || "none");
"""},
        {"task": "acme's five most-starred repositories with their open issue counts",
         "query": "list organization repositories",
         "calls": [("repos_list-for-org", {"org": "acme", "per_page": 30})],
         "program": """
const repos = await api.repos.listForOrg({ org: "acme", per_page: 30 });
const top = repos.sort((a, b) => (b.stargazers_count ?? 0) - (a.stargazers_count ?? 0)).slice(0, 5);
for (const r of top) console.log(r.full_name, r.stargazers_count, r.open_issues_count);
"""},
        {"task": "assets and download counts of acme/widgets' three latest releases",
         "query": "list releases of a repository",
         "calls": [("repos_list-releases", {"owner": "acme", "repo": "widgets",
                                            "per_page": 3})],
         "program": """
const releases = await api.repos.listReleases({ owner: "acme", repo: "widgets", per_page: 3 });
for (const r of releases)
  console.log(r.tag_name, r.assets.map((a) => `${a.name}:${a.download_count}`).join(" "));
"""},
        {"task": "the three latest committers of acme/widgets and their public emails",
         "query": "list commits and get a user",
         "calls": [("repos_list-commits", {"owner": "acme", "repo": "widgets", "per_page": 3}),
                   ("users_get-by-username", {"username": "octocat"}),
                   ("users_get-by-username", {"username": "hubot"}),
                   ("users_get-by-username", {"username": "monalisa"})],
         "program": """
const commits = await api.repos.listCommits({ owner: "acme", repo: "widgets", per_page: 3 });
const logins = ["octocat", "hubot", "monalisa"];
const users = await Promise.all(logins.map((username) => api.users.getByUsername({ username })));
console.log(commits.length, users.map((u) => `${u.login} ${u.email ?? "-"}`).join("; "));
"""},
    ],
    "Stripe": [
        {"task": "emails of the ten most recent customers",
         "query": "list customers",
         "calls": [("GetCustomers", {"limit": 10})],
         "program": """
const page = await api.getCustomers({ limit: 10 });
console.log(page.data.map((c) => c.email).join(", "));
"""},
        {"task": "total amount of the succeeded charges on the latest page",
         "query": "list charges",
         "calls": [("GetCharges", {"limit": 30})],
         "program": """
const charges = await api.getCharges({ limit: 30 });
const ok = charges.data.filter((c) => c.status === "succeeded");
console.log(ok.length, ok.reduce((sum, c) => sum + c.amount, 0));
"""},
        {"task": "card brand of customer cus_123's default payment method",
         "query": "retrieve a customer and a payment method",
         "calls": [("GetCustomersCustomer", {"customer": "cus_123"}),
                   ("GetPaymentMethodsPaymentMethod", {"payment_method": "pm_123"})],
         "program": """
const customer = await api.getCustomersCustomer({ customer: "cus_123" }) as any;
const pm = await api.getPaymentMethodsPaymentMethod({ payment_method: "pm_123" });
console.log(customer.id, pm.card?.brand ?? pm.type);
"""},
    ],
}

_ITEMS = 30


def instance(schema: Any, defs: dict[str, Any], count: int, depth: int = 0) -> Any:
    """A full instance of ``schema``: every property, the first non-null union member (of
    Stripe's expandable id-or-object, the id, as Stripe answers without ``expand``),
    ``count`` items in the first two levels of arrays (one deeper), recursion cut at
    depth 8."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if "$ref" in schema:
        return instance(defs.get(schema["$ref"].rsplit("/", 1)[-1]), defs, count, depth + 1)
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            members = [m for m in schema[key] if m.get("type") != "null"] or schema[key]
            return instance(members[0], defs, count, depth)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        return {k: instance(v, defs, count, depth + 1)
                for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        n = count if depth <= 2 else 1
        return [_numbered(instance(schema.get("items"), defs, count, depth + 1), i)
                for i in range(n)]
    if kind in ("integer", "number"):
        return 1234 if kind == "integer" else 12.5
    if kind == "boolean":
        return False
    if kind == "string":
        fmt = schema.get("format")
        return {"date-time": "2026-01-02T03:04:05Z", "uri": "https://example.test/a/b",
                "email": "dev@example.test"}.get(fmt, "example text")
    return None


def _numbered(value: Any, i: int) -> Any:
    if isinstance(value, dict):
        return {k: (v + i if isinstance(v, int) and not isinstance(v, bool) else v)
                for k, v in value.items()}
    return value


def upstream_app(app: Any) -> Any:
    """A Starlette app answering every operation with :func:`instance` of its output."""
    routes = []
    for f in app.functions:
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(f.path))
        routes.append((f.method.upper(), re.compile(f"^{pattern}$"), f))
    cache: dict[tuple[str, int], Any] = {}

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        for method, pattern, f in routes:
            if method == request.method and pattern.match(request.url.path):
                q = request.query_params
                count = int(q.get("per_page") or q.get("limit") or _ITEMS)
                key = (f.name, count)
                if key not in cache:  # the whole schema, not the listed tool's bounded one
                    out = app.response_schema(f) or {}
                    cache[key] = instance(out, out.get("$defs", {}), count)
                await JSONResponse(cache[key])(scope, receive, send)
                return
        await JSONResponse({"message": "Not Found"}, status_code=404)(scope, receive, send)

    return asgi


def answer_text(body: Any) -> str:
    """What the model reads of one operation's answer (the server's cut)."""
    return cut_json(body, DEFAULT_BUDGET).text


def measure(label: str, rel: str) -> list[dict[str, Any]]:
    """One row per mode and task of one document."""
    count = get_tokenizer("o200k_base").count
    app = httpllm.compile(specs_root() / rel, "mcp", reference=True)
    tools_tokens = count(json.dumps(app.tools(), separators=(",", ":")))
    rows = []
    with running(upstream_app(app)) as url:
        options = {"base_url": url, "auth": AUTH.get(label)}
        trio = discover(app, execute_options=options)
        code = app.code_tools(execute_options=options)
        modes = {"tools": count(json.dumps(app.tools(), separators=(",", ":"))),
                 "discover": count(json.dumps(trio.tools, separators=(",", ":"))),
                 "code": count(json.dumps(code.tools, separators=(",", ":")))}
        assert modes["tools"] == tools_tokens
        for task in TASKS[label]:
            names = list(dict.fromkeys(name for name, _ in task["calls"]))
            bodies = [app.execute(name, args, **options).body for name, args in task["calls"]]
            answers = sum(count(answer_text(b)) for b in bodies)
            found = trio.handle("search_operations", {"query": task["query"]})
            described = trio.handle("describe_operations", {"names": names})
            invoked = [trio.handle("invoke_operation", {"name": n, "arguments": a})
                       for n, a in task["calls"]]
            trio_read = (count(json.dumps(found)) + count(json.dumps(described))
                         + sum(count(json.dumps(i)) for i in invoked))
            docs = code.handle("search_docs", {"query": task["query"]})["docs"]
            start = time.perf_counter()
            ran = code.handle("execute", {"code": task["program"]})
            seconds = time.perf_counter() - start
            if "error" in ran:
                raise SystemExit(f"{label} {task['task']}: {ran['error']}")
            code_read = count(docs) + count(json.dumps(ran))
            rows.append({"document": label, "task": task["task"], "calls": len(task["calls"]),
                         "tools": answers, "discover": trio_read, "code": code_read,
                         "code_docs": count(docs), "code_output": count(json.dumps(ran)),
                         "seconds": seconds, "output": ran["output"]})
        code.sandbox.close()
    for row in rows:
        row["definitions"] = modes
        row["operations"] = len(app.functions)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The markdown tables: tool definitions per mode, then tokens read per task."""
    out = ["| document | tools mode | discover mode | code mode | code / tools |",
           "| --- | ---: | ---: | ---: | ---: |"]
    for label in DOCUMENTS:
        first = next(r for r in rows if r["document"] == label)
        modes = first["definitions"]
        out.append(f"| {label} ({first['operations']:,} operations) | {modes['tools']:,} | "
                   f"{modes['discover']:,} | "
                   f"{modes['code']:,} | {100 * modes['code'] / modes['tools']:.2f} % |")
    out += ["", "| document | task | calls | tools mode | discover mode | code mode "
            "(docs + output) | execute, s |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| {r['document']} | {r['task']} | {r['calls']} | {r['tools']:,} | "
                   f"{r['discover']:,} | {r['code']:,} ({r['code_docs']:,} + "
                   f"{r['code_output']:,}) | {r['seconds']:.1f} |")
    for label in DOCUMENTS:
        mine = [r for r in rows if r["document"] == label]
        d = mine[0]["definitions"]
        total = {m: d[m] + sum(r[m] for r in mine) for m in ("tools", "discover", "code")}
        out.append(f"| {label} | **all tasks, definitions included** | "
                   f"{sum(r['calls'] for r in mine)} | {total['tools']:,} | "
                   f"{total['discover']:,} | {total['code']:,} | |")
    return "\n".join(out)


def main() -> None:
    rows = [row for label, rel in DOCUMENTS.items() for row in measure(label, rel)]
    print(table(rows))
    for row in rows:
        print(f"\n{row['document']}, {row['task']}: the program printed\n{row['output']}")


if __name__ == "__main__":
    main()
