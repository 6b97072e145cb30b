import { describe, expect, it } from 'vitest';
import type { AgentEvent, AssistantData } from '../../preload/contract.js';
import type { AssistantMessage } from '../../main/engine/messages.js';
import type { ModelDef, ProviderEvent } from '../../main/providers/types.js';
import { CallSubscriber, mayCloseThinkWithoutOpener, unseenText } from '../../main/engine/stream/call-subscriber.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import { normalizeForComparison } from '../../main/engine/stream/messaging-dedupe.js';

describe('unseenText: the three monotonic-delta cases (seed §9)', () => {
  it.each([
    ['final extends what was streamed → the suffix', 'Hel', 'Hello', 'lo'],
    ['final equals what was streamed → nothing', 'Hello', 'Hello', ''],
    ['final is a prefix of what was streamed → nothing', 'Hello there', 'Hello', ''],
    ['final is new text → all of it', 'Hello', 'Goodbye', 'Goodbye'],
    ['final is contained in the middle → nothing', 'say Hello there', 'Hello', ''],
    ['nothing streamed → all of it', '', 'Hi', 'Hi'],
  ])('%s', (_name, streamed, content, expected) => {
    expect(unseenText(streamed, content)).toBe(expected);
  });
});

describe('mayCloseThinkWithoutOpener', () => {
  const m = (p: Partial<ModelDef>): ModelDef => ({ provider: 'local', id: 'r1', api: 'openai-chat', contextWindow: 1, maxTokens: 1, reasoning: true, ...p });
  it.each([
    [m({}), true],
    [m({ reasoning: false }), false],
    [m({ provider: 'openai' }), false],
    [m({ api: 'anthropic' }), false],
  ])('%j → %s', (model, expected) => {
    expect(mayCloseThinkWithoutOpener(model)).toBe(expected);
  });
});

const msg = (text: string): AssistantMessage => ({
  role: 'assistant',
  content: text ? [{ type: 'text', text }] : [],
  provider: 'p',
  model: 'm',
  api: 'openai-chat',
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  stopReason: 'stop',
  timestamp: 1,
});

function run(chunks: string[], opts: ConstructorParameters<typeof CallSubscriber>[2] = {}, finalText = chunks.join('')) {
  const events: AgentEvent[] = [];
  const sub = new CallSubscriber(createRunEmitter('r', 's', (e) => events.push(e)), 0, opts);
  for (const delta of chunks) sub.handle({ type: 'text_delta', index: 0, delta } satisfies ProviderEvent);
  sub.handle({ type: 'done', stopReason: 'stop', message: msg(finalText) });
  const outcome = sub.finish(() => msg(''));
  const assistant = events.filter((e) => e.stream === 'assistant').map((e) => e.data as AssistantData);
  return {
    outcome,
    deltas: assistant.filter((a) => a.block === undefined).map((a) => a.delta),
    blocks: assistant.flatMap((a) => (a.block === undefined ? [] : [a.block])),
    thinking: events.filter((e) => e.stream === 'thinking').map((e) => (e.data as { delta: string }).delta).join(''),
  };
}

describe('CallSubscriber', () => {
  it('NO_REPLY never reaches the assistant stream', () => {
    const r = run(['NO', '_REP', 'LY']);
    expect(r.deltas).toEqual([]);
    expect(r.blocks).toEqual([]);
    expect(r.outcome).toMatchObject({ visibleText: '', suppressed: 'silent' });
  });

  it('reasoning-prefixed NO_REPLY is silent too', () => {
    const r = run(['<think>x</think>\n', 'NO_REPLY']);
    expect(r.deltas).toEqual([]);
    expect(r.thinking).toBe('x');
  });

  it('R1-style reasoning closed by a lone </think> stays out of the reply stream (holdStart)', () => {
    const r = run(['I should ', 'add them.</th', 'ink>\n\n4'], { holdStart: true });
    expect(r.deltas.join('')).toBe('4');
    expect(r.thinking).toBe('I should add them.');
  });

  it('a reply that repeats a posted message is suppressed', () => {
    const r = run(['The build ', 'is green.'], { sentNormalized: () => [normalizeForComparison('The build is green.')] });
    expect(r.deltas).toEqual([]);
    expect(r.outcome.suppressed).toBe('duplicate');
  });

  it('blocks cover the visible text and come after the deltas they contain', () => {
    const text = `${'a'.repeat(30)}.\n\n${'b'.repeat(30)}.`;
    const r = run([text.slice(0, 20), text.slice(20, 45), text.slice(45)], { chunkSizes: { min: 20, max: 40 } });
    expect(r.blocks.join('')).toBe(text);
    expect(r.blocks).toHaveLength(2);
    expect(r.outcome.visibleText).toBe(text);
  });

  it('final text re-sent in full adds nothing twice', () => {
    const r = run(['Hel', 'lo'], {}, 'Hello');
    expect(r.deltas.join('')).toBe('Hello');
  });
});
