/**
 * The fakes' context-window check and summary answers, through the REAL SDKs: an oversized request gets each API's
 * real overflow 400 with the actual numbers (classified as context_overflow), and a compaction summary request is
 * answered by the summary step whatever is queued.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyError } from '../../main/engine/classify.js';
import { SUMMARY_SYSTEM_PROMPT } from '../../main/engine/attempt/summary.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeProvider } from '../fake/index.js';

const KEY = 'sk-test-key-0123456789';
let anthropic: FakeProvider;
let openai: FakeProvider;

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
});
afterAll(async () => {
  await Promise.all([anthropic?.close(), openai?.close()]);
});

const big = 'x'.repeat(8_000); // ~2 000 tokens at chars/4

async function anthropicCall(system: string, text: string) {
  const client = new Anthropic({ apiKey: KEY, baseURL: anthropic.baseUrl, maxRetries: 0 });
  return client.messages.create({ model: 'claude-fake', max_tokens: 100, system, messages: [{ role: 'user', content: text }] });
}

async function openaiCall(system: string, text: string) {
  const client = new OpenAI({ apiKey: KEY, baseURL: openai.baseUrl, maxRetries: 0 });
  return client.chat.completions.create({ model: 'gpt-fake', messages: [{ role: 'system', content: system }, { role: 'user', content: text }] });
}

describe('context window of the fake servers', () => {
  it('anthropic: over the window → 400 "prompt is too long: N tokens > W maximum"; under it → ok', async () => {
    anthropic.setContextWindow(1_000);
    try {
      const err = await anthropicCall('sys', big).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      const size = anthropic.promptSizes.at(-1)!;
      expect(size).toBeGreaterThan(1_000);
      expect((err as Error).message).toContain(`prompt is too long: ${size} tokens > 1000 maximum`);
      expect(classifyError(err).reason).toBe('context_overflow');
      const ok = await anthropicCall('sys', 'short');
      expect(ok.content[0]).toMatchObject({ type: 'text' });
    } finally {
      anthropic.setContextWindow(null);
    }
  });

  it('openai: over the window → 400 context_length_exceeded with the numbers', async () => {
    openai.setContextWindow(1_000);
    try {
      const err = await openaiCall('sys', big).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as { code?: string }).code).toBe('context_length_exceeded');
      expect((err as Error).message).toContain(`maximum context length is 1000 tokens. However, your messages resulted in ${openai.promptSizes.at(-1)} tokens`);
      expect(classifyError(err).reason).toBe('context_overflow');
    } finally {
      openai.setContextWindow(null);
    }
  });
});

describe('summary requests', () => {
  it.each([
    ['anthropic', () => anthropic, async (s: string, t: string) => ((await anthropicCall(s, t)).content[0] as { text: string }).text],
    ['openai', () => openai, async (s: string, t: string) => (await openaiCall(s, t)).choices[0]!.message.content ?? ''],
  ])('%s: answered by the summary step, not the queue', async (_n, fake, call) => {
    fake().enqueue({ text: 'queued answer' });
    expect(await call(SUMMARY_SYSTEM_PROMPT, 'User: hello')).toMatch(/^Summary \(fake\)/);
    fake().setSummary({ text: 'custom summary' });
    expect(await call(SUMMARY_SYSTEM_PROMPT, 'User: hello')).toBe('custom summary');
    expect(await call('sys', 'hi')).toBe('queued answer');
  });
});
