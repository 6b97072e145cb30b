/** X4 pure parts and the ledger file: budgets (table), summaries, known prices, a torn last line, two writers. */
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBudgets, exceededLine, usd, warningLine } from '../../main/usage/budget.js';
import { Ledger, parseEntry, readLedger, type LedgerEntry } from '../../main/usage/ledger.js';
import { knownPrice } from '../../main/usage/prices.js';
import { summarize } from '../../main/usage/summary.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentdesk-ledger-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (over: Partial<LedgerEntry> = {}): Omit<LedgerEntry, 'v'> => ({
  ts: Date.UTC(2026, 11, 1, 12),
  sessionKey: 'a',
  sessionId: 'id-a',
  runId: `r${Math.random()}`,
  kind: 'turn',
  provider: 'p',
  model: 'm',
  profileId: 'p:k',
  input: 100,
  output: 10,
  cacheRead: 0,
  cacheWrite: 0,
  cost: 0.01,
  ...over,
});

describe('checkBudgets', () => {
  it.each([
    ['no budget', undefined, { chat: 5, day: 5, month: 5 }, undefined, []],
    ['under 80 %', { perChatUsd: 1 }, { chat: 0.79, day: 0, month: 0 }, undefined, []],
    ['at 80 % warns', { perChatUsd: 1 }, { chat: 0.8, day: 0, month: 0 }, undefined, ['perChatUsd']],
    ['reached stops', { perChatUsd: 1 }, { chat: 1, day: 0, month: 0 }, 'perChatUsd', []],
    ['the first reached wins', { perChatUsd: 10, perDayUsd: 1, perMonthUsd: 1 }, { chat: 2, day: 2, month: 2 }, 'perDayUsd', []],
    ['month warns while day is fine', { perDayUsd: 5, perMonthUsd: 10 }, { chat: 0, day: 1, month: 9 }, undefined, ['perMonthUsd']],
  ])('%s', (_l, budget, spent, exceeded, warnings) => {
    const v = checkBudgets(budget, spent);
    expect(v.exceeded?.budget).toBe(exceeded);
    expect(v.warnings.map((w) => w.budget)).toEqual(warnings);
  });

  it('one line each, naming the budget and the amounts', () => {
    expect(exceededLine({ budget: 'perMonthUsd', limitUsd: 20, spentUsd: 20.5 })).toBe(
      'Budget reached: agent.budget.perMonthUsd is $20.00 and this month has spent $20.50; the model was not called. Raise the budget (Settings › Usage or config.json) to go on.',
    );
    expect(warningLine({ budget: 'perChatUsd', limitUsd: 0.5, spentUsd: 0.45 })).toBe('90 % of agent.budget.perChatUsd ($0.5000) used: this chat has spent $0.4500.');
    expect([usd(0), usd(0.00012), usd(3), usd(1234.5)]).toEqual(['$0', '$0.0001', '$3.00', '$1234.50']);
  });
});

describe('knownPrice', () => {
  it.each([
    ['claude-sonnet-4-5', 3],
    ['anthropic/claude-sonnet-4-5', 3],
    ['claude-sonnet-4-5-20250929', 3],
    ['gpt-4o-2024-08-06', 2.5],
    ['GPT-4.1-mini', 0.4],
    ['my-local-llama', undefined],
  ])('%s', (id, input) => expect(knownPrice(id)?.input).toBe(input));
});

