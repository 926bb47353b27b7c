// An MCP server built with the TypeScript SDK (handshake era only) whose tool asks the person in the middle of a call.
//
// Usage: node ask_server.mjs   (stdio)
// Tool `ask(question)`: elicits {name: string (required), count: integer} and answers "NAME xCOUNT", or the action;
// tool `roots`: the client's roots as [[name, uri], ...].
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "asker", version: "1.0.0" });

server.registerTool(
  "ask",
  { description: "Ask the person for a name and a count.", inputSchema: { question: z.string() } },
  async ({ question }) => {
    const answer = await server.server.elicitInput({
      message: question,
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "who" },
          count: { type: "integer", description: "how many", default: 1 },
        },
        required: ["name"],
      },
    });
    const text = answer.action === "accept" ? `${answer.content.name} x${answer.content.count ?? 1}` : answer.action;
    return { content: [{ type: "text", text }] };
  },
);

server.registerTool("roots", { description: "The client's roots, as it lists them." }, async () => {
  const listed = await server.server.listRoots();
  return { content: [{ type: "text", text: JSON.stringify(listed.roots.map((root) => [root.name, root.uri])) }] };
});

await server.connect(new StdioServerTransport());
