/**
 * Issue 21 end to end: the built CLI, the real openai and @anthropic-ai/sdk clients, the fake servers.
 * - An OpenAI-compatible server's Kimi-style overflow 400 ("Your request exceeded model token limit") is
 *   recognised as a context overflow: the run compacts (meta.compactions ≥ 1) and succeeds.
 * - A completion cut by the output limit (finish_reason "length") inside a `write` call's arguments writes
 *   nothing: the model gets an error result saying why, and the run goes on.
 * - A completion the server ended with finish_reason "error" is no answer: retried, then the next model.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trailingToolResults } from '../fake/index.js';
import { cleanEnv, runCli, type CliResult } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ workspacePrefix: 'issue21-ws' });
const KEYS = { FAKE_ANT_KEY: 'sk-ant-test-key-0021', FAKE_OAI_KEY: 'sk-test-key-00000021' };

type Json = Record<string, unknown>;
type Line = { type: string; stream?: string; data?: Json; status?: string; payloads?: { text: string }[]; meta?: Json };
const resultOf = (r: CliResult) => r.lines.at(-1) as Line;
const stream = (r: CliResult, name: string) => (r.lines as Line[]).filter((l) => l.stream === name).map((l) => l.data!);

const filler = (label: string, chars: number) => {
  let s = '';
  for (let i = 0; s.length < chars; i++) s += `${label} point ${i}: the parser needs a cache and the client a retry. `;
  return s.slice(0, chars);
};

async function transcriptText(home: string): Promise<string> {
  const dir = join(home, 'sessions');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
  return (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
}

describe('issue 21 through the real SDKs and the fake servers', () => {
  it('a Kimi-style overflow 400 from an OpenAI-compatible server compacts (meta.compactions ≥ 1)', async () => {
    const server = fakes.openai;
    const WINDOW = 7_000; // the model claims 200k: only the server's 400 can tell
    server.setContextWindow(WINDOW, 'kimi');
    server.promptSizes.length = 0;
    server.setDefault({ text: filler('answer', 3_000) });
    const home = await homeWith(fakeProvidersConfig(fakes, { models: { fakeoai: [{ id: 'gpt-fake', contextWindow: 200_000, maxTokens: 4096 }] } }));
    const args = ['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeoai/gpt-fake', '--session', 'kimi'];
    const recovered: CliResult[] = [];
    try {
      for (let turn = 0; turn < 5 && recovered.length === 0; turn++) {
        const r = await runCli([...args, '--message', `Turn ${turn}. ${filler(`q${turn}`, 3_000)}`], { env: cleanEnv(KEYS) });
        expect(r.exitCode, r.stderr).toBe(0);
        expect(resultOf(r).status).toBe('ok');
        if ((resultOf(r).meta!.compactions as number) >= 1) recovered.push(r);
      }
    } finally {
      server.setContextWindow(null);
      server.setDefault({ text: 'Hello from the fake server.' });
    }
    expect(recovered).toHaveLength(1);
    expect(server.promptSizes.some((s) => s > WINDOW)).toBe(true); // the Kimi 400 was sent
    expect(server.promptSizes.at(-1)!).toBeLessThanOrEqual(WINDOW);
    const ends = stream(recovered[0]!, 'compaction').filter((e) => e.phase === 'end');
    expect(ends[0]).toMatchObject({ reason: 'overflow' });
    // Classified as an overflow: compaction was the next step (no key rotation, no fallback).
    const retries = stream(recovered[0]!, 'retry');
    expect(retries.length).toBeGreaterThanOrEqual(1);
    for (const retry of retries) expect(retry).toMatchObject({ reason: 'context_overflow', next: { action: 'compact' }, provider: 'fakeoai' });
    expect(String(retries[0]!.message)).toMatch(/Your request exceeded model token limit: 7000 \(requested: \d+\)/);
  }, 120_000);

  it('finish_reason "length" inside a write call\'s arguments writes nothing, and the run continues', async () => {
    const server = fakes.openai;
    server.requests.length = 0;
    // The output limit cuts the call inside its content; the JSON could be "completed" into a valid call.
    server.enqueue({
      toolCalls: [{ name: 'write', arguments: '{"path":"cut-off.txt","content":"line one\\nline two\\nline thr' }],
      stopReason: 'length',
    });
    server.enqueue((req) => ({ text: `Noted: ${trailingToolResults(req)}` }));
    const home = await homeWith(fakeProvidersConfig(fakes));
    const r = await runCli(
      ['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeoai/gpt-fake', '--approve', 'auto', '--message', 'write it'],
      { env: cleanEnv(KEYS) },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r).status).toBe('ok');
    await expect(stat(join(fakes.workspace, 'cut-off.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    const end = stream(r, 'tool').find((d) => d.phase === 'end')!;
    expect(end).toMatchObject({ name: 'write', isError: true });
    expect(String(end.result)).toMatch(
      /^The call to write was not run: the reply reached the output token limit while its arguments were being written, so they are incomplete/,
    );
    expect(stream(r, 'approval')).toEqual([]); // never even asked
    expect(server.requests).toHaveLength(2); // the model was told, and answered
    expect(resultOf(r).payloads![0]!.text).toMatch(/^Noted: The call to write was not run: the reply reached the output token limit/);
    expect(await transcriptText(home)).toContain('The call to write was not run: the reply reached the output token limit');
  }, 60_000);

  it('finish_reason "error" from an OpenAI-compatible server is retried, then falls back to the next model', async () => {
    fakes.openai.requests.length = 0;
    fakes.anthropic.requests.length = 0;
    fakes.openai.setDefault({ text: 'A partial answer that must not be delivered', finishReason: 'error' });
    fakes.anthropic.setDefault({ text: 'The fallback answered.' });
    const home = await homeWith(
      fakeProvidersConfig(fakes, { extra: { agent: { model: { primary: 'fakeoai/gpt-fake', fallbacks: ['fakeant/claude-fake'] } } } }),
    );
    try {
      const r = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--message', 'hello'], { env: cleanEnv(KEYS) });
      expect(r.exitCode, r.stderr).toBe(0);
      const result = resultOf(r);
      expect(result.status).toBe('ok');
      expect(result.meta).toMatchObject({ provider: 'fakeant', model: 'claude-fake' });
      expect(result.payloads).toEqual([{ text: 'The fallback answered.' }]);
      const retries = stream(r, 'retry');
      expect(retries.map((d) => d.reason)).toEqual(['server_error', 'server_error', 'server_error']);
      expect(retries.map((d) => (d.next as Json).action)).toEqual(['backoff', 'backoff', 'fallback']);
      expect(fakes.openai.requests).toHaveLength(3);
      expect(fakes.anthropic.requests).toHaveLength(1);
    } finally {
      fakes.openai.setDefault({ text: 'Hello from the fake server.' });
      fakes.anthropic.setDefault({ text: 'Hello from the fake server.' });
    }
  }, 60_000);
});
