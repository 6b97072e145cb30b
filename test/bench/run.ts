/**
 * `npm run bench`: what the engine adds on top of the SDK stream.
 *
 * 1. Process level (/usr/bin/time -v): wall time and peak RSS of one `agentdesk agent` CLI turn against the fake
 *    Anthropic server, next to a bare Node script that streams the same reply with the SDK alone.
 * 2. In process: time per streamed delta through the SDK alone vs the full engine hot path (provider adapter +
 *    think-tag filter + call subscriber + event emitter), over a long reply.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic } from '../fake/index.js';
import { streamAnthropic } from '../../main/providers/anthropic.js';
import { CallSubscriber } from '../../main/engine/stream/call-subscriber.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import type { ModelDef } from '../../main/providers/types.js';

const ROOT = join(import.meta.dirname, '..', '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const REPLY = 'The quick brown fox jumps over the lazy dog. '.repeat(200); // 9 000 chars

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs a command under /usr/bin/time -v (async: the fake server lives in this process and must keep serving). */
function timeV(cmd: string, args: string[]): Promise<{ wallS: number; rssKb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-v', cmd, ...args], { cwd: ROOT, env: { ...process.env, ANTHROPIC_API_KEY: '' } });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} failed (${code}): ${stderr}`));
      const wall = /Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+(?:\.\d+)?)/.exec(stderr)!;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)!;
      resolve({ wallS: Number(wall[1] ?? 0) * 60 + Number(wall[2]), rssKb: Number(rss[1]) });
    });
  });
}

async function processLevel(baseUrl: string): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'agentdesk-bench-'));
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({
      providers: { fake: { api: 'anthropic', baseUrl, models: [{ id: 'bench', maxTokens: 4096 }] } },
      authProfiles: [{ id: 'fake:bench', provider: 'fake', apiKeyEnv: 'BENCH_KEY' }],
    }),
  );
  process.env.BENCH_KEY = 'sk-ant-bench';
  const rows: [string, string, string[]][] = [
    ['bare SDK script', 'node', [join(ROOT, 'test/bench/bare-sdk.mjs'), baseUrl, 'bench']],
    ['agentdesk CLI turn', 'node', [join(ROOT, 'bin/agentdesk.mjs'), 'agent', '--home', home, '--workspace', home, '--model', 'fake/bench', '--message', 'bench']],
    ['agentdesk CLI turn --json', 'node', [join(ROOT, 'bin/agentdesk.mjs'), 'agent', '--json', '--home', home, '--workspace', home, '--model', 'fake/bench', '--message', 'bench']],
  ];
  console.log(`\n1) one turn, ${REPLY.length}-char reply, median of ${RUNS} runs (/usr/bin/time -v)`);
  console.log('   command                       wall (s)   peak RSS (MB)');
  for (const [name, cmd, args] of rows) {
    await timeV(cmd, args); // warm the file cache
    const samples = [];
    for (let i = 0; i < RUNS; i++) samples.push(await timeV(cmd, args));
    console.log(
      `   ${name.padEnd(28)} ${median(samples.map((s) => s.wallS)).toFixed(3).padStart(8)}   ${(median(samples.map((s) => s.rssKb)) / 1024).toFixed(1).padStart(12)}`,
    );
  }
}

async function inProcess(baseUrl: string): Promise<void> {
  const model: ModelDef = { provider: 'fake', id: 'bench', api: 'anthropic', baseUrl, contextWindow: 200_000, maxTokens: 4096, reasoning: false };
  const client = new Anthropic({ apiKey: 'sk-ant-bench', baseURL: baseUrl, maxRetries: 0 });
  async function sdkOnly(): Promise<number> {
    let deltas = 0;
    const stream = await client.messages.create({ model: 'bench', max_tokens: 4096, stream: true, messages: [{ role: 'user', content: 'x' }] });
    for await (const e of stream) if (e.type === 'content_block_delta') deltas++;
    return deltas;
  }
  async function engine(): Promise<number> {
    let events = 0;
    const emitter = createRunEmitter('bench', 'main', () => void events++);
    const sub = new CallSubscriber(emitter, 0);
    for await (const e of streamAnthropic({
      model, apiKey: 'sk-ant-bench', systemPrompt: 'sys', messages: [{ role: 'user', content: 'x', timestamp: 0 }],
      tools: [], thinking: 'off', signal: new AbortController().signal, idleTimeoutMs: 30_000,
    })) sub.handle(e);
    sub.finish(() => { throw new Error('no terminal event'); });
    return events;
  }
  const ITER = 30;
  for (let i = 0; i < 5; i++) { await sdkOnly(); await engine(); } // warm-up (JIT, sockets)
  const t: Record<string, number[]> = { sdk: [], engine: [] };
  let deltas = 0;
  for (let i = 0; i < ITER; i++) {
    let s = performance.now(); deltas = await sdkOnly(); t.sdk!.push(performance.now() - s);
    s = performance.now(); await engine(); t.engine!.push(performance.now() - s);
  }
  const sdk = median(t.sdk!);
  const eng = median(t.engine!);
  console.log(`\n2) in process, one ${deltas}-delta reply, median of ${ITER}`);
  console.log(`   SDK raw stream alone: ${sdk.toFixed(2)} ms   engine hot path: ${eng.toFixed(2)} ms   overhead: ${(eng - sdk).toFixed(2)} ms (${(((eng - sdk) / deltas) * 1000).toFixed(1)} µs per delta)`);
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'out/main/cli.js'))) execFileSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const fake = await startFakeAnthropic();
  fake.setDefault({ text: REPLY, chunkSize: 12, usage: { input: 50, output: 2250 } });
  try {
    await processLevel(fake.baseUrl);
    await inProcess(fake.baseUrl);
  } finally {
    await fake.close();
  }
}

await main();
