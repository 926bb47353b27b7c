// Drives `lackpy serve` with the TypeScript MCP SDK client, as most hosts do.
//
// Usage: node calls.mjs CONFIG_JSON
//   CONFIG_JSON: {"transport": "stdio", "command": ..., "args": [...], "env": {...}}
//             or {"transport": "http", "url": ..., "token": ...},
//   plus "calls": [{"name": ..., "tool": ..., "arguments": {...}}, ...].
// Lists the tools first (so the client checks every structured result against
// the tool's output schema, as a host does), then makes each call in turn and
// prints one JSON line per call: the result, or the error the client threw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const config = JSON.parse(process.argv[2]);

function transportOf(config) {
  if (config.transport === "stdio") {
    return new StdioClientTransport({ command: config.command, args: config.args, env: config.env, stderr: "ignore" });
  }
  const headers = config.token ? { Authorization: `Bearer ${config.token}` } : {};
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
}

function print(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

const client = new Client({ name: "lackpy-ts-test", version: "1.0.0" });
await client.connect(transportOf(config));
try {
  const listed = await client.listTools();
  print({ name: "tools/list", tools: listed.tools.map((tool) => ({ name: tool.name, outputSchema: tool.outputSchema ?? null })) });
  for (const call of config.calls) {
    try {
      const result = await client.callTool({ name: call.tool, arguments: call.arguments });
      const text = (result.content ?? []).filter((block) => block.type === "text").map((block) => block.text).join("\n");
      print({ name: call.name, isError: result.isError ?? false, text, structured: result.structuredContent ?? null });
    } catch (error) {
      print({ name: call.name, thrown: String(error?.message ?? error), code: error?.code ?? null });
    }
  }
} finally {
  await client.close();
}
