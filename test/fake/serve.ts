/**
 * Standalone launcher for benchmarks and manual CLI runs:
 *   npx tsx test/fake/serve.ts --api anthropic|openai [--port N] [--scenario tool-loop|text]
 *       [--tool NAME] [--args JSON] [--final TEXT] [--text TEXT | --text-repeat N] [--chunk N] [--thinking TEXT] [--delay MS]
 *       [--first-byte MS]
 * Prints ONE line `{"baseUrl":"…"}` to stdout and serves until killed.
 * tool-loop (default tool `list`, args {"path":"."}) asks for one tool call, then answers
 * `--final` (default "Done. Tool result: <first 200 chars>"). `--text-repeat N` sends N characters of filler text;
 * `--chunk N` streams text N characters per event (default 12); `--delay MS` waits between events and `--first-byte MS`
 * before the first one (a model's time to first token).
 */
import { parseArgs } from 'node:util';
import { startFakeAnthropic, startFakeOpenAI, toolLoopScenario, type FakeStep, type FakeTurn } from './index.js';

const { values } = parseArgs({
  options: {
    api: { type: 'string', default: 'anthropic' },
    port: { type: 'string', default: '0' },
    scenario: { type: 'string', default: 'text' },
    tool: { type: 'string', default: 'list' },
    args: { type: 'string', default: '{"path":"."}' },
    final: { type: 'string' },
    text: { type: 'string', default: 'Hello from the fake server.' },
    thinking: { type: 'string' },
    delay: { type: 'string', default: '0' },
    'first-byte': { type: 'string', default: '0' },
    'text-repeat': { type: 'string' },
    chunk: { type: 'string', default: '12' },
  },
});

function fail(message: string): never {
  process.stderr.write(`serve: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  if (values.api !== 'anthropic' && values.api !== 'openai') fail('--api must be anthropic or openai');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0) fail('--port must be a non-negative integer');
  const delayMs = Number(values.delay);
  const firstByteMs = Number(values['first-byte']);
  if (!Number.isFinite(firstByteMs) || firstByteMs < 0) fail('--first-byte must be a number of ms');
  const chunkSize = Number(values.chunk);
  if (!Number.isInteger(chunkSize) || chunkSize < 1) fail('--chunk must be a positive integer');
  const repeat = values['text-repeat'] === undefined ? undefined : Number(values['text-repeat']);
  const text = repeat === undefined ? values.text : 'abcdefghij'.repeat(Math.ceil(repeat / 10)).slice(0, repeat);
  const thinking = values.thinking !== undefined ? { thinking: values.thinking } : {};
  let step: FakeStep;
  if (values.scenario === 'text') {
    step = { ...thinking, text, chunkSize, delayMs, firstByteMs };
  } else if (values.scenario === 'tool-loop') {
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(values.args) as Record<string, unknown>;
    } catch {
      fail('--args must be a JSON object');
    }
    const final = values.final;
    const inner = toolLoopScenario({
      toolName: values.tool,
      args,
      finalText: (result) => final ?? `Done. Tool result: ${result.slice(0, 200)}`,
      ...thinking,
    });
    step = (req): FakeTurn => ({ ...inner(req), chunkSize, delayMs, firstByteMs });
  } else {
    fail('--scenario must be tool-loop or text');
  }
  const fake = values.api === 'anthropic' ? await startFakeAnthropic({ port }) : await startFakeOpenAI({ port });
  fake.setDefault(step);
  process.stdout.write(JSON.stringify({ baseUrl: fake.baseUrl }) + '\n');
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
