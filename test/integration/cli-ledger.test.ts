/**
 * X4 through the built CLI and the fake providers (issue 19 "Done when"): the cost ledger prices every call from the
 * model entry's `cost` — tool-loop calls and compaction summaries alike — and `agentdesk usage --json` reports it as
 * one object with USD numbers (total, today, this month, by chat, day, model and key); budgets stop a run before the
 * request once reached (one line naming the budget and the amount, exit 1), warn at 80 %, and a reply that crosses a
 * budget finishes its call and stops before the next one. Every CLI run is its own process: the ledger adds up
 * across processes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSummaryRequest, toolLoopScenario } from '../fake/index.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, NOTES_FILES, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ workspacePrefix: 'ledger-ws', files: NOTES_FILES });
const env = cleanEnv({ FAKE_ANT_KEY: 'sk-ant-ledger-0019', FAKE_OAI_KEY: 'sk-oai-ledger-0019' });
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const USAGE = { input: 1000, output: 100, cacheRead: 2000, cacheWrite: 0 };
/** One call at PRICE with USAGE: 1000 × 3 + 100 × 15 + 2000 × 0.3, per million. */
const CALL_USD = (1000 * 3 + 100 * 15 + 2000 * 0.3) / 1e6;

const filler = (label: string, chars: number) => {
  let s = '';
  for (let i = 0; s.length < chars; i++) s += `${label} ${i}: the parser needs a cache and the network a retry. `;
  return s.slice(0, chars);
};

const homeFor = (agent: Record<string, unknown> = {}) =>
  homeWith(fakeProvidersConfig(fakes, { models: { fakeant: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096, cost: PRICE } as never] }, extra: { agent } }));

const agent = (home: string, session: string, message: string, json = false) =>
  runCli(['agent', ...(json ? ['--json'] : []), '--home', home, '--workspace', fakes.workspace, '--model', 'fakeant/claude-fake', '--session', session, '--message', message], { env, timeoutMs: 60_000 });

