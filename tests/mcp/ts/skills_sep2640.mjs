// Reads `lackpy serve`'s skills as SEP-2640 with the TypeScript MCP SDK client, as a host does, and checks every file.
//
// Usage: node skills_sep2640.mjs CONFIG_JSON
//   CONFIG_JSON: {"command": ..., "args": [...], "env": {...}, "refuse": {"get": [URI...], "read": [URI...]}}
// Over stdio: the server's capabilities, every page of skills/list (following nextCursor), skills/get of each
// entry, resources/read of every file an entry lists (its size and sha256 digest checked here, with node's crypto),
// then the URIs that must be refused. One JSON line per step; a step that throws prints what was thrown.
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { z } from "zod";

const config = JSON.parse(process.argv[2]);
const Any = z.object({}).passthrough();

function print(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

const client = new Client({ name: "lackpy-ts-sep2640-test", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: config.command, args: config.args, env: config.env, stderr: "ignore" }));
let ok = true;
try {
  const capabilities = client.getServerCapabilities() ?? {};
  print({ name: "capabilities", extensions: capabilities.extensions ?? null, resources: capabilities.resources ?? null });

  const entries = [];
  let cursor;
  for (let pages = 0; pages < 50; pages++) {
    const page = await client.request({ method: "skills/list", params: cursor === undefined ? {} : { cursor } }, Any);
    print({ name: "page", page });
    entries.push(...page.skills);
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }

  for (const entry of entries) {
    const result = await client.request({ method: "skills/get", params: { uri: entry.uri } }, Any);
    print({ name: "get", uri: entry.uri, result });
    for (const item of entry.resources) {
      const read = await client.readResource({ uri: item.uri });
      const content = read.contents[0];
      const bytes = "text" in content ? Buffer.from(content.text, "utf8") : Buffer.from(content.blob, "base64");
      const digest = "sha256:" + createHash("sha256").update(bytes).digest("hex");
      const line = {
        name: "file", uri: item.uri, mimeType: content.mimeType ?? null, kind: "text" in content ? "text" : "blob",
        sizeMatches: bytes.length === item.size, digestMatches: digest === item.digest,
      };
      if (item.uri === entry.uri) line.text = content.text;
      ok = ok && line.sizeMatches && line.digestMatches;
      print(line);
    }
  }

  for (const uri of config.refuse?.get ?? []) {
    try {
      await client.request({ method: "skills/get", params: { uri } }, Any);
      ok = false;
      print({ name: "served", method: "skills/get", uri });
    } catch (error) {
      print({ name: "refused", method: "skills/get", uri, thrown: String(error?.message ?? error), code: error?.code ?? null });
    }
  }
  for (const uri of config.refuse?.read ?? []) {
    try {
      await client.readResource({ uri });
      ok = false;
      print({ name: "served", method: "resources/read", uri });
    } catch (error) {
      print({ name: "refused", method: "resources/read", uri, thrown: String(error?.message ?? error), code: error?.code ?? null });
    }
  }
} catch (error) {
  ok = false;
  print({ name: "error", thrown: String(error?.stack ?? error) });
} finally {
  print({ name: "done", ok });
  await client.close();
}
