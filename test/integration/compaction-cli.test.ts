/**
 * E10 end to end: the built CLI, the real SDKs and the fake servers, which check every request against their own
 * context window (a request over it gets the API's real overflow 400).
 * - A session grown past a small `agent.contextTokens` compacts before sending; every turn succeeds and every
 *   request stays inside the window.
 * - A provider overflow 400 (the fake's window smaller than the model's) is recovered by compaction.
 * - `/compact` compacts on request, and the plain CLI prints compaction progress.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSummaryRequest, lastUserText } from '../fake/index.js';
import { cleanEnv, runCli, type CliResult } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes();
const KEYS = { FAKE_ANT_KEY: 'sk-ant-test-key-0001', FAKE_OAI_KEY: 'sk-test-key-0002' };

const filler = (label: string, chars: number) => {
  let s = '';
  for (let i = 0; s.length < chars; i++) s += `${label} point ${i}: the build needs a cache for the parser and a retry for the network. `;
  return s.slice(0, chars);
};

const newHome = (contextTokens?: number) =>
  homeWith(
    fakeProvidersConfig(fakes, {
      models: { fakeoai: [{ id: 'gpt-fake', contextWindow: 200000, maxTokens: 4096 }] },
      extra: contextTokens ? { agent: { contextTokens } } : {},
    }),
  );

type Json = Record<string, unknown>;
const resultOf = (r: CliResult) => r.lines.at(-1) as { status: string; payloads: { text: string }[]; meta: Json };
const compactionEvents = (r: CliResult) => r.lines.filter((l) => l.stream === 'compaction').map((l) => l.data as Json);

describe.each([
  ['anthropic', 'fakeant/claude-fake', () => fakes.anthropic],
  ['openai', 'fakeoai/gpt-fake', () => fakes.openai],
])('%s', (_name, model, fake) => {
  it('a session grown past a small contextTokens compacts before sending; every turn succeeds inside the window', async () => {
    const server = fake();
    const WINDOW = 16_000;
    server.setContextWindow(WINDOW);
    server.promptSizes.length = 0;
    server.requests.length = 0;
    server.setDefault((req) => ({ text: `On "${lastUserText(req).slice(0, 12)}": ${filler('reply', 6_000)}` }));
    const home = await newHome(WINDOW);
    const args = ['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', model, '--session', 'grow'];
    let compactions = 0;
    const events: Json[] = [];
    try {
      for (let turn = 0; turn < 6; turn++) {
        const r = await runCli([...args, '--message', `Turn ${turn}. ${filler(`t${turn}`, 9_000)}`], { env: cleanEnv(KEYS) });
        expect(r.exitCode, r.stderr).toBe(0);
        const result = resultOf(r);
        expect(result.status).toBe('ok');
        compactions += result.meta.compactions as number;
        events.push(...compactionEvents(r));
      }
    } finally {
      server.setContextWindow(null);
    }
    // Every request (turns and summaries) fit the fake's window: none was refused.
    expect(Math.max(...server.promptSizes)).toBeLessThanOrEqual(WINDOW);
    expect(compactions).toBeGreaterThanOrEqual(1);
    const ends = events.filter((e) => e.phase === 'end');
    expect(ends.length).toBe(compactions);
    for (const e of ends) {
      expect(e.reason).toBe('preemptive');
      expect(e.tokensAfter as number).toBeLessThan(e.tokensBefore as number);
    }
    // The summary reached the model, and the latest prompt went out verbatim.
    const turns = server.requests.filter((q) => !isSummaryRequest(q));
    const last = JSON.stringify(turns.at(-1)!.body.messages);
    expect(last).toContain('Summary (fake)');
    expect(last).toContain('Turn 5.');
    expect(server.requests.some(isSummaryRequest)).toBe(true);
    // Append-only: the transcript holds every message of all 6 turns plus the compaction records.
    const dir = join(home, 'sessions');
    const file = (await readdir(dir)).find((f) => f.endsWith('.jsonl'))!;
    const lines = (await readFile(join(dir, file), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(lines.filter((l) => l.type === 'message')).toHaveLength(12);
    expect(lines.filter((l) => l.type === 'compaction')).toHaveLength(compactions);

    // /compact on request (JSON), then the plain CLI prints compaction progress.
    const manual = await runCli([...args, '--message', '/compact'], { env: cleanEnv(KEYS) });
    expect(manual.exitCode, manual.stderr).toBe(0);
    expect(resultOf(manual).meta.compactions).toBe(1);
    expect(compactionEvents(manual).map((e) => [e.phase, e.reason])).toEqual([['start', 'manual'], ['end', 'manual']]);
    await runCli([...args, '--message', 'One more question.'], { env: cleanEnv(KEYS) });
    const plain = await runCli(['agent', '--home', home, '--workspace', fakes.workspace, '--model', model, '--session', 'grow', '--message', '/compact'], {
      env: cleanEnv(KEYS),
    });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('agentdesk: compacting the conversation');
    expect(plain.stderr).toMatch(/agentdesk: compacted the conversation: about \d+ → \d+ tokens/);
    expect(plain.stdout).toMatch(/^Compacted the conversation: about \d+ → \d+ tokens\.$/);
  }, 120_000);

  it('a provider overflow 400 is recovered by compaction (meta.compactions ≥ 1)', async () => {
    const server = fake();
    // The model claims 200k, the server only takes 7 000: only the provider's 400 can tell.
    const WINDOW = 7_000;
    server.setContextWindow(WINDOW);
    server.promptSizes.length = 0;
    server.setDefault({ text: filler('answer', 3_000) });
    const home = await newHome();
    const args = ['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', model, '--session', 'overflow'];
    const recovered: CliResult[] = [];
    try {
      for (let turn = 0; turn < 5; turn++) {
        const r = await runCli([...args, '--message', `Turn ${turn}. ${filler(`q${turn}`, 3_000)}`], { env: cleanEnv(KEYS) });
        expect(r.exitCode, r.stderr).toBe(0);
        expect(resultOf(r).status).toBe('ok');
        if ((resultOf(r).meta.compactions as number) >= 1) recovered.push(r);
      }
    } finally {
      server.setContextWindow(null);
    }
    expect(recovered.length).toBeGreaterThanOrEqual(1);
    expect(server.promptSizes.some((s) => s > WINDOW)).toBe(true); // the real 400 happened
    expect(server.promptSizes.at(-1)!).toBeLessThanOrEqual(WINDOW);
    const ends = compactionEvents(recovered[0]!).filter((e) => e.phase === 'end');
    expect(ends[0]).toMatchObject({ reason: 'overflow' });
    expect(ends[0]!.error).toBeUndefined();
  }, 120_000);
});
