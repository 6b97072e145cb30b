/**
 * D5/D6: where keytar could not be installed (no libsecret headers) the CLI says plainly that no keychain is
 * available, why and how to fix it — one line, no stack trace. keytar is made unloadable with a resolve hook
 * (test/support/no-keytar.mjs); uninstalling libsecret is not possible here.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, tempDir } from '../support/cli.js';

const NO_KEYTAR = ['--import', join(ROOT, 'test/support/no-keytar.mjs')];

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

describe('no keychain module', () => {
  it('auth list: lists env profiles and says plainly that there is no keychain', async () => {
    const home = await tempDir('nokc');
    const r = await runCli(['auth', 'list', '--home', home], { nodeArgs: NO_KEYTAR, env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-env-key-1234567890' } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^agentdesk: No OS keychain is available: the keytar native module could not be loaded\. Install libsecret .* npm rebuild keytar\.$/);
    expect(r.stdout).toContain('anthropic:env');
    expect(r.stdout).not.toContain('sk-ant-env-key-1234567890');
  });

  it('auth add: exit 1, the same plain line, the key is not written anywhere', async () => {
    const home = await tempDir('nokc');
    const r = await runCli(['auth', 'add', '--provider', 'anthropic', '--label', 'x', '--home', home], { nodeArgs: NO_KEYTAR, input: 'sk-ant-secret-000000000001\n' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/No OS keychain is available/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const { execa } = await import('execa');
    const grep = await execa('grep', ['-r', 'sk-ant-secret', home], { reject: false });
    expect(grep.stdout).toBe('');
  });

  it('the demo model still runs', async () => {
    const home = await tempDir('nokc');
    const r = await runCli(['agent', '--model', 'demo/agent', '--home', home, '--workspace', await tempDir('nokc-ws'), '--message', 'hi'], { nodeArgs: NO_KEYTAR });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('[Demo model]');
  });
});
