/**
 * The chat store's sending and reconnect logic against an in-test transport (stands in for the WebSocket client:
 * the real client's reconnects are covered by ws-client.test.ts and the e2e tests).
 */
import { describe, expect, it, vi } from 'vitest';
import type { AgentDeskApi, AgentParams } from '../../preload/contract.js';
import { sendMessage, startChat, useChat } from '../../renderer/src/store/chat-store.js';
import type { ConnectionStatus, RendererTransport } from '../../renderer/src/transport/types.js';

function fakeTransport(agent: (p: AgentParams) => Promise<unknown>) {
  let status: (s: ConnectionStatus) => void = () => undefined;
  const calls: AgentParams[] = [];
  const api = {
    async request(method: string, params: unknown) {
      switch (method) {
        case 'app.info':
          return { workspace: '/w', home: '/h', defaultModel: 'demo/agent', version: '0' };
        case 'models.list':
          return [{ ref: 'demo/agent', provider: 'demo', id: 'agent', contextWindow: 1000, reasoning: false, demo: true, hasKey: true }];
        case 'sessions.history':
          return [];
        case 'agent.result':
          return null;
        case 'agent':
          calls.push(params as AgentParams);
          return agent(params as AgentParams);
        default:
          throw new Error(`bad_request: unknown method ${method}`);
      }
    },
    onEvent: () => () => undefined,
  } as unknown as AgentDeskApi;
  const transport: RendererTransport = {
    kind: 'web',
    api,
    onStatus(l) {
      status = l;
      l('open');
      return () => undefined;
    },
  };
  return { transport, calls, setStatus: (s: ConnectionStatus) => status(s) };
}

const userTurns = () => useChat.getState().turns.filter((t) => t.kind === 'user');

describe('sending across a dropped connection', () => {
  it('a message whose request was lost is kept once and re-sent with the same idempotency key after reconnecting', async () => {
    let n = 0;
    const t = fakeTransport(async () => {
      if (++n === 1) throw new Error('connection lost');
      return { runId: 'run-1', sessionKey: 'main', sessionId: 's', acceptedAt: 1 };
    });
    await startChat(t.transport);
    expect(await sendMessage('hello there')).toBe(true); // no draft restore: the bubble keeps it
    expect(userTurns()).toHaveLength(1);
    expect(userTurns()[0]).toMatchObject({ text: 'hello there', pending: expect.any(Object) });

    t.setStatus('closed');
    expect(await sendMessage('not while offline')).toBe(false);
    t.setStatus('open');
    await vi.waitFor(() => expect(userTurns()[0]).toMatchObject({ runId: 'run-1', pending: undefined }));
    expect(userTurns()).toHaveLength(1);
    expect(t.calls).toHaveLength(2);
    expect(t.calls[1]!.idempotencyKey).toBe(t.calls[0]!.idempotencyKey);
    expect(useChat.getState().turns.filter((x) => x.kind === 'assistant' && x.runId === 'run-1')).toHaveLength(1);
  });

  it('a message the gateway refuses comes back as the draft (false) and leaves no bubble', async () => {
    useChat.setState({ turns: [] });
    const t = fakeTransport(async () => {
      throw new Error('bad_request: Unknown model "x/y"');
    });
    await startChat(t.transport);
    expect(await sendMessage('hi')).toBe(false);
    expect(userTurns()).toHaveLength(0);
    expect(useChat.getState().error).toContain('Unknown model');
  });
});
