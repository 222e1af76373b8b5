// The official MCP TypeScript SDK client over stdio, as a host calls tools.
// argv: the server command and its arguments; stdin: [[tool, arguments], ...] as JSON.
// stdout: one {"result": CallToolResult} or {"error": {"code", "message"}} per call.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const calls = JSON.parse(await new Response(process.stdin).text());
const client = new Client({ name: "httpllm-answers-test", version: "1" });
await client.connect(new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" }));
await client.listTools(); // the client keeps each tool's output validator from here
const out = [];
for (const [name, argumentsObject] of calls) {
  try {
    out.push({ result: await client.callTool({ name, arguments: argumentsObject }) });
  } catch (error) {
    out.push({ error: { code: error.code ?? null, message: String(error.message) } });
  }
}
await client.close();
process.stdout.write(JSON.stringify(out));
