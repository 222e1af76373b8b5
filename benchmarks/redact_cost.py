"""What masking credentials in a large answer costs, before and after a change, side by side.

    python benchmarks/redact_cost.py [--size-mib 10] [--counts 1,3,10,30] [--rounds 3]
                                     [--baseline REV] [--json]

``execute.security.redact`` masks every secret of a call in an answer: raw, escaped,
percent- and HTML-encoded, and (8 characters or more) in base64 (both alphabets, any byte
offset) and hex. The answer here is ``--size-mib`` MiB of JSON text (objects with words,
numbers, URLs with percent escapes, HTML entities, JSON escapes and base64 blobs), each
secret planted in it a few times raw, in base64 and in hex. Secrets are either
alphanumeric (24 characters) or punctuation only (12 characters), ``--counts`` of them.

Each row times (CPU time, ``time.process_time``; the median of ``--rounds``, patterns
compiled before the clock starts, as a host masking many answers has them cached) the
current ``redact`` and the one of ``--baseline`` (a git revision, default the merge base
with ``main``; its ``security.py`` loaded as a module of its own), alternating, and checks
both give the same text.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import random
import statistics
import string
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from httpllm.execute import security  # noqa: E402  (after the path is set)


def baseline(revision: str) -> ModuleType:
    """``execute/security.py`` as it was at ``revision``, as a module of its own."""
    source = subprocess.run(["git", "show", f"{revision}:src/httpllm/execute/security.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    path = Path("/tmp") / f"httpllm_security_{revision.replace('/', '_')}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("httpllm_security_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def secrets(kind: str, count: int, rng: random.Random) -> list[str]:
    if kind == "alnum":
        alphabet, length = string.ascii_letters + string.digits, 24
    else:
        alphabet, length = string.punctuation, 12
    return ["".join(rng.choice(alphabet) for _ in range(length)) for _ in range(count)]


def answer(size: int, planted: list[str], rng: random.Random) -> str:
    """About ``size`` characters of JSON text, each of ``planted`` in it raw, base64
    (at a random byte offset) and hex, twice each."""
    words = ["id", "name", "status", "created_at", "url", "description", "token", "value"]
    blob = base64.b64encode(rng.randbytes(3000)).decode()
    parts: list[str] = []
    total = 0
    index = 0
    while total < size:
        record = {
            "id": index, "name": " ".join(rng.choices(words, k=5)),
            "url": f"https://api.example.com/v1/items/{index}?q=a%20b&sort=-created%2Casc",
            "html": "&lt;b&gt;caf&#233; &amp; cr&#xE8;me&lt;/b&gt;",
            "escaped": "line\\nnext \\u00e9 \\\"quoted\\\" C:\\\\path",
            "blob": blob[rng.randrange(0, 2000):][:rng.randrange(200, 1000)],
            "score": rng.random(),
        }
        text = json.dumps(record)
        parts.append(text)
        total += len(text) + 1
        index += 1
    for secret in planted:
        data = secret.encode()
        for form in (secret, base64.b64encode(bytes(rng.randrange(3)) + data).decode(),
                     data.hex()):
            for _ in range(2):
                at = rng.randrange(len(parts))
                parts[at] = parts[at][:-1] + f', "echo": {json.dumps(form)}}}'
    return "[" + ",".join(parts) + "]"


def timed(redact: Any, text: str, found: list[str]) -> float:
    start = time.process_time()
    redact(text, found)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=float, default=10)
    parser.add_argument("--counts", default="1,3,10,30")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    revision = args.baseline or subprocess.run(
        ["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True, text=True,
        check=True).stdout.strip()
    old = baseline(revision)
    rng = random.Random(7)
    size = int(args.size_mib * 1024 * 1024)
    rows = []
    for kind in ("alnum", "punct"):
        for count in (int(c) for c in args.counts.split(",")):
            found = secrets(kind, count, rng)
            text = answer(size, found, rng)
            before_out, after_out = old.redact(text, found), security.redact(text, found)
            same = before_out == after_out  # (also compiles both sets of patterns)
            before, after = [], []
            for _ in range(args.rounds):
                before.append(timed(old.redact, text, found))
                after.append(timed(security.redact, text, found))
            rows.append({"secrets": count, "kind": kind, "mib": round(len(text) / 2**20, 2),
                         "before_s": round(statistics.median(before), 3),
                         "after_s": round(statistics.median(after), 3), "same": same,
                         "left": sum(after_out.count(s) for s in found)})
    if args.json:
        print(json.dumps({"baseline": revision, "rows": rows}, indent=2))
        return
    print(f"baseline {revision[:10]}; CPU seconds, median of {args.rounds}")
    print("| secrets | kind | MiB | before s | after s | same output |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['secrets']} | {row['kind']} | {row['mib']} | {row['before_s']} | "
              f"{row['after_s']} | {row['same']} |")


if __name__ == "__main__":
    main()
