/**
 * The gateway's run setup (E9, E19) with the offline demo model: a cwd override is a hard error while the sandbox
 * is on; hooks passed by the app run through the one runner (model resolve, session start, agent end, gateway
 * start/stop).
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppGateway } from '../../main/gateway/create.js';
import { runWorkspace } from '../../main/engine/attempt/run-cwd.js';
import { writeConfig } from '../support/cli.js';

const dir = async (p: string) => realpath(await mkdtemp(join(tmpdir(), `agentdesk-${p}-`)));

describe('runWorkspace (E9)', () => {
  it.each<[string, boolean, string | undefined, string | RegExp]>([
    ['no override', true, undefined, 'WS'],
    ['the workspace itself, sandbox on', true, '.', 'WS'],
    ['a subfolder, sandbox on → hard error', true, 'sub', /not supported while the sandbox is on/],
    ['a subfolder, sandbox off', false, 'sub', 'WS/sub'],
    ['outside, sandbox off', false, '..', /outside the workspace/],
    ['missing, sandbox off', false, 'nope', /does not exist/],
  ])('%s', async (_name, sandbox, cwd, expected) => {
    const ws = await dir('cwd-ws');
    await mkdir(join(ws, 'sub'));
    const run = runWorkspace({ workspace: ws, sandbox, ...(cwd !== undefined ? { cwd } : {}) });
    if (typeof expected === 'string') expect(await run).toBe(expected.replace('WS', ws));
    else await expect(run).rejects.toThrow(expected);
  });
});

describe("the demo model's pace (AGENTDESK_DEMO_CHUNK_MS)", () => {
  it("is read from the environment: the tests' 0 finishes a demo turn; a pause of 10 minutes streams nothing within 3 s", async () => {
    const home = await dir('gw-home');
    await writeConfig(home, { agent: { sandbox: false } });
    const fast = await createAppGateway({ home, workspace: await dir('gw-ws'), env: { AGENTDESK_DEMO_CHUNK_MS: '0' } });
    const done = await fast.request('agent', { message: 'hi', model: 'demo/agent', sessionKey: 'fast' });
    expect((await fast.request('agent.wait', { runId: done.runId, timeoutMs: 30_000 })).status).toBe('ok');
    await fast.close();
    // At the default 12 ms a demo turn (~160 chunks, two tool calls) ends in ~2 s; at 10 minutes its first chunk is not due.
    const slow = await createAppGateway({ home, workspace: await dir('gw-ws'), env: { AGENTDESK_DEMO_CHUNK_MS: '600000' } });
    const { runId } = await slow.request('agent', { message: 'hi', model: 'demo/agent', sessionKey: 'slow' });
    expect((await slow.request('agent.wait', { runId, timeoutMs: 3000 })).status).toBe('timeout');
    await slow.request('agent.abort', { runId });
    expect((await slow.request('agent.wait', { runId, timeoutMs: 10_000 })).status).not.toBe('timeout');
    const result = await slow.request('agent.result', { runId });
    expect(result!.payloads.filter((p) => !p.isError).map((p) => p.text).join('')).toBe(''); // not one chunk of text streamed
    await slow.close();
  });
});

describe('gateway run setup', () => {
  it('refuses a cwd override while sandboxed, with one clear line', async () => {
    const ws = await dir('gw-ws');
    await mkdir(join(ws, 'sub'));
    const gw = await createAppGateway({ home: await dir('gw-home'), workspace: ws, env: {}, demoChunkDelayMs: 0 });
    await expect(gw.request('agent', { message: 'hi', model: 'demo/agent', cwd: 'sub' })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/cwd override "sub" is not supported while the sandbox is on/),
    });
    await gw.close();
  });

  it('runs the app hooks through the runner: model resolve, session start, agent end, gateway start and stop', async () => {
    const seen: string[] = [];
    const home = await dir('gw-home');
    await writeConfig(home, { agent: { sandbox: false } });
    const gw = await createAppGateway({
      home,
      workspace: await dir('gw-ws'),
      env: {},
      demoChunkDelayMs: 0,
      hooks: {
        gateway_start: () => void seen.push('gateway_start'),
        session_start: (e) => void seen.push(`session_start:${e.sessionKey}`),
        session_end: (e) => void seen.push(`session_end:${e.sessionKey}:${e.reason}`),
        before_agent_start: () => ({ modelOverride: 'ignored-because-the-new-hook-wins' }),
        before_model_resolve: (e) => {
          seen.push(`resolve:${e.provider}/${e.model}`);
          return { modelOverride: 'no-such-model' }; // not available: logged, the run keeps its model
        },
        message_sending: (e) => ({ content: `${e.content} (sent)` }),
        agent_end: (e) => void seen.push(`agent_end:${e.status}`),
        gateway_stop: () => void seen.push('gateway_stop'),
      },
    });
    const { runId } = await gw.request('agent', { message: 'hi', model: 'demo/agent', sessionKey: 'k1' });
    await gw.request('agent.wait', { runId });
    const result = await gw.request('agent.result', { runId });
    expect(result!.status).toBe('ok');
    expect(result!.meta.model).toBe('agent');
    expect(result!.payloads.at(-1)!.text.endsWith(' (sent)')).toBe(true);
    await gw.request('sessions.reset', { sessionKey: 'k1' });
    await gw.request('sessions.delete', { sessionKey: 'k1' });
    await gw.close();
    expect(seen).toEqual([
      'gateway_start',
      'session_start:k1',
      'resolve:demo/agent',
      'agent_end:ok',
      'session_end:k1:reset',
      'session_start:k1', // the reset key's fresh session
      'session_end:k1:deleted',
      'gateway_stop',
    ]);
  });
});
