/**
 * Issue 18 item 1: a pending approval is never lost. The gateway lists the requests still waiting
 * (`approvals.list`), sends them to a client that connects while a run waits (the WebSocket greeting), and an
 * unanswered request is refused after `agent.approvals.timeoutSeconds` with a reason the model reads.
 * In-process gateway, real Anthropic SDK against the fake server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AgentEvent, ApprovalData } from '../../preload/contract.js';
import { startWsTransport } from '../../main/gateway/ws-server.js';
import { useGatewayHarness } from '../support/gateway.js';

const h = useGatewayHarness();
const config = (timeoutSeconds?: number) => ({
  providers: { fake: { api: 'anthropic', baseUrl: h.fakes.anthropic.baseUrl, models: [{ id: 'claude-fake' }] } },
  authProfiles: [{ id: 'fake:t', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
  agent: { model: { primary: 'fake/claude-fake' }, ...(timeoutSeconds ? { approvals: { timeoutSeconds } } : {}) },
});
const env = { FAKE_KEY: 'sk-ant-approvals-0001' };

async function until<T>(fn: () => T | undefined, ms = 10_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const v = fn();
    if (v !== undefined) return v;
  }
  throw new Error('timed out');
}

const isRequest = (e: AgentEvent) => e.stream === 'approval' && (e.data as ApprovalData).phase === 'request';

describe('pending approvals', () => {
  it('are listed, greet a new WebSocket client, and leave the list once answered', async () => {
    const { gw, events } = await h.open({ prefix: 'appr-list', configJson: config(), env });
    h.fakes.anthropic.enqueue({ toolCalls: [{ name: 'exec', arguments: { command: 'echo hi' } }] }, { text: 'ran it' });
    const accepted = await gw.request('agent', { message: 'run it', sessionKey: 's1' });
    const request = await until(() => events.find(isRequest));
    const data = request.data as Extract<ApprovalData, { phase: 'request' }>;
    expect(data.expiresAt).toBeGreaterThan(Date.now() + 200_000); // 300 s by default

    expect(await gw.request('approvals.list', {})).toEqual([request]);
    expect(await gw.request('approvals.list', { sessionKey: 'other' })).toEqual([]);

    // a client that connects now gets the request as its first frame
    const server = createServer();
    const token = 'b'.repeat(64);
    const transport = startWsTransport(gw, { server, token });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws?token=${token}`);
      const first = await new Promise<unknown>((resolve, reject) => {
        ws.once('message', (d) => resolve(JSON.parse(String(d))));
        ws.once('error', reject);
      });
      expect(first).toEqual({ event: request });
      ws.terminate();
    } finally {
      await transport.close();
      await new Promise<void>((r) => server.close(() => r()));
    }

    expect(await gw.request('approvals.respond', { approvalId: data.approvalId, decision: 'allow_once' })).toEqual({ ok: true });
    expect((await gw.request('agent.wait', { runId: accepted.runId, timeoutMs: 10_000 })).status).toBe('ok');
    expect(await gw.request('approvals.list', {})).toEqual([]);
  });

  it('an unanswered request is refused after the timeout; the model reads why and the run finishes', async () => {
    const { gw, events } = await h.open({ prefix: 'appr-timeout', configJson: config(1), env });
    h.fakes.anthropic.enqueue({ toolCalls: [{ name: 'exec', arguments: { command: 'echo late > late.txt' } }] }, { text: 'I could not run it.' });
    const accepted = await gw.request('agent', { message: 'run it', sessionKey: 's2' });
    await until(() => events.find(isRequest));
    const result = await gw.request('agent.wait', { runId: accepted.runId, timeoutMs: 15_000 });
    expect(result.status).toBe('ok');
    const resolved = events.find((e) => e.stream === 'approval' && (e.data as ApprovalData).phase === 'resolved')!.data as ApprovalData;
    expect(resolved).toMatchObject({ phase: 'resolved', decision: 'deny', reason: 'no answer within 1 s' });
    const sent = JSON.stringify(h.fakes.anthropic.requests.at(-1)?.body);
    expect(sent).toContain('Nobody answered the request to approve this exec call within 1 s, so it did not run.');
    expect(sent).not.toContain('The person denied');
    expect(await gw.request('approvals.list', {})).toEqual([]);
  }, 30_000);
});
