// Yardstick for `npm run bench` (MCP rows): what the reference server itself takes for one call — spawn, initialize,
// tools/list, tools/call echo — through the SDK's own stdio transport, timed after the SDK has loaded and up to the
// result (closing is not counted; the CLI's own close is in its turn). Prints the milliseconds.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [server] = process.argv.slice(2);
const t0 = performance.now();
const client = new Client({ name: 'bench', version: '0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, 'stdio'], stderr: 'ignore' }));
await client.listTools();
const result = await client.callTool({ name: 'echo', arguments: { message: 'bench' } });
const ms = performance.now() - t0;
await client.close();
if (!JSON.stringify(result).includes('Echo: bench')) throw new Error(`unexpected result ${JSON.stringify(result)}`);
process.stdout.write(`${ms.toFixed(1)}\n`);
