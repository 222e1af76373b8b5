"""What ``handle`` adds per tool call over calling ``execute`` for each call by hand.

Both sides send the same calls with the same ``httpx.Client`` over an in-process
``httpx.MockTransport`` that answers a fixed JSON body, so the difference is the agent
loop's own work: reading the calls out of the provider's response, parsing (and trying
to repair) the arguments, the outcome text with credentials redacted, and the result
messages. ``execute`` gets the arguments as the model's JSON text, as ``handle`` does.

    python benchmarks/handle_bench.py [--runs 15] [--rounds 200] [--calls 1,8] [--json]

Prints one row per provider and calls-per-response: CPU microseconds per call for the
by-hand loop and for ``handle`` (medians of the runs, the two sides interleaved) and the
median of the paired differences.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import httpllm
from httpllm.execute import execute

SPEC = Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml"
KEY = "bench-secret-key"
BODY = {"id": 7, "name": "Rex", "tag": "dog", "owner": {"id": 1, "name": "Ada"}}


def _chat(calls: list[tuple[str, str, str]]) -> Any:
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": i, "type": "function",
                            "function": {"name": n, "arguments": a}} for i, n, a in calls]}}]})


def _anthropic(calls: list[tuple[str, str, str]]) -> Any:
    from anthropic.types import Message

    return Message.model_validate({
        "id": "m", "type": "message", "role": "assistant", "model": "c",
        "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [{"type": "tool_use", "id": i, "name": n, "input": json.loads(a)}
                    for i, n, a in calls]})


def _gemini(calls: list[tuple[str, str, str]]) -> Any:
    from google.genai import types

    return types.GenerateContentResponse.model_validate({"candidates": [{"content": {
        "role": "model", "parts": [{"function_call": {"id": i, "name": n, "args": json.loads(a)}}
                                   for i, n, a in calls]}}]})


def _bedrock(calls: list[tuple[str, str, str]]) -> Any:
    return {"output": {"message": {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": i, "name": n, "input": json.loads(a)}}
        for i, n, a in calls]}}}


PROVIDERS: dict[str, tuple[str, Callable[[list[tuple[str, str, str]]], Any]]] = {
    "chatgpt": ("chatgpt", _chat),
    "claude": ("claude", _anthropic),
    "gemini": ("gemini", _gemini),
    "bedrock": ("bedrock", _bedrock),
}


def _us_per_call(work: Callable[[], object], rounds: int, calls: int) -> float:
    """CPU microseconds of this process per call (other processes on the shared machine
    do not count; the mock transport keeps all the work in this process)."""
    start = time.process_time()
    for _ in range(rounds):
        work()
    return (time.process_time() - start) / (rounds * calls) * 1e6


def measure(provider: str, calls: int, *, rounds: int, runs: int) -> dict[str, Any]:
    """One row: by-hand and handle microseconds per call, median of ``runs``."""
    name, build = PROVIDERS[provider]
    app = httpllm.compile(SPEC, provider=name)
    made = [(f"call_{k}", "getPet", json.dumps({"petId": k})) for k in range(calls)]
    response = build(made)
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=BODY))
    options = {"auth": {"apiKey": KEY}, "base_url": "http://pets.test/v1"}
    with httpx.Client(transport=transport) as client:
        function = app.function("getPet")

        def by_hand() -> object:
            return [execute(function, a, client=client, **options) for _, _, a in made]

        def handled() -> object:
            return app.handle(response, client=client, **options)

        sent = json.dumps(app.handle(response, client=client, **options))
        assert sent.count("Rex") == calls and "Invalid" not in sent and KEY not in sent
        for work in (by_hand, handled):  # warm-up: validators compiled, caches filled
            work()
        pairs = [(_us_per_call(by_hand, rounds, calls), _us_per_call(handled, rounds, calls))
                 for _ in range(runs)]  # interleaved: both sides see the same stretch
    execute_us = statistics.median(p[0] for p in pairs)
    handle_us = statistics.median(p[1] for p in pairs)
    added = statistics.median(p[1] - p[0] for p in pairs)
    return {"provider": provider, "calls": calls, "execute_us": round(execute_us, 1),
            "handle_us": round(handle_us, 1), "added_us": round(added, 1),
            "added_pct": round(100 * added / execute_us, 1)}


def main() -> None:
    """Print the table (or JSON lines with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--calls", default="1,8", help="calls per response, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.json:
        print(f"{'provider':10} {'calls':>5} {'execute µs/call':>16} {'handle µs/call':>15} "
              f"{'added µs/call':>14} {'added %':>8}")
    for provider in PROVIDERS:
        for calls in (int(c) for c in args.calls.split(",")):
            row = measure(provider, calls, rounds=args.rounds, runs=args.runs)
            if args.json:
                print(json.dumps(row))
            else:
                print(f"{row['provider']:10} {row['calls']:>5} {row['execute_us']:>16} "
                      f"{row['handle_us']:>15} {row['added_us']:>14} {row['added_pct']:>8}")


if __name__ == "__main__":
    main()