describe('the cost ledger and agentdesk usage', () => {
  it('prices every call from the model entry, compaction included, and reports it with USD numbers', async () => {
    const home = await homeFor();
    fakes.anthropic.setDefault({ text: filler('answer', 3_000), usage: USAGE });
    for (let i = 0; i < 4; i++) {
      const r = await agent(home, 'ledger', `Question ${i}. ${filler(`q${i}`, 4_000)}`);
      expect(r.exitCode, r.stderr).toBe(0);
    }
    const before = fakes.anthropic.requests.filter(isSummaryRequest).length;
    const compact = await agent(home, 'ledger', '/compact');
    expect(compact.exitCode, compact.stderr).toBe(0);
    expect(fakes.anthropic.requests.filter(isSummaryRequest).length).toBe(before + 1);

    const r = await runCli(['usage', '--json', '--home', home], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1); // one JSON object
    const u = JSON.parse(r.stdout);
    // The ledger holds one line per call — the compaction summary is one of them — each priced from the entry.
    type Line = { kind: string; input: number; output: number; cacheRead: number; cacheWrite: number; cost: number };
    const lines = (await readFile(join(home, 'usage', 'ledger.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Line);
    expect(lines.map((l) => l.kind)).toEqual(['turn', 'turn', 'turn', 'turn', 'compaction']);
    const priced = (l: Line) => (l.input * PRICE.input + l.output * PRICE.output + l.cacheRead * PRICE.cacheRead + l.cacheWrite * PRICE.cacheWrite) / 1e6;
    for (const l of lines) expect(l.cost).toBeCloseTo(priced(l), 12);
    expect(lines[0]!.cost).toBeCloseTo(CALL_USD, 12);
    expect(lines[4]!.cost).toBeGreaterThan(0);
    const total = lines.reduce((a, l) => a + l.cost, 0);
    const tokens = (k: 'input' | 'output' | 'cacheRead' | 'cacheWrite') => lines.reduce((a, l) => a + l[k], 0);
    expect(u.currency).toBe('USD');
    expect(typeof u.total.usd).toBe('number');
    expect(u.total).toEqual({ usd: Math.round(total * 1e8) / 1e8, calls: 5, input: tokens('input'), output: tokens('output'), cacheRead: tokens('cacheRead'), cacheWrite: tokens('cacheWrite'), unpricedCalls: 0 });
    expect(u.today.usd).toBeCloseTo(total, 8);
    expect(u.month.usd).toBeCloseTo(total, 8);
    expect(u.byModel).toEqual([expect.objectContaining({ model: 'fakeant/claude-fake', calls: 5 })]);
    expect(u.byKey).toEqual([expect.objectContaining({ profileId: 'fakeant:test', calls: 5 })]);
    expect(u.byChat).toEqual([expect.objectContaining({ sessionKey: 'ledger', calls: 5, title: expect.stringMatching(/^Question 0/) })]);
    expect(u.byDay).toHaveLength(1);
    expect(u.byDay[0].usd).toBeCloseTo(total, 8);

    const text = await runCli(['usage', '--home', home], { env });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^Total \$0\.0\d+ · this month \(\d{4}-\d{2}\) \$0\.0\d+ · today \$0\.0\d+/);
    expect(text.stdout).toContain('fakeant/claude-fake');
  }, 180_000);

  it('a silent reply (NO_REPLY) is billed like any other call', async () => {
    const home = await homeFor();
    fakes.anthropic.setDefault({ text: 'NO_REPLY', usage: USAGE });
    const r = await agent(home, 'silent', 'Only answer if needed.');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const u = JSON.parse((await runCli(['usage', '--json', '--home', home], { env })).stdout);
    expect(u.total).toMatchObject({ calls: 1, input: 1000, output: 100, cacheRead: 2000 });
    expect(u.total.usd).toBeCloseTo(CALL_USD, 10);
  }, 60_000);

  it('agent.budget.perChatUsd tiny: the second run is refused before any request — exit 1, one line naming the budget', async () => {
    const home = await homeFor({ budget: { perChatUsd: 0.001 } });
    fakes.anthropic.setDefault({ text: 'First answer.', usage: USAGE });
    const first = await agent(home, 'tiny', 'hello');
    expect(first.exitCode, first.stderr).toBe(0);
    const sent = fakes.anthropic.requests.length;
    const second = await agent(home, 'tiny', 'and again');
    expect(second.exitCode).toBe(1);
    expect(fakes.anthropic.requests.length).toBe(sent);
    const budgetLines = second.stderr.split('\n').filter((l) => /budget/i.test(l));
    expect(budgetLines).toEqual([`agentdesk: run error: Budget reached: agent.budget.perChatUsd is $0.0010 and this chat has spent $${CALL_USD.toFixed(4)}; the model was not called. Raise the budget (Settings › Usage or config.json) to go on.`]);
    // Another chat is not limited by this chat's budget.
    const other = await agent(home, 'other-chat', 'hi');
    expect(other.exitCode, other.stderr).toBe(0);
    // --json: the result says the same, and a budget event names the budget.
    const json = await agent(home, 'tiny', 'once more', true);
    expect(json.exitCode).toBe(1);
    const result = json.lines.at(-1) as { status: string; meta: { error: string } };
    expect(result.status).toBe('error');
    expect(result.meta.error).toMatch(/^Budget reached: agent\.budget\.perChatUsd is \$0\.0010/);
    expect(json.lines.find((l) => l.stream === 'budget')?.data).toMatchObject({ level: 'exceeded', budget: 'perChatUsd', limitUsd: 0.001 });
  }, 120_000);

  it('warns at 80 % of a budget, then stops at it (perDayUsd)', async () => {
    const home = await homeFor({ budget: { perDayUsd: 0.0126 } });
    fakes.anthropic.setDefault({ text: 'ok', usage: USAGE });
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await agent(home, `day-${i}`, `hi ${i}`));
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 0, 1]);
    // 2 calls = $0.0102 ≥ 80 % of $0.0126: the third run warns (and goes on); after it $0.0153 ≥ the budget.
    expect(runs[1]!.stderr).not.toMatch(/warning: \d+ %/);
    expect(runs[2]!.stderr).toContain('agentdesk: warning: 80 % of agent.budget.perDayUsd ($0.0126) used: today has spent $0.0102.');
    expect(runs[3]!.stderr).toContain('Budget reached: agent.budget.perDayUsd is $0.0126 and today has spent $0.0153');
  }, 120_000);

  it('a reply that crosses the budget finishes its call and stops before the next one', async () => {
    const home = await homeFor({ budget: { perChatUsd: 0.004 } });
    fakes.anthropic.setDefault(toolLoopScenario({ toolName: 'read', args: { path: 'notes.txt' }, finalText: 'Done.' }));
    const sent = fakes.anthropic.requests.length;
    const r = await agent(home, 'cross', 'Read the notes.', true);
    expect(r.exitCode).toBe(1);
    expect(fakes.anthropic.requests.length).toBe(sent + 1); // the first call only
    const toolEnd = r.lines.find((l) => l.stream === 'tool' && (l.data as { phase: string }).phase === 'end');
    expect(toolEnd?.data).toMatchObject({ name: 'read', isError: false }); // the call it made still ran
    expect((r.lines.at(-1) as { meta: { error: string } }).meta.error).toMatch(/^Budget reached: agent\.budget\.perChatUsd is \$0\.0040/);
  }, 60_000);
});
