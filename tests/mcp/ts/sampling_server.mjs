// An MCP server built with the TypeScript SDK (handshake era only) whose tool asks its client to sample in the middle of a call.
//
// Usage: node sampling_server.mjs   (stdio)
// Tool `summarize(text)`: sends sampling/createMessage (a system prompt, the text, maxTokens 64) and answers
// {role, text, model, stop} as JSON, or "refused: MESSAGE" when the client answers with an error;
// tool `declared`: whether the client declared sampling.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "sampler", version: "1.0.0" });

server.registerTool(
  "summarize",
  { description: "Ask the client's model for a summary of text.", inputSchema: { text: z.string() } },
  async ({ text }) => {
    let shown;
    try {
      const answer = await server.server.createMessage({
        messages: [{ role: "user", content: { type: "text", text } }],
        systemPrompt: "You summarize in five words.",
        maxTokens: 64,
      });
      shown = JSON.stringify({ role: answer.role, text: answer.content.text, model: answer.model, stop: answer.stopReason });
    } catch (error) {
      shown = `refused: ${error.message}`;
    }
    return { content: [{ type: "text", text: shown }] };
  },
);

server.registerTool("declared", { description: "Whether the client declared sampling." }, async () => {
  const declared = server.server.getClientCapabilities()?.sampling !== undefined;
  return { content: [{ type: "text", text: JSON.stringify(declared) }] };
});

await server.connect(new StdioServerTransport());
