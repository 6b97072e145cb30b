/** E10 planning (inventory §9): reserve, budget, calibration, routes, cut point. */
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../main/engine/messages.js';
import {
  calibrated,
  calibrationFromHistory,
  calibrationRatio,
  contextBudget,
  estimateRequestTokens,
  findCutPoint,
  keepRecentTokens,
  planRoute,
} from '../../main/engine/attempt/context-budget.js';
import { estimateMessageTokens } from '../../main/engine/attempt/tokens.js';

const user = (content: string): Message => ({ role: 'user', content, timestamp: 1 });
const assistant = (text: string, input = 0, stopReason: AssistantMessage['stopReason'] = 'stop'): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  provider: 'p',
  model: 'm',
  api: 'anthropic',
  usage: { input, output: 5, cacheRead: 0, cacheWrite: 0, total: input + 5 },
  stopReason,
  timestamp: 1,
});
const call = (id: string): AssistantMessage => ({
  ...assistant(''),
  content: [{ type: 'toolCall', id, name: 'read', arguments: { path: 'a' } }],
  stopReason: 'toolUse',
});
const result = (id: string, content: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content, isError: false, timestamp: 1 });

describe('contextBudget', () => {
  it.each([
    // window, reserve, budget
    [200_000, 20_000, 180_000],
    [128_000, 20_000, 108_000],
    [80_000, 20_000, 60_000],
    [40_000, 10_000, 30_000],
    [16_000, 4_000, 12_000],
  ])('window %i → reserve %i, budget %i', (window, reserve, budget) => {
    expect(contextBudget(window)).toEqual({ window, reserve, budget });
  });

  it.each([
    [180_000, 20_000],
    [30_000, 9_000],
    [12_000, 3_600],
  ])('budget %i keeps %i recent tokens', (budget, keep) => {
    expect(keepRecentTokens(budget)).toBe(keep);
  });
});

describe('planRoute (inventory §9 routes)', () => {
  it.each([
    // estimate, window, reducible tokens, route, overflow
    [100_000, 200_000, 50_000, 'fits', -80_000],
    [180_000, 200_000, 0, 'fits', 0],
    [180_001, 200_000, 0, 'compact', 1],
    [12_000, 16_000, 0, 'fits', 0], // small window: the reserve is 25 % (4 000), not 20 000
    [12_001, 16_000, 0, 'compact', 1],
    [190_000, 200_000, 0, 'compact', 10_000],
    [190_000, 200_000, 60_000, 'truncate_tool_results', 10_000], // ≥ max(4·10 000 + 2 048, 6·10 000) = 60 000
    [190_000, 200_000, 59_999, 'compact_then_truncate', 10_000],
    [180_100, 200_000, 2_448, 'truncate_tool_results', 100], // small overflow: 4·100 + 2 048 dominates
    [180_100, 200_000, 2_447, 'compact_then_truncate', 100],
  ] as const)('estimate %i in window %i, reducible %i → %s', (estimate, window, reducible, route, overflow) => {
    const plan = planRoute(estimate, window, reducible);
    expect(plan.route).toBe(route);
    expect(plan.overflow).toBe(overflow);
  });
});

describe('calibration', () => {
  it.each([
    [1200, 1000, 1.2],
    [500, 1000, 0.5],
    [100, 1000, 0.5], // clamped: a broken report
    [9000, 1000, 3],
    [0, 1000, undefined], // nothing reported
    [1000, 0, undefined],
  ])('reported %i / estimated %i → %s', (reported, estimated, ratio) => {
    expect(calibrationRatio(reported, estimated)).toBe(ratio);
  });

  it('scales the estimate', () => {
    expect(calibrated(1000, 1.25)).toBe(1250);
    expect(calibrated(1000, undefined)).toBe(1000);
  });

  it('uses the last successful reply at or after the latest compaction, against the request that produced it', () => {
    const ms = [user('a'), assistant('b', 300), user('c'), assistant('d', 0, 'error'), user('e')];
    const seen: number[] = [];
    const ratio = calibrationFromHistory(ms, 0, (count) => {
      seen.push(count);
      return 200;
    });
    expect(seen).toEqual([1]); // the request of message 1 held message 0
    expect(ratio).toBe(1.5);
    expect(calibrationFromHistory(ms, 2, () => 200)).toBeUndefined(); // only kept-tail replies before index 2
  });

  it('estimates a request with the tool definitions', () => {
    const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object' } }];
    expect(estimateRequestTokens('sys', [user('hello')], tools)).toBeGreaterThan(estimateRequestTokens('sys', [user('hello')]));
  });
});

describe('findCutPoint', () => {
  const big = 'word '.repeat(400); // ~400 tokens
  const t = (m: Message) => estimateMessageTokens(m);

  it('keeps at least keepTokens of recent messages and starts the tail at a user message', () => {
    const ms = [user(big), assistant(big), user(big), assistant(big), user(big), assistant(big)];
    const cut = findCutPoint(ms, t(ms[5]!) + t(ms[4]!));
    expect(cut).toBe(4);
  });

  it('never starts the kept tail at a tool result: a call and its result stay together', () => {
    const ms = [user(big), call('c1'), result('c1', big), assistant(big), user('next')];
    const keep = t(ms[4]!) + t(ms[3]!) + 1; // reaches into the tool result
    const cut = findCutPoint(ms, keep);
    expect(cut).toBe(1); // moved back to the call
    expect(ms[cut]!.role).toBe('assistant');
  });

  it.each([
    ['everything fits in keepTokens', 1_000_000, 0],
    ['keep nothing: only the last message stays', 0, 4],
  ])('%s', (_n, keep, cut) => {
    const ms = [user(big), assistant(big), user(big), assistant(big), user(big)];
    expect(findCutPoint(ms, keep)).toBe(cut);
  });

  it('the prompt being answered is never summarised: the cut stays at or before the latest user message', () => {
    const ms = [user(big), assistant(big), user('now'), call('c1'), result('c1', big), assistant('', 0, 'error')];
    expect(findCutPoint(ms, 0)).toBe(2);
    expect(findCutPoint([user(big), assistant('', 0, 'error')], 0)).toBe(0); // a fresh session: nothing to summarise
  });

  it('a single message is never summarised away', () => {
    expect(findCutPoint([user(big)], 0)).toBe(0);
  });
});
