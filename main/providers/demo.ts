/**
 * The built-in offline demo model (`demo/agent`): no key, no network. It streams a scripted tool loop
 * (demo-script.ts) through the same StreamFn contract as the real providers, in small chunks so streaming shows.
 */
import type { Message } from '../engine/messages.js';
import { planDemoTurn } from './demo-script.js';
import { runProviderStream, type DoneReason, type StreamContext } from './stream-runner.js';
import type { ModelDef, ProviderEvent, StreamFn, StreamRequest } from './types.js';

export const DEMO_MODEL: ModelDef = {
  provider: 'demo',
  id: 'agent',
  api: 'demo',
  contextWindow: 200_000,
  maxTokens: 8192,
  reasoning: true,
};

export interface DemoOptions {
  /** Pause between streamed chunks (default 12 ms; tests pass 0). */
  chunkDelayMs?: number;
  /** Characters per streamed chunk (default 6). */
  chunkChars?: number;
}

const estimateTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4));

function promptChars(req: StreamRequest): number {
  const msgChars = (m: Message): number =>
    m.role === 'assistant'
      ? m.content.reduce(
          (n, b) => n + (b.type === 'text' ? b.text.length : b.type === 'thinking' ? b.thinking.length : JSON.stringify(b.arguments).length + b.name.length),
          0,
        )
      : m.content.length;
  return req.systemPrompt.length + JSON.stringify(req.tools).length + req.messages.reduce((n, m) => n + msgChars(m), 0);
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * AGENTDESK_DEMO_CHUNK_MS: the demo's pause between chunks, a whole number of milliseconds (the tests set 0: a demo
 * turn is ~160 chunks, ~2 s of pauses at the default); anything else leaves the default.
 */
export function demoChunkDelayFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.AGENTDESK_DEMO_CHUNK_MS;
  return v !== undefined && /^\d{1,7}$/.test(v) ? Number(v) : undefined;
}

export function createDemoStream(opts: DemoOptions = {}): StreamFn {
  const delay = opts.chunkDelayMs ?? 12;
  const size = Math.max(1, opts.chunkChars ?? 6);
  return (req) => runProviderStream(req, (ctx) => demoBody(req, ctx, delay, size));
}

async function* demoBody(
  req: StreamRequest,
  ctx: StreamContext,
  delay: number,
  size: number,
): AsyncGenerator<ProviderEvent, DoneReason> {
  const b = ctx.builder;
  const step = planDemoTurn(req.messages, req.tools.map((t) => t.name));
  const input = estimateTokens(promptChars(req));
  let outChars = 0;

  const pause = async () => {
    if (delay > 0) await ctx.watch(sleep(delay));
    else await ctx.watch(Promise.resolve()); // still notices an abort between chunks
  };
  const usage = () => {
    const output = estimateTokens(outChars);
    return b.setUsage({ input, output, cacheRead: 0, cacheWrite: 0, total: input + output });
  };

  yield { type: 'message_start', id: `demo_${req.messages.length}` };
  yield usage();

  const streamed = (kind: 'thinking' | 'text', text: string) => ({ kind, text });
  const parts = [
    // Thinking streams at every level: the demo exists to show the feature; the UI decides what is visible.
    ...(step.thinking ? [streamed('thinking', step.thinking)] : []),
    ...(step.kind === 'reply' ? [streamed('text', step.text)] : step.text ? [streamed('text', step.text)] : []),
  ];
  for (const part of parts) {
    for (const piece of chunks(part.text, size)) {
      await pause();
      const e = part.kind === 'thinking' ? b.appendThinking('thinking', piece) : b.appendText('text', piece);
      outChars += piece.length;
      if (e) yield e;
    }
  }

  if (step.kind === 'tool') {
    await pause();
    const { index, event } = b.startToolCall(`demo_${req.messages.length}_${step.tool}`, step.tool);
    yield event;
    const json = JSON.stringify(step.args);
    for (const piece of chunks(json, size)) {
      await pause();
      const e = b.appendToolArgs(index, piece);
      outChars += piece.length;
      if (e) yield e;
    }
    const end = b.endToolCall(index);
    if (end) yield end;
  }
  yield usage();
  return step.kind === 'tool' ? 'toolUse' : 'stop';
}
