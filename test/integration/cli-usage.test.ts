/**
 * Usage you can bill by (E17), through the built CLI and the fake servers: every model call is a `usage` event
 * (tool-loop calls and compaction summaries alike); `meta.usage` is their sum, with the cost where the model's
 * price is known; the session's totals in the index add every run's bill (a `/compact` included) and keep the
 * context size apart. A `/compact` that could only make a short conversation larger does nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSummaryRequest, toolLoopScenario } from '../fake/index.js';
import { cleanEnv, runCli, type CliResult } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, NOTES_FILES, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ files: NOTES_FILES });
const env = cleanEnv({ FAKE_ANT_KEY: 'sk-ant-usage-0001', FAKE_OAI_KEY: 'sk-oai-usage-0001' });
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

type Tokens = { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
type Billed = Tokens & { calls?: number; cost?: number };
const resultOf = (r: CliResult) => r.lines.at(-1) as { status: string; usage: Tokens; payloads: { text: string }[]; meta: { usage: Billed; context?: number; compactions: number } };
const usageEvents = (r: CliResult) => r.lines.filter((l) => l.stream === 'usage').map((l) => l.data as { kind: string; usage: Tokens; cost?: number; profileId: string | null });
const sum = (calls: Tokens[]): Tokens =>
  calls.reduce((a, b) => ({ input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, total: a.total + b.total }), {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    total: 0,
  });
const tokensOf = ({ input, output, cacheRead, cacheWrite, total }: Billed): Tokens => ({ input, output, cacheRead, cacheWrite, total });

async function sessionEntry(home: string, key: string): Promise<{ usage: Billed; context?: number }> {
  const index = JSON.parse(await readFile(join(home, 'sessions', 'sessions.json'), 'utf8')) as { sessions: Record<string, { usage: Billed; context?: number }> };
  return index.sessions[key]!;
}

const filler = (label: string, chars: number) => {
  let s = '';
  for (let i = 0; s.length < chars; i++) s += `${label} ${i}: the parser needs a cache and the network a retry. `;
  return s.slice(0, chars);
};

describe('usage you can bill by', () => {
  it("every call is billed: meta.usage sums the run's calls (cost where priced), the session adds every run, /compact included", async () => {
    const home = await homeWith(
      fakeProvidersConfig(fakes, { models: { fakeant: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096, cost: PRICE }] } }),
    );
    const args = ['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeant/claude-fake', '--session', 'bill'];

    // A tool loop: two calls. The run's `usage` is the context view (last prompt + all output); meta.usage the bill.
    fakes.anthropic.setDefault(toolLoopScenario({ toolName: 'read', args: { path: 'notes.txt' }, finalText: () => 'Read it.' }));
    const first = await runCli([...args, '--message', `Read the notes. ${filler('q', 4_000)}`], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    const calls1 = usageEvents(first);
    expect(calls1.map((c) => [c.kind, c.profileId])).toEqual([['turn', 'fakeant:test'], ['turn', 'fakeant:test']]);
    const r1 = resultOf(first);
    expect(tokensOf(r1.meta.usage)).toEqual(sum(calls1.map((c) => c.usage)));
    expect(r1.meta.usage.calls).toBe(2);
    expect(r1.meta.usage.cost).toBeCloseTo(calls1.reduce((a, c) => a + c.cost!, 0), 12);
    expect(r1.meta.usage.input).toBeGreaterThan(r1.usage.input); // both prompts billed; the context is the last one
    expect(r1.meta.context).toBe(calls1[1]!.usage.input + calls1[1]!.usage.cacheRead + calls1[1]!.usage.cacheWrite + calls1[1]!.usage.output);

    fakes.anthropic.setDefault({ text: filler('answer', 3_000) });
    for (let i = 0; i < 3; i++) expect((await runCli([...args, '--message', `More ${i}. ${filler(`m${i}`, 4_000)}`], { env })).exitCode).toBe(0);
    const before = await sessionEntry(home, 'bill');

    // /compact: the summary call's tokens are billed — in meta.usage and the session's totals.
    const compact = await runCli([...args, '--message', '/compact'], { env });
    expect(compact.exitCode, compact.stderr).toBe(0);
    const rc = resultOf(compact);
    expect(rc.meta.compactions).toBe(1);
    const summaryCalls = usageEvents(compact);
    expect(summaryCalls.map((c) => c.kind)).toEqual(['compaction']);
    expect(summaryCalls[0]!.usage.input).toBeGreaterThan(1_000);
    expect(tokensOf(rc.meta.usage)).toEqual(summaryCalls[0]!.usage);
    expect(fakes.anthropic.requests.filter(isSummaryRequest)).toHaveLength(1);
    const after = await sessionEntry(home, 'bill');
    expect(after.usage.total).toBe(before.usage.total + rc.meta.usage.total);
    expect(after.usage.input).toBe(before.usage.input + rc.meta.usage.input);
    expect(after.usage.calls).toBe(before.usage.calls! + 1);
    expect(after.usage.cost).toBeCloseTo(before.usage.cost! + rc.meta.usage.cost!, 12);
    // The context size is kept apart: after the compaction it is the compacted size, far below the billed total.
    expect(after.context).toBe(rc.meta.context);
    expect(after.context!).toBeLessThan(before.context!);
    expect(after.usage.total).toBeGreaterThan(after.context! * 3);
  }, 120_000);

  it('a model without a known price is billed in tokens, without a cost', async () => {
    const home = await homeWith(fakeProvidersConfig(fakes));
    fakes.anthropic.setDefault({ text: 'ok' });
    const r = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeant/claude-fake', '--session', 's', '--message', 'hi'], { env });
    expect(r.exitCode).toBe(0);
    expect(resultOf(r).meta.usage).toMatchObject({ calls: 1 });
    expect(resultOf(r).meta.usage.cost).toBeUndefined();
    expect(usageEvents(r)[0]!.cost).toBeUndefined();
    expect((await sessionEntry(home, 's')).usage.cost).toBeUndefined();
  }, 60_000);

  it('/compact on a short conversation keeps the history: a summary would not make it smaller', async () => {
    const home = await homeWith(fakeProvidersConfig(fakes));
    fakes.anthropic.setDefault({ text: 'A short answer.' });
    fakes.anthropic.requests.length = 0;
    const args = ['agent', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeant/claude-fake', '--session', 'short'];
    for (const m of ['hello', 'and again']) expect((await runCli([...args, '--message', m], { env })).exitCode).toBe(0);
    const r = await runCli([...args, '--message', '/compact'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('Nothing to compact: a summary would not make this conversation smaller.');
    expect(fakes.anthropic.requests.filter(isSummaryRequest)).toHaveLength(0);
    const next = await runCli([...args, '--message', 'still here?'], { env });
    expect(next.exitCode).toBe(0);
    expect(JSON.stringify(fakes.anthropic.requests.at(-1)!.body.messages)).toContain('and again'); // history intact
  }, 60_000);
});
