/**
 * Fake Anthropic and OpenAI Chat servers on 127.0.0.1 that speak the real streaming wire formats and inject
 * faults (HTTP errors, resets, mid-stream drops, stalls, clean EOFs, in-stream error events).
 */
import { anthropicAdapter } from './anthropic.js';
import { openaiAdapter } from './openai.js';
import { startFake } from './server.js';
import type { FakeProvider } from './types.js';

export type { FakeFault, FakeProvider, FakeStep, FakeToolCall, FakeTurn, OverflowStyle, RecordedRequest } from './types.js';
export { isSummaryRequest, lastUserText, systemText, toolLoopScenario, trailingToolResults } from './scenario.js';

/** `port` defaults to 0 (any free port); the launcher (serve.ts) passes --port. */
export function startFakeAnthropic(opts: { port?: number } = {}): Promise<FakeProvider> {
  return startFake(anthropicAdapter, opts.port ?? 0);
}

export function startFakeOpenAI(opts: { port?: number } = {}): Promise<FakeProvider> {
  return startFake(openaiAdapter, opts.port ?? 0);
}
