// httpllm code mode: the runtime a program runs in, inside Deno with no permission.
//
// The program's only I/O is the global `api`: each method sends one JSON line
// {"t":"call","id":N,"op":NAME,"args":{...}} on stdout and waits for the host's
// {"t":"ret","id":N,"ok":true,"value":...} or {"t":"ret","id":N,"ok":false,"error":{...}}
// on stdin. What the program prints goes out as {"t":"out","s":TEXT}; the end of the
// program as {"t":"end","error":null|{name,message,stack}}. Credentials never come here:
// the host builds and sends every request.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const stdout = Deno.stdout;
const stdin = Deno.stdin;
const exit = Deno.exit;
const pending = new Map();
let nextId = 1;
let printed = 0;
let printLimit = 0;
let ended = false;

function send(message) {
  const data = encoder.encode(JSON.stringify(message) + "\n");
  let written = 0;
  while (written < data.length) written += stdout.writeSync(data.subarray(written));
}

class ApiError extends Error {
  constructor(message, status, body, operation, location) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.operation = operation;
    this.location = location ?? null;
  }
}

function failure(error) {
  if (error.kind === "api") {
    return new ApiError(error.message, error.status, error.body, error.operation,
                        error.location);
  }
  const made = new Error(error.message);
  made.name = error.name || "Error";
  return made;
}

function call(name, path, args) {
  let text;
  try {
    text = JSON.stringify(args === undefined ? {} : args);
  } catch (e) {
    return Promise.reject(new TypeError(`${path}: the arguments are not JSON (${e.message})`));
  }
  if (text === undefined) {
    return Promise.reject(new TypeError(`${path}: the arguments must be an object`));
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    const head = `{"t":"call","id":${id},"op":${JSON.stringify(name)},"args":`;
    const data = encoder.encode(head + text + "}\n");
    let written = 0;
    while (written < data.length) written += stdout.writeSync(data.subarray(written));
  });
}

function build(table) {
  const root = Object.create(null);
  for (const [path, name] of Object.entries(table)) {
    const parts = path.split(".");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      if (!Object.hasOwn(node, part)) {
        Object.defineProperty(node, part, { value: Object.create(null), enumerable: true });
      }
      node = node[part];
    }
    const method = parts[parts.length - 1];
    const where = `api.${path}`;
    Object.defineProperty(node, method, {
      value: (args) => call(name, where, args),
      enumerable: true,
    });
  }
  const frozen = [root];
  while (frozen.length) {
    const node = frozen.pop();
    for (const key of Object.keys(node)) {
      if (typeof node[key] === "object") frozen.push(node[key]);
    }
    Object.freeze(node);
  }
  return root;
}

function show(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    const text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v));
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

function print(...values) {
  if (printed > printLimit) return;
  const text = values.map(show).join(" ");
  printed += text.length + 1;
  send({ t: "out", s: printed > printLimit ? text.slice(0, printLimit) : text });
}

async function listen() {
  const reader = stdin.readable.getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 1);
      const waiting = pending.get(message.id);
      if (waiting === undefined) continue;
      pending.delete(message.id);
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(failure(message.error));
    }
  }
}

function described(error) {
  if (error instanceof Error) {
    return { name: error.name, message: String(error.message), stack: String(error.stack || "") };
  }
  return { name: "Error", message: `the program threw ${show(error)}`, stack: "" };
}

export function start(table, limit) {
  printLimit = limit;
  globalThis.api = build(table);
  globalThis.ApiError = ApiError;
  for (const level of ["log", "info", "debug", "warn", "error", "trace", "dir", "table"]) {
    console[level] = print;
  }
  // No other way to load code: a Worker loads a module, which needs no read permission.
  for (const name of ["Worker", "SharedWorker"]) {
    Object.defineProperty(globalThis, name, { value: undefined, configurable: false });
  }
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    finish(event.reason);
  });
  listen().catch((error) => finish(error));
}

export function finish(error) {
  if (ended) return;
  ended = true;
  send({ t: "end", error: error === null ? null : described(error) });
  exit(0);
}
