// An MCP client the tests drive: the official TypeScript SDK's Client,
// which spawns the server given as arguments (cwd and environment: this
// process's) over stdio. It prints the server's tools as one JSON line,
// then, for each line {"name", "arguments"} read on stdin, the tool's
// result as one JSON line.
import readline from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, cwd: process.cwd(), env: process.env, stderr: "inherit" });
const client = new Client({ name: "git-wt-e2e", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
console.log(JSON.stringify(tools));
for await (const line of readline.createInterface({ input: process.stdin })) {
  const call = JSON.parse(line);
  console.log(JSON.stringify(await client.callTool(call)));
}
await client.close();
