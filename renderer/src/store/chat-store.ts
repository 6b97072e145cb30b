/**
 * The chat store (zustand). Transport events are fed in OUTSIDE React through a per-frame batcher; components
 * only select slices. Actions talk to the transport; the gateway validates everything they send.
 */
import { create } from 'zustand';
import type { AgentEvent, AppInfo, ModelInfo, ThinkingLevel } from '../../../preload/contract.js';
import type { ConnectionStatus, RendererTransport } from '../transport/types.js';
import { createFrameBatcher } from './frame-batcher.js';
import { applyEvents, ensureRunTurn, historyToTurns } from './reduce.js';
import type { AssistantTurn, Turn } from './types.js';

export const SESSION_KEY = 'main';

export interface ChatState {
  connection: ConnectionStatus;
  transportKind?: RendererTransport['kind'];
  appInfo?: AppInfo;
  models: ModelInfo[];
  model?: string;
  /** undefined = the configured default. */
  thinking?: ThinkingLevel;
  turns: Turn[];
  sending: boolean;
  /** A request that failed (not a run error: those live on their turn). */
  error?: string;
}

export const useChat = create<ChatState>(() => ({ connection: 'connecting', models: [], turns: [], sending: false }));

let transport: RendererTransport | undefined;
let userSeq = 0;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const batcher = createFrameBatcher<AgentEvent>((events) => {
  useChat.setState((s) => ({ turns: applyEvents(s.turns, events, SESSION_KEY) }));
});

export function activeRun(turns: Turn[]): AssistantTurn | undefined {
  const last = turns.findLast((t): t is AssistantTurn => t.kind === 'assistant' && t.status === 'running');
  return last?.runId ? last : undefined;
}

function defaultModel(models: ModelInfo[], info: AppInfo): string | undefined {
  if (models.some((m) => m.ref === info.defaultModel)) return info.defaultModel;
  return (models.find((m) => m.hasKey) ?? models.find((m) => m.demo) ?? models[0])?.ref;
}

/** Connects the store to a transport and loads app info, models and the "main" session's history. */
export async function startChat(t: RendererTransport): Promise<void> {
  transport = t;
  useChat.setState({ transportKind: t.kind });
  t.onStatus((connection) => useChat.setState({ connection }));
  t.api.onEvent((event) => batcher.push(event));
  try {
    const [info, models, history] = await Promise.all([
      t.api.request('app.info', {}),
      t.api.request('models.list', {}),
      t.api.request('sessions.history', { sessionKey: SESSION_KEY }),
    ]);
    batcher.flushNow();
    useChat.setState((s) => ({
      appInfo: info,
      models,
      model: s.model ?? defaultModel(models, info),
      // events that arrived while loading stay after the stored history
      turns: [...historyToTurns(history), ...s.turns],
    }));
  } catch (err) {
    useChat.setState({ error: `Could not load: ${message(err)}` });
  }
}

export async function sendMessage(text: string): Promise<boolean> {
  const trimmed = text.trim();
  if (!transport || trimmed === '') return false;
  const { model, thinking } = useChat.getState();
  useChat.setState((s) => ({
    sending: true,
    error: undefined,
    turns: [...s.turns, { kind: 'user', id: `u${++userSeq}`, text: trimmed, ts: Date.now() }],
  }));
  try {
    const accepted = await transport.api.request('agent', {
      message: trimmed,
      sessionKey: SESSION_KEY,
      ...(model ? { model } : {}),
      ...(thinking ? { thinking } : {}),
    });
    batcher.flushNow();
    useChat.setState((s) => ({ sending: false, turns: ensureRunTurn(s.turns, accepted.runId) }));
    return true;
  } catch (err) {
    useChat.setState({ sending: false, error: message(err) });
    return false;
  }
}

export async function stopRun(): Promise<void> {
  const run = activeRun(useChat.getState().turns);
  if (!transport || !run?.runId) return;
  try {
    await transport.api.request('agent.abort', { runId: run.runId });
  } catch (err) {
    useChat.setState({ error: `Stop failed: ${message(err)}` });
  }
}

export const selectModel = (model: string): void => useChat.setState({ model });
export const selectThinking = (thinking: ThinkingLevel | undefined): void => useChat.setState({ thinking });
export const dismissError = (): void => useChat.setState({ error: undefined });
