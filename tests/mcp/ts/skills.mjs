// Drives `lackpy serve`'s skills with the TypeScript MCP SDK client, as most hosts do.
//
// Usage: node skills.mjs CONFIG_JSON
//   CONFIG_JSON: {"command": ..., "args": [...], "env": {...}, "prompt": NAME, "arguments": {...},
//                 "program": TEXT, "params": {...}}
// Over stdio: lists the prompts, gets PROMPT with ARGUMENTS, reads lackpy://skills, lists the tools (so the
// client checks structured results against output schemas) and runs PROGRAM with skill=PROMPT; prints one
// JSON line per step, or the error the client threw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const config = JSON.parse(process.argv[2]);

function print(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

async function step(name, work) {
  try {
    print({ name, ...(await work()) });
  } catch (error) {
    print({ name, thrown: String(error?.message ?? error), code: error?.code ?? null });
  }
}

const client = new Client({ name: "lackpy-ts-skills-test", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: config.command, args: config.args, env: config.env, stderr: "ignore" }));
try {
  await step("capabilities", async () => ({ prompts: client.getServerCapabilities()?.prompts ?? null }));
  await step("prompts/list", async () => ({ prompts: (await client.listPrompts()).prompts }));
  await step("prompts/get", async () => {
    const got = await client.getPrompt({ name: config.prompt, arguments: config.arguments });
    return { description: got.description, messages: got.messages };
  });
  await step("resources/read", async () => ({ contents: (await client.readResource({ uri: "lackpy://skills" })).contents }));
  await client.listTools();
  await step("run_program", async () => {
    const result = await client.callTool({ name: "run_program", arguments: { program: config.program, skill: config.prompt, params: config.params } });
    return { isError: result.isError ?? false, structured: result.structuredContent ?? null };
  });
} finally {
  await client.close();
}
