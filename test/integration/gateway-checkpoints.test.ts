/**
 * X2 through the in-process gateway (the methods the window uses) and the real Anthropic SDK against the fake
 * server: `checkpoint` events, checkpoints.list with each turn's message time, preview and diff, a restore refused
 * while the session has a run, conversation-only restore and its undo, and a deleted chat's checkpoints removed
 * with it (when its undo window ends, and at the next start for one deleted by another process).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { useGatewayHarness } from '../support/gateway.js';
import { tempDir, writeConfig } from '../support/cli.js';
import { canImmutable, chattr, HALF, killedRestore, NOW, readFolder } from '../support/killed-restore.js';

const h = useGatewayHarness();
const config = () => ({
  providers: { fake: { api: 'anthropic', baseUrl: h.fakes.anthropic.baseUrl, models: [{ id: 'claude-fake' }] } },
  authProfiles: [{ id: 'fake:t', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
  agent: { model: { primary: 'fake/claude-fake' }, approvals: { mode: 'auto' } },
});
const env = { ...process.env, FAKE_KEY: 'sk-ant-gw-1717' };

describe('checkpoints through the gateway', () => {
  it('list, preview, diff, refusal while running, conversation-only restore and undo', async () => {
    const { gw, workspace, events } = await h.open({ prefix: 'cpgw', configJson: config(), files: { 'a.txt': 'one\n' }, env });
    h.fakes.anthropic.enqueue({ toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: 'two\n' } }] }, { text: 'Written.' });
    const run = await gw.request('agent', { message: 'Make it two', sessionKey: 'k' });
    expect((await gw.request('agent.wait', { runId: run.runId })).status).toBe('ok');
    expect(events.filter((e) => e.stream === 'checkpoint').map((e) => e.data)).toEqual([expect.objectContaining({ phase: 'created', label: 'Make it two', files: 1 })]);

    const { checkpoints, lastRestore } = await gw.request('checkpoints.list', { sessionKey: 'k' });
    expect(lastRestore).toBeNull();
    expect(checkpoints).toHaveLength(1);
    const [cp] = checkpoints;
    const history = await gw.request('sessions.history', { sessionKey: 'k' });
    expect(cp!.messageAt).toBe(history.find((m) => m.role === 'user')!.timestamp);

    const preview = await gw.request('checkpoints.preview', { sessionKey: 'k', id: cp!.id });
    expect(preview).toEqual({ summary: { modified: 1, created: 0, deleted: 0 }, changes: [{ path: 'a.txt', kind: 'modified', type: 'file' }], more: 0, skipped: 0 });
    expect(await gw.request('checkpoints.diff', { sessionKey: 'k', id: cp!.id, path: 'a.txt' })).toEqual({ path: 'a.txt', current: 'two\n', restored: 'one\n' });
    // A path the preview does not list is never read.
    expect(await gw.request('checkpoints.diff', { sessionKey: 'k', id: cp!.id, path: '../../etc/passwd' })).toEqual({ path: '../../etc/passwd', current: null, restored: null });
    await expect(gw.request('checkpoints.restore', { sessionKey: 'k', id: 'nope', mode: 'files' })).rejects.toMatchObject({ code: 'not_found' });

    // While a run of the session is active, a restore is refused with one line.
    h.fakes.anthropic.enqueue({ text: 'slow reply', chunkSize: 1, delayMs: 100 });
    const slow = await gw.request('agent', { message: 'Take your time', sessionKey: 'k' });
    await expect.poll(() => events.some((e) => e.runId === slow.runId && e.stream === 'assistant')).toBe(true);
    await expect(gw.request('checkpoints.restore', { sessionKey: 'k', id: cp!.id, mode: 'files' })).rejects.toThrow(/A run is active on session "k"/);
    await gw.request('agent.abort', { runId: slow.runId });
    await gw.request('agent.wait', { runId: slow.runId });

    // Conversation only: the files stay, the chat ends before "Make it two"; undo brings it back.
    const r = await gw.request('checkpoints.restore', { sessionKey: 'k', id: cp!.id, mode: 'conversation' });
    expect(r.draft).toBe('Make it two');
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('two\n');
    expect(await gw.request('sessions.history', { sessionKey: 'k' })).toEqual([]);
    const u = await gw.request('checkpoints.undo', { sessionKey: 'k' });
    expect(u.restore.undoOf).toBe(r.restore.id);
    expect((await gw.request('sessions.history', { sessionKey: 'k' })).filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['Make it two', 'Take your time']);
    expect((await gw.request('checkpoints.usage', {})).bytes).toBeGreaterThan(0);
  }, 60_000);

  it("a deleted chat's checkpoints go with it; one deleted by another process goes at the next start", async () => {
    const { gw, home, workspace } = await h.open({ prefix: 'cpdel', configJson: config(), files: { 'a.txt': 'one\n' }, env });
    for (const key of ['gone', 'kept']) {
      h.fakes.anthropic.enqueue({ toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: key } }] }, { text: 'ok' });
      const run = await gw.request('agent', { message: `write for ${key}`, sessionKey: key });
      await gw.request('agent.wait', { runId: run.runId });
    }
    const store = new CheckpointStore(CheckpointStore.dirIn(home), { onNotice: () => {} });
    expect(store.list('gone')).toHaveLength(1);
    await gw.request('sessions.delete', { sessionKey: 'gone' });
    expect(store.list('gone')).toHaveLength(1); // still restorable within the undo window
    await h.close(gw); // the window ends now
    expect(store.list('gone')).toEqual([]);
    expect(store.list('kept')).toHaveLength(1);

    // Another process removed "kept" from the index: the next start sweeps its checkpoints (once a minute old).
    const index = join(home, 'sessions', 'sessions.json');
    const data = JSON.parse(readFileSync(index, 'utf8')) as { sessions: Record<string, unknown> };
    delete data.sessions.kept;
    writeFileSync(index, JSON.stringify(data));
    const { utimesSync, readdirSync } = await import('node:fs');
    const logs = join(CheckpointStore.dirIn(home), 'sessions');
    const old = new Date(Date.now() - 120_000);
    for (const n of readdirSync(logs)) utimesSync(join(logs, n), old, old);
    await h.start({ home, workspace, env });
    expect(store.list('kept')).toEqual([]);
    expect(existsSync(logs)).toBe(true);
  }, 60_000);

  it.skipIf(!canImmutable)('a killed restore that can neither be finished nor put back: the app starts, the window is told what state the folder is in, its Undo puts it back', async () => {
    const home = await tempDir('cpstuck-home');
    const ws = await tempDir('cpstuck-ws');
    await writeConfig(home, config());
    await killedRestore(home, ws);
    const dirs = ['a', 'b'].map((d) => join(ws, d));
    for (const d of dirs) expect(chattr('+i', d)).toBe(true);
    try {
      // Opening the store finishes what the journal holds: it used to throw here, and the gateway — the app — not start.
      const gw = await h.start({ home, workspace: ws, env });
      const { lastRestore, notices } = await gw.request('checkpoints.list', { sessionKey: 's' });
      expect(notices).toEqual([expect.stringMatching(/^An interrupted restore of session "s" could neither be finished .* is partly restored .*Undo restore in the app/)]);
      expect(lastRestore?.incomplete).toMatch(/^The last restore of session "s" could neither be finished nor put back \(b\/f\.txt: operation not permitted; a\/f\.txt: operation not permitted\): .* is partly restored\. Once that is fixed, .*Undo restore in the app\) puts it back as it was before\.$/);
      expect(readFolder(ws)).toEqual(HALF);
      for (const d of dirs) chattr('-i', d);
      const undone = await gw.request('checkpoints.undo', { sessionKey: 's' });
      expect(undone.message).toMatch(/^Undid the last restore/);
      expect(readFolder(ws)).toEqual(NOW);
      expect((await gw.request('checkpoints.list', { sessionKey: 's' })).lastRestore?.incomplete).toBeUndefined();
    } finally {
      for (const d of dirs) chattr('-i', d);
    }
  });
});
