// An independent MCP client for review's server test: the official TypeScript SDK connects to
// `review mcp` over stdio, lists the tools and calls one, and prints what it saw as JSON. The
// SDK checks the result against the tool's outputSchema itself.
//
// node client.mjs REVIEW_BINARY ARGS...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "ignore" });
const client = new Client({ name: "review-test-client", version: "0.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const result = await client.callTool({ name: "list_threads", arguments: { pr: "1" } });
console.log(
  JSON.stringify({
    server: client.getServerVersion(),
    instructions: client.getInstructions(),
    tools: listed.tools.map((t) => ({
      name: t.name,
      readOnly: t.annotations?.readOnlyHint ?? null,
      outputSchema: Boolean(t.outputSchema),
    })),
    result,
  }),
);
await client.close();
