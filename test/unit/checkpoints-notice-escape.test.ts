/**
 * X2/X5: the line a start-up prints about an operation a killed process left (the app's and `agentdesk agent`'s
 * stderr: openCheckpoints' default) names a folder and a session key — either may hold anything. It is printed with
 * control characters escaped and on one line, as `checkpoints list` prints it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openCheckpoints } from '../../main/checkpoints/open.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { configSchema } from '../../main/engine/config/schema.js';
import { SessionStore } from '../../main/sessions/store.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpnotice');
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('a recovery line on stderr', () => {
  it('a folder and a session key with escape sequences, a new line and a bidi override: escaped, one line', async () => {
    const home = tmp('home');
    const dir = CheckpointStore.dirIn(home);
    mkdirSync(dir, { recursive: true });
    const root = `/tmp/agentdesk-gone\x1b]0;pwned\x07\u202e`;
    writeFileSync(path.join(dir, 'journal.json'), JSON.stringify({ op: 'snapshot', sessionKey: 'k\x1b[2J\nfake line', root, startedAt: 0 }));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const cps = await openCheckpoints({ home, sessions: new SessionStore(path.join(home, 'sessions')), config: () => configSchema.parse({}), spawnWorker: () => undefined });
      await cps.close();
    } finally {
      spy.mockRestore();
    }
    const line = written.join('');
    expect(line).toMatch(/^agentdesk: A checkpoint of session "k\\x1b\[2J\\nfake line" was interrupted; /);
    expect(line.trimEnd().split('\n')).toHaveLength(1);
    expect(line.trimEnd()).not.toMatch(RAW_CONTROL);
  });
});
