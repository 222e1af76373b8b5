// The official MCP TypeScript SDK client, as a host uses it: connect (stdio or streamable
// HTTP), list the tools page by page with client.listTools() following nextCursor, call
// some, and print one JSON report on stdout.
//
// Usage: node ts_client.mjs '<plan JSON>'
//   plan: {"transport": "stdio", "command": "...", "args": [...]}
//         or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp"},
//         plus "calls": [{"name": ..., "arguments": {...}}] and "timeoutMs".
// Report: {"protocolVersion", "listSeconds", "pages": [{"tools", "bytes"}], "names",
//          "calls": [{"name", "isError", "structured", "text", "thrown"}]}
// ("bytes": the page's result as JSON; "thrown": the client refused the answer).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(process.argv[2]);
const options = { timeout: plan.timeoutMs ?? 120000 };

function transportFor(plan) {
  if (plan.transport === "stdio") {
    // The server gets this process's environment (PYTHONPATH), not the SDK's short default.
    return new StdioClientTransport({ command: plan.command, args: plan.args, env: process.env,
                                      stderr: "inherit" });
  }
  return new StreamableHTTPClientTransport(new URL(plan.url));
}

const client = new Client({ name: "httpllm-matrix", version: "1.0.0" });
await client.connect(transportFor(plan), options);
const report = { protocolVersion: client.transport.protocolVersion ?? null, pages: [], names: [],
                 calls: [] };

const began = performance.now();
let cursor;
do {
  const page = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
  report.pages.push({ tools: page.tools.length,
                      bytes: Buffer.byteLength(JSON.stringify(page)) });
  report.names.push(...page.tools.map((tool) => tool.name));
  cursor = page.nextCursor;
} while (cursor !== undefined);
report.listSeconds = (performance.now() - began) / 1000;

for (const call of plan.calls ?? []) {
  try {
    const result = await client.callTool({ name: call.name, arguments: call.arguments },
                                         undefined, options);
    const text = (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text);
    report.calls.push({ name: call.name, isError: result.isError === true,
                        structured: result.structuredContent ?? null,
                        text: text.join("\n").slice(0, 2000), thrown: null });
  } catch (error) {
    report.calls.push({ name: call.name, isError: null, structured: null, text: "",
                        thrown: String(error?.message ?? error).slice(0, 2000) });
  }
}
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
