/**
 * Plugins through the built CLI (E19): `agentdesk plugins list`, and an enabled plugin's hooks acting on a real
 * run against the fake Anthropic server (message_sending rewrites the reply, tool_result_persist redacts the
 * transcript). A disabled plugin is never imported. Time-boxing of hooks is tested with injected timers in
 * hook-runner.test.ts.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, toolLoopScenario, type FakeProvider } from '../fake/index.js';
import { cleanEnv, ensureBuilt, runCli, tempDir, writeConfig } from '../support/cli.js';

let anthropic: FakeProvider;
let workspace: string;
const KEYS = { FAKE_ANT_KEY: 'sk-ant-test-key-0201' };

async function home(enabled: string[]): Promise<string> {
  const h = await tempDir('home');
  await writeConfig(h, {
    providers: { fakeant: { api: 'anthropic', baseUrl: anthropic.baseUrl, models: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096 }] } },
    authProfiles: [{ id: 'fakeant:test', provider: 'fakeant', apiKeyEnv: 'FAKE_ANT_KEY' }],
    plugins: { enabled },
  });
  const plugin = async (name: string, code: string) => {
    await mkdir(join(h, 'plugins', name), { recursive: true });
    await writeFile(join(h, 'plugins', name, 'index.mjs'), code);
  };
  await plugin(
    'audit',
    `export default (api) => {
      api.on('message_sending', (e) => ({ content: e.content + ' [audited]' }));
      api.on('tool_result_persist', (e) => ({ message: { ...e.message, content: e.message.content.replace('Buy milk.', '[redacted]') } }));
    };`,
  );
  await plugin('broken', `export default { hooks: { agent_end() {} }, nope };`);
  await plugin('off', `process.stderr.write('DISABLED PLUGIN RAN'); export default { hooks: {} };`);
  return h;
}

beforeAll(async () => {
  await ensureBuilt();
  anthropic = await startFakeAnthropic();
  workspace = await tempDir('ws');
  await writeFile(join(workspace, 'notes.txt'), 'Buy milk.\n');
}, 120_000);

afterAll(async () => {
  await anthropic?.close();
});

describe('agentdesk plugins', () => {
  it('list shows each plugin: enabled with its hooks, disabled, or its load error in one line', async () => {
    const h = await home(['audit', 'broken']);
    const r = await runCli(['plugins', 'list', '--home', h]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toEqual([
      'audit  enabled  hooks: message_sending, tool_result_persist',
      expect.stringMatching(/^broken {2}enabled {2}error: .*nope/),
      'off  disabled',
    ]);
    expect(r.stderr).not.toContain('DISABLED PLUGIN RAN');
  });

  it('an enabled plugin acts on a real run; a broken one does not stop it', async () => {
    anthropic.setDefault(toolLoopScenario({ toolName: 'read', args: { path: 'notes.txt' }, finalText: () => 'Read it.' }));
    const h = await home(['audit', 'broken']);
    const r = await runCli(['agent', '--json', '--home', h, '--workspace', workspace, '--model', 'fakeant/claude-fake', '--message', 'read'], { env: cleanEnv(KEYS) });
    expect(r.exitCode).toBe(0);
    const result = r.lines.at(-1) as { status: string; payloads: { text: string }[] };
    expect(result.payloads).toEqual([{ text: 'Read it. [audited]' }]);
    expect(r.stderr).not.toContain('DISABLED PLUGIN RAN');
    const dir = join(h, 'sessions');
    const file = (await readdir(dir)).find((f) => f.endsWith('.jsonl'))!;
    const transcript = await readFile(join(dir, file), 'utf8');
    expect(transcript).toContain('[redacted]');
    expect(transcript).not.toContain('Buy milk.');
  });

  it('before_prompt_build sees the prompt and the session\'s messages; its prependContext goes before that turn\'s message, not into the system prompt; agent_end gets the final messages', async () => {
    anthropic.setDefault({ text: 'Noted.' });
    anthropic.requests.length = 0;
    const h = await home(['context']);
    const log = join(h, 'hooks.log');
    await mkdir(join(h, 'plugins', 'context'), { recursive: true });
    await writeFile(
      join(h, 'plugins', 'context', 'index.mjs'),
      `import { appendFileSync } from 'node:fs';
       const note = (e) => appendFileSync(${JSON.stringify(log)}, JSON.stringify(e) + '\\n');
       export default (api) => {
         api.on('before_prompt_build', (e) => {
           note({ hook: 'before_prompt_build', prompt: e.prompt, messages: e.messages.map((m) => m.role + ':' + (typeof m.content === 'string' ? m.content : '')), system: e.systemPrompt.includes('AgentDesk') });
           return { prependContext: 'CONTEXT FOR ' + e.prompt, appendSystemContext: 'Stable rule.' };
         });
         api.on('agent_end', (e) => note({ hook: 'agent_end', status: e.status, last: e.messages.at(-1).role, count: e.messages.length }));
       };`,
    );
    const turn = (message: string) =>
      runCli(['agent', '--home', h, '--workspace', workspace, '--model', 'fakeant/claude-fake', '--session', 'ctx', '--message', message], { env: cleanEnv(KEYS) });
    expect((await turn('first question')).exitCode).toBe(0);
    expect((await turn('second question')).exitCode).toBe(0);
    const seen = (await readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(seen).toEqual([
      { hook: 'before_prompt_build', prompt: 'first question', messages: [], system: true },
      { hook: 'agent_end', status: 'ok', last: 'assistant', count: 2 },
      { hook: 'before_prompt_build', prompt: 'second question', messages: ['user:first question', 'assistant:'], system: true },
      { hook: 'agent_end', status: 'ok', last: 'assistant', count: 4 },
    ]);
    const req = anthropic.requests.at(-1)!;
    const system = JSON.stringify(req.body.system);
    expect(system).toContain('Stable rule.');
    expect(system).not.toContain('CONTEXT FOR');
    const users = (req.body.messages as { role: string; content: { text?: string }[] | string }[])
      .filter((m) => m.role === 'user')
      .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('')));
    // Each turn's context is part of that turn's message, as the model saw it then.
    expect(users).toEqual(['CONTEXT FOR first question\n\nfirst question', 'CONTEXT FOR second question\n\nsecond question']);
    // The chat shows what the person typed.
    const history = await readFile(join(h, 'sessions', (await readdir(join(h, 'sessions'))).find((f) => f.endsWith('.jsonl'))!), 'utf8');
    expect(history).toContain('"content":"first question"');
  });
});
