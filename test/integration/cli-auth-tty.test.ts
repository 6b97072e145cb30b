/**
 * X5 "keys never echoed", at a real terminal: `agentdesk auth add` run in a pseudo-terminal (util-linux `script`,
 * the same line discipline a person's terminal has) gets the key typed after its prompt — and the terminal shows
 * the prompt, never the key (the tty's own echo is off while it is typed). `mcp add`'s secret values likewise.
 * Positive control: the same pty echoes what a plain `cat` reads.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ensureBuilt, ROOT, tempDir, writeConfig } from '../support/cli.js';

const hasScript = existsSync('/usr/bin/script');

/** Runs `command` in a pty; once `waitFor` is on the terminal, types `input`. Resolves with all the terminal showed. */
function inPty(command: string, waitFor: string, input: string, env: NodeJS.ProcessEnv): Promise<{ screen: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env, cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let typed = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "${waitFor}" in: ${JSON.stringify(screen)}`));
    }, 30_000);
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString('utf8');
      if (!typed && screen.includes(waitFor)) {
        typed = true;
        // A moment for raw mode to take effect after the prompt, as for a person's fingers.
        setTimeout(() => child.stdin.write(input), 200);
      }
    });
    child.stderr.on('data', (d: Buffer) => (screen += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ screen, code });
    });
  });
}

const KEY = 'sk-tty-0123456789abcdefSECRETSECRET';
let home = '';
beforeAll(async () => {
  await ensureBuilt();
  home = await tempDir('tty-home');
  // A provider of its own: a key stored in the (shared, test) keychain is seen by no other test.
  await writeConfig(home, { providers: { ttyprov: { api: 'anthropic', baseUrl: 'http://127.0.0.1:9', models: [{ id: 'm' }] } } });
}, 120_000);
afterAll(async () => {
  if (hasScript) await inPty(`node bin/agentdesk.mjs auth remove ttyprov:ttytest --home ${home}`, '', '', cleanEnv()).catch(() => undefined);
});

describe.runIf(hasScript)('secrets typed at a terminal are not echoed', () => {
  it('positive control: the pty echoes what cat reads', async () => {
    const { screen } = await inPty('echo ready; head -n1', 'ready', `${KEY}\r`, cleanEnv());
    expect(screen).toContain(KEY);
  });

  it('auth add: the prompt, then nothing of the key (stored or not: the keychain may be missing here)', async () => {
    const { screen } = await inPty(`node bin/agentdesk.mjs auth add --provider ttyprov --label ttytest --home ${home}`, 'Paste the API key', `${KEY}\r`, cleanEnv());
    expect(screen).toContain('(it is not shown)');
    expect(screen).not.toContain(KEY);
    expect(screen).not.toContain(KEY.slice(8, 24));
    expect(screen).toMatch(/Stored ttyprov:ttytest|keychain/);
  });

  it('Ctrl-C cancels: nothing stored, one line says so', async () => {
    const { screen, code } = await inPty(`node bin/agentdesk.mjs auth add --provider ttyprov --label ttycancel --home ${home}`, 'Paste the API key', `${KEY.slice(0, 10)}\x03`, cleanEnv());
    expect(code).toBe(2);
    expect(screen).toContain('cancelled: no key stored');
    expect(screen).not.toContain(KEY.slice(0, 10));
  });

  it('mcp add --secret-header: the values typed are not shown either', async () => {
    const { screen } = await inPty(
      `node bin/agentdesk.mjs mcp add tty --home ${home} --url http://127.0.0.1:9/mcp --secret-header Authorization`,
      'Paste the secret values',
      `Bearer ${KEY}\r\x04`,
      cleanEnv(),
    );
    expect(screen).not.toContain(KEY);
  });
});
