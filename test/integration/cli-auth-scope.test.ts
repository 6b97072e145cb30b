/**
 * E6 as the seeds have it, through the built CLI and the fake Anthropic server (separate processes sharing one home
 * folder): a 429 on model A benches the key for model A only — the next process uses the same key for model B at
 * once — and `auth list` says which model it is rate-limited on.
 */
import { describe, expect, it } from 'vitest';
import { lastUserText } from '../fake/index.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ workspacePrefix: 'scope-ws' });
const KEY = 'sk-ant-scope-0000000001';
const env = cleanEnv({ FAKE_ANT_KEY: KEY });

describe('rate-limit cooldowns per (profile, model)', () => {
  it('a 429 on model A leaves the same key usable for model B in the next process', async () => {
    const home = await homeWith(
      fakeProvidersConfig(fakes, {
        models: { fakeant: [{ id: 'model-a', contextWindow: 200000, maxTokens: 4096 }, { id: 'model-b', contextWindow: 200000, maxTokens: 4096 }] },
        authProfiles: [{ id: 'fakeant:only', provider: 'fakeant', apiKeyEnv: 'FAKE_ANT_KEY' }],
      }),
    );
    fakes.anthropic.requests.length = 0;
    fakes.anthropic.setDefault((req) => (req.body.model === 'model-a' ? { fault: { kind: 'rate_limit', retryAfterSeconds: 1 } } : { text: `answered by ${String(req.body.model)}` }));
    const agent = (model: string, message: string) =>
      runCli(['agent', '--home', home, '--workspace', fakes.workspace, '--model', `fakeant/${model}`, '--message', message], { env });

    const a = await agent('model-a', 'on A');
    expect(a.exitCode).toBe(1);
    expect(a.stderr).toMatch(/rate/i);

    const requests = fakes.anthropic.requests.length;
    const b = await agent('model-b', 'on B');
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stdout).toBe('answered by model-b');
    expect(fakes.anthropic.requests.length).toBe(requests + 1); // sent at once, no wait, no probe
    const sent = fakes.anthropic.requests.at(-1)!;
    expect(lastUserText(sent)).toBe('on B');
    expect(sent.headers['authorization'] ?? sent.headers['x-api-key']).toContain(KEY);
    expect(b.stderr).not.toMatch(/cooling|rate-limited/);

    const list = await runCli(['auth', 'list', '--home', home], { env });
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/fakeant:only\t.*ok \(rate-limited on fakeant\/model-a until .* UTC\)/);
  }, 60_000);
});
