/**
 * A model or thinking level chosen while the window switches chats (New chat, Ctrl+N, /new) is for the chat being
 * switched to: the chat left keeps its own, the chat that opens takes the choice (not its own or the default), keeps
 * it, and the next message goes out on it. The CI run that found it: Ctrl+N, then a pick in the picker before /new
 * had answered — the pick was saved on the old chat and the message went out on the default model.
 * An in-test transport stands in for the WebSocket client; the gateway's answers are held to open the window.
 */
import { describe, expect, it } from 'vitest';
import type { AgentDeskApi, SessionSummary } from '../../preload/contract.js';
import { newChat, selectModel, selectThinking, sendMessage, startChat, useChat } from '../../renderer/src/store/chat-store.js';
import { startSessions } from '../../renderer/src/store/sessions-store.js';
import type { RendererTransport } from '../../renderer/src/transport/types.js';

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
const summary = (sessionKey: string, more: Partial<SessionSummary> = {}): SessionSummary => ({ sessionKey, sessionId: `id-${sessionKey}`, title: '', updatedAt: 1, usage, ...more });

function rig() {
  const sessions = [summary('old', { title: 'The old chat', model: 'fake/claude-fake', usage: { ...usage, total: 10 } })];
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  let releaseNew: () => void = () => undefined;
  const api = {
    async request(method: string, params: Record<string, unknown>) {
      calls.push({ method, params });
      switch (method) {
        case 'app.info':
          return { workspace: '/w', home: '/h', defaultModel: 'fake/claude-other', version: '0' };
        case 'models.list':
          return ['claude-fake', 'claude-other', 'claude-third'].map((id) => ({ ref: `fake/${id}`, provider: 'fake', id, contextWindow: 1000, reasoning: true, hasKey: true }));
        case 'sessions.history':
          return [];
        case 'sessions.list':
          return sessions;
        case 'sessions.open':
          return { session: null, history: [], omitted: 0, active: null };
        case 'sessions.update':
          return { ...sessions.find((s) => s.sessionKey === params.sessionKey)!, ...params };
        case 'commands.run': {
          await new Promise<void>((r) => (releaseNew = r)); // the gateway is slow to answer /new
          const created = summary('new-chat'); // the defaults for new chats: no model of its own
          sessions.unshift(created);
          return { command: 'new', ok: true, notice: '', session: created };
        }
        case 'agent':
          return { runId: 'run-1', sessionKey: params.sessionKey, sessionId: 's', acceptedAt: 1 };
        default:
          return [];
      }
    },
    onEvent: () => () => undefined,
  } as unknown as AgentDeskApi;
  const transport: RendererTransport = { kind: 'web', api, onStatus: (l) => (l('open'), () => undefined) };
  return { transport, calls, release: () => releaseNew() };
}

const until = async (ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

const r = rig();

describe('a choice made while switching chats', () => {
  it('is for the chat switched to: the old chat keeps its model, the new one takes and keeps the choice, the message goes out on it', async () => {
    await startChat(r.transport);
    await startSessions(r.transport);
    expect(useChat.getState()).toMatchObject({ sessionKey: 'old', model: 'fake/claude-fake', switching: false });

    newChat(); // Ctrl+N; the gateway has not answered /new yet
    await until(() => r.calls.some((c) => c.method === 'commands.run'));
    expect(useChat.getState().switching).toBe(true); // the window is not ready (data-ready="false")
    selectModel('fake/claude-third');
    selectThinking('high');
    expect(useChat.getState().model).toBe('fake/claude-third'); // the picker shows the choice at once
    await new Promise((r) => setTimeout(r, 20));
    expect(r.calls.filter((c) => c.method === 'sessions.update')).toEqual([]); // not saved on the chat being left

    r.release();
    await until(() => useChat.getState().switching === false);
    expect(useChat.getState()).toMatchObject({ sessionKey: 'new-chat', model: 'fake/claude-third', thinking: 'high' });
    await until(() => r.calls.some((c) => c.method === 'sessions.update'));
    expect(r.calls.filter((c) => c.method === 'sessions.update').map((c) => c.params)).toEqual([{ sessionKey: 'new-chat', model: 'fake/claude-third', thinking: 'high' }]);

    expect(await sendMessage('hello')).toBe(true);
    expect(r.calls.find((c) => c.method === 'agent')!.params).toMatchObject({ sessionKey: 'new-chat', model: 'fake/claude-third', thinking: 'high' });
  });

  it('a choice when no switch is in flight is saved on the chat on screen at once', async () => {
    const updates = r.calls.filter((c) => c.method === 'sessions.update').length;
    selectModel('fake/claude-fake');
    expect(useChat.getState()).toMatchObject({ sessionKey: 'new-chat', model: 'fake/claude-fake', switching: false });
    await until(() => r.calls.filter((c) => c.method === 'sessions.update').length === updates + 1);
    expect(r.calls.at(-1)).toEqual({ method: 'sessions.update', params: { sessionKey: 'new-chat', model: 'fake/claude-fake' } });
  });
});
