#!/usr/bin/env node
// Peer benchmark: @samchon/openapi 6.0.1 `HttpLlm.application`.
//
//   node --expose-gc bench.mjs SPEC [--reference false|true] [--strict false|true]
//        [--runs N] [--warmup N] [--budget SECONDS] [--model chatgpt]
//
// Prints one JSON object on stdout.
//
// What is inside the timer (per run):
//   t0 -> OpenApi.convert(doc)                      (their upgrade to "emended" OpenAPI 3.1)
//      -> HttpLlm.application({document, config})   (migration + LLM schema composition)
//   t1 (= median_s)
//      -> JSON.stringify(functions as OpenAI tools)  ({type:"function", function:{name,
//                                                      description, parameters}})
//   t2 (= median_s_with_serialize; comparable with httpllm's compile -> tools() -> json.dumps)
// Process CPU time over the same spans is reported as median_cpu_s(_with_serialize); it
// includes V8's helper threads (concurrent GC, JIT) and is steadier on a busy machine.
//
// Outside the timer: reading the file, JSON.parse / YAML load, structuredClone of the
// parsed document (a fresh copy per run), gc() (when run with --expose-gc).
//
// Model selection: @samchon/openapi 6.x dropped the per-model configs of 2.x-4.x
// (`model: "chatgpt"`, IChatGptSchema...): it emits one unified ILlmSchema for every
// provider. `--model` is therefore accepted and recorded but changes nothing.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { HttpLlm, OpenApi } from "@samchon/openapi";

const require = createRequire(import.meta.url);

function parseArgs(argv) {
  const opts = {
    spec: null,
    reference: false,
    strict: false,
    runs: 7,
    warmup: 1,
    budget: 240,
    model: "chatgpt",
  };
  const bool = (v) => {
    if (v === "true" || v === "1") return true;
    if (v === "false" || v === "0") return false;
    throw new Error(`expected true|false, got ${v}`);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--reference") opts.reference = bool(next());
    else if (a === "--strict") opts.strict = bool(next());
    else if (a === "--runs") opts.runs = Number.parseInt(next(), 10);
    else if (a === "--warmup") opts.warmup = Number.parseInt(next(), 10);
    else if (a === "--budget") opts.budget = Number.parseFloat(next());
    else if (a === "--model") opts.model = next();
    else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else opts.spec = a;
  }
  if (!opts.spec) throw new Error("usage: bench.mjs SPEC [--reference false|true] [--runs N]");
  if (!(opts.runs >= 1)) throw new Error("--runs must be >= 1");
  return opts;
}

function loadDocument(path) {
  const text = readFileSync(path, "utf8");
  if (/\.ya?ml$/i.test(path)) {
    const yaml = require("js-yaml");
    return yaml.load(text);
  }
  return JSON.parse(text);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const seconds = (a, b) => Number(b - a) / 1e9;

function once(parsed, opts) {
  const doc = structuredClone(parsed); // fresh copy, outside the timer
  if (typeof globalThis.gc === "function") globalThis.gc();
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const app = HttpLlm.application({
    document: OpenApi.convert(doc),
    config: { reference: opts.reference, strict: opts.strict },
  });
  const t1 = process.hrtime.bigint();
  const c1 = process.cpuUsage(c0);
  const json = JSON.stringify(
    app.functions.map((f) => ({
      type: "function",
      function: { name: f.name, description: f.description, parameters: f.parameters },
    })),
  );
  const t2 = process.hrtime.bigint();
  const c2 = process.cpuUsage(c0);
  return {
    build: seconds(t0, t1),
    total: seconds(t0, t2),
    // process CPU time: includes V8's background GC / JIT threads.
    buildCpu: (c1.user + c1.system) / 1e6,
    totalCpu: (c2.user + c2.system) / 1e6,
    functions: app.functions.length,
    errors: app.errors.length,
    bytes: Buffer.byteLength(json),
    errorSample: app.errors.slice(0, 3).map((e) => ({
      method: e.method,
      path: e.path,
      messages: e.messages.slice(0, 2),
    })),
  };
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const version = require("@samchon/openapi/package.json").version;
  const parsed = loadDocument(opts.spec);
  const rssAfterLoad = process.memoryUsage().rss;
  const started = process.hrtime.bigint();
  let last = null;
  const warmup = [];
  const build = [];
  const total = [];
  const buildCpu = [];
  const totalCpu = [];
  // A partial line after every run, so that a caller that kills us on a timeout still
  // learns how long the runs took.
  const partial = () =>
    process.stdout.write(
      `${JSON.stringify({
        tool: "samchon",
        status: "partial",
        spec: opts.spec,
        reference: opts.reference,
        warmup_s: warmup,
        times_s: build,
        times_with_serialize_s: total,
      })}\n`,
    );
  for (let i = 0; i < opts.warmup; i++) {
    last = once(parsed, opts);
    warmup.push(last.total);
    partial();
  }
  let truncated = false;
  for (let i = 0; i < opts.runs; i++) {
    if (i > 0 && seconds(started, process.hrtime.bigint()) > opts.budget) {
      truncated = true;
      break;
    }
    last = once(parsed, opts);
    build.push(last.build);
    total.push(last.total);
    buildCpu.push(last.buildCpu);
    totalCpu.push(last.totalCpu);
    partial();
  }
  const out = {
    tool: "samchon",
    package: `@samchon/openapi@${version}`,
    node: process.version,
    spec: opts.spec,
    model: opts.model,
    model_note: "6.x has no per-model config; one unified ILlmSchema for all providers",
    reference: opts.reference,
    strict: opts.strict,
    call:
      "HttpLlm.application({ document: OpenApi.convert(doc), " +
      `config: { reference: ${opts.reference}, strict: ${opts.strict} } })`,
    runs: build.length,
    warmup: opts.warmup,
    warmup_s: warmup,
    budget_truncated: truncated,
    median_s: median(build),
    min_s: Math.min(...build),
    times_s: build,
    median_s_with_serialize: median(total),
    times_with_serialize_s: total,
    median_cpu_s: median(buildCpu),
    median_cpu_s_with_serialize: median(totalCpu),
    cpu_s: buildCpu,
    cpu_with_serialize_s: totalCpu,
    functions: last.functions,
    errors: last.errors,
    error_sample: last.errorSample,
    tools_json_bytes: last.bytes,
    // maxRSS is in KiB; it covers the whole process (parsed document + one clone included).
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    rss_after_load_bytes: rssAfterLoad,
    gc_between_runs: typeof globalThis.gc === "function",
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

try {
  main();
} catch (err) {
  process.stdout.write(
    `${JSON.stringify({ tool: "samchon", status: "error", error: String(err?.stack ?? err) })}\n`,
  );
  process.exit(1);
}