describe('summarize', () => {
  it('adds up by chat, day, model and key; unpriced calls are counted apart', () => {
    const now = Date.UTC(2026, 11, 2, 12);
    const dayOf = (ts: number) => new Date(ts).toISOString().slice(0, 10);
    const s = summarize(
      [
        { v: 1, ...entry({ cost: 0.1 }) },
        { v: 1, ...entry({ ts: now, cost: 0.2, model: 'n', profileId: null }) },
        { v: 1, ...entry({ ts: now, cost: null, sessionKey: 'b', sessionId: 'id-b' }) },
        { v: 1, ...entry({ ts: Date.UTC(2026, 10, 30), cost: 1 }) },
      ],
      now,
      dayOf,
    );
    expect(s.total).toMatchObject({ usd: 1.3, calls: 4, unpricedCalls: 1, input: 400 });
    expect(s.today).toMatchObject({ day: '2026-12-02', usd: 0.2, calls: 2 });
    expect(s.month).toMatchObject({ month: '2026-12', usd: 0.3, calls: 3 });
    expect(s.byChat.map((c) => [c.sessionKey, c.usd])).toEqual([['a', 1.3], ['b', 0]]);
    expect(s.byDay.map((d) => d.day)).toEqual(['2026-12-02', '2026-12-01', '2026-11-30']);
    expect(s.byModel.map((m) => [m.model, m.usd])).toEqual([['p/m', 1.1], ['p/n', 0.2]]);
    expect(s.byKey.map((k) => k.profileId)).toEqual(['p:k', '(no key)']);
  });

  it('a call of no chat (a key test) counts in the totals, the day, the model and the key, not in the chats', () => {
    const now = Date.UTC(2026, 11, 2, 12);
    const keyTest = { v: 1, ...entry({ ts: now, sessionKey: '', sessionId: undefined, runId: '', kind: 'key-test', cost: 0.001, profileId: 'p:t' }) };
    const s = summarize([{ v: 1, ...entry({ ts: now, cost: 0.1 }) }, keyTest], now);
    expect(s.total).toMatchObject({ calls: 2, usd: 0.101 });
    expect(s.today.calls).toBe(2);
    expect(s.byChat.map((c) => c.sessionKey)).toEqual(['a']);
    expect(s.byKey.map((k) => [k.profileId, k.usd])).toEqual([['p:k', 0.1], ['p:t', 0.001]]);
  });
});

describe('the ledger file', () => {
  it('skips a torn last line, cuts it before the next write, and keeps every complete line', async () => {
    const file = join(dir, 'torn', 'ledger.jsonl');
    const a = new Ledger(file);
    await a.record(entry({ runId: 'one' }));
    await appendFile(file, '{"v":1,"ts":17'); // a crash mid-write
    expect((await readLedger(file)).map((e) => e.runId)).toEqual(['one']);
    const warnings: string[] = [];
    const b = new Ledger(file, { onWarning: (m) => warnings.push(m) });
    await b.refresh();
    expect(b.entries.map((e) => e.runId)).toEqual(['one']);
    await b.record(entry({ runId: 'two' }));
    expect((await readLedger(file)).map((e) => e.runId)).toEqual(['one', 'two']);
    expect((await readFile(file, 'utf8')).endsWith('}\n')).toBe(true);
    expect(warnings[0]).toMatch(/Dropped a torn last line \(14 bytes\)/);
  });

  it('two writers on one file see each other after refresh, never counting a line twice', async () => {
    const file = join(dir, 'two', 'ledger.jsonl');
    const app = new Ledger(file);
    const cli = new Ledger(file);
    await app.record(entry({ runId: 'app-1' }));
    await cli.record(entry({ runId: 'cli-1' }));
    await app.refresh();
    await cli.refresh();
    await app.refresh();
    expect(app.entries.map((e) => e.runId).sort()).toEqual(['app-1', 'cli-1']);
    expect(cli.entries.map((e) => e.runId).sort()).toEqual(['app-1', 'cli-1']);
  });

  it('rejects lines that are not entries', async () => {
    expect(parseEntry('{"ts":1}')).toBeUndefined();
    expect(parseEntry('not json')).toBeUndefined();
    expect(parseEntry(JSON.stringify({ v: 1, ...entry({ cost: -1 }) }))).toBeUndefined();
    expect(parseEntry(JSON.stringify({ v: 1, ...entry({ cost: null }) }))?.cost).toBeNull();
    const file = join(dir, 'garbage.jsonl');
    await writeFile(file, `garbage\n${JSON.stringify({ v: 1, ...entry({ runId: 'ok' }) })}\n`);
    expect((await readLedger(file)).map((e) => e.runId)).toEqual(['ok']);
  });
});
