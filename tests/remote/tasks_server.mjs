// A stdio MCP server (TypeScript SDK, experimental tasks) whose tools lackpy must call as tasks.
// Usage: node tasks_server.mjs MARKER_DIR   (a cancelled task writes MARKER_DIR/cancelled-<tool>)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const sdk = join(here, '..', 'mcp', 'ts', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const { McpServer } = await import(join(sdk, 'server', 'mcp.js'));
const { StdioServerTransport } = await import(join(sdk, 'server', 'stdio.js'));
const { InMemoryTaskStore, InMemoryTaskMessageQueue } = await import(join(sdk, 'experimental', 'tasks', 'stores', 'in-memory.js'));
const { ElicitResultSchema } = await import(join(sdk, 'types.js'));
const z = createRequire(join(sdk, 'x.js'))('zod/v4');

const markers = process.argv[2];
const toolOf = new Map();

// The store writes a marker when a task is cancelled, so a test can see tasks/cancel arrived.
class MarkingStore extends InMemoryTaskStore {
  async updateTaskStatus(taskId, status, message, sessionId) {
    await super.updateTaskStatus(taskId, status, message, sessionId);
    if (status === 'cancelled' && markers) writeFileSync(join(markers, `cancelled-${toolOf.get(taskId)}`), taskId);
  }
}

const server = new McpServer({ name: 'tasks', version: '1.0.0' }, {
  capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
  taskStore: new MarkingStore(),
  taskMessageQueue: new InMemoryTaskMessageQueue(),  // a task's questions wait for the client's tasks/result
});

function taskTool(name, execution, work) {
  server.experimental.tasks.registerToolTask(name, {
    description: `${name} (a task)`,
    inputSchema: { topic: z.string().default('x') },
    execution,
  }, {
    async createTask({ topic }, { taskStore, taskRequestedTtl }) {
      const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? 60000, pollInterval: 100 });
      toolOf.set(task.taskId, name);
      setTimeout(() => work(taskStore, task.taskId, topic, taskRequestedTtl).catch(() => {}), 0);
      return { task };
    },
    async getTask(_args, { taskId, taskStore }) { return await taskStore.getTask(taskId); },
    async getTaskResult(_args, { taskId, taskStore }) { return await taskStore.getTaskResult(taskId); },
  });
}

const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });

taskTool('research', { taskSupport: 'required' }, async (store, id, topic) => {
  await later(300);
  await store.storeTaskResult(id, 'completed', text(`report on ${topic}`));
});
taskTool('broken', { taskSupport: 'required' }, async (store, id) => {
  await later(50);
  await store.storeTaskResult(id, 'failed', { ...text('the archive is offline'), isError: true });
});
taskTool('refused', { taskSupport: 'required' }, async (store, id) => {
  await later(50);
  await store.updateTaskStatus(id, 'failed', 'quota exhausted');
});
taskTool('slow', { taskSupport: 'required' }, async (store, id) => {
  await later(60000);
  await store.storeTaskResult(id, 'completed', text('too late'));
});
// Asks the client a question in the middle of the task (status input_required), answered through tasks/result.
taskTool('asking', { taskSupport: 'required' }, async (store, id) => {
  await store.updateTaskStatus(id, 'input_required');
  const form = { type: 'object', properties: { colour: { type: 'string', description: 'a colour' } }, required: ['colour'] };
  const answer = await server.server.request(
    { method: 'elicitation/create', params: { mode: 'form', message: 'Which colour?', requestedSchema: form } },
    ElicitResultSchema, { relatedTask: { taskId: id } });
  await store.updateTaskStatus(id, 'working');
  await store.storeTaskResult(id, 'completed', text(`${answer.action}: ${answer.content?.colour}`));
});
taskTool('either', { taskSupport: 'optional' }, async (store, id, topic, ttl) => {
  await store.storeTaskResult(id, 'completed', text(ttl === undefined ? 'called plainly' : 'called as a task'));
});

// The server ends with its client's stdin, tasks still working or not (a client that left cancels nothing).
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
