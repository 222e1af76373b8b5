// The official TypeScript SDK client against `httpllm serve --mode code`: list the tools,
// call search_docs and execute with the arguments given, print the results as JSON.
// Usage: node client.mjs stdio '<command json array>' '<calls json>'
//        node client.mjs http <url> '<calls json>'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, callsText] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const [command, ...args] = JSON.parse(target);
  transport = new StdioClientTransport({ command, args, env: JSON.parse(process.env.SERVER_ENV || "{}"), stderr: "ignore" });
} else {
  transport = new StreamableHTTPClientTransport(new URL(target));
}
const client = new Client({ name: "httpllm-test", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const results = [];
for (const [name, args] of JSON.parse(callsText)) {
  results.push(await client.callTool({ name, arguments: args }));
}
console.log(JSON.stringify({ tools: listed.tools.map((t) => t.name), results }));
await client.close();
