/**
 * The chat store (zustand). Transport events are fed in OUTSIDE React through a per-frame batcher; components
 * only select slices. Actions talk to the transport; the gateway validates everything they send.
 */
import type { AttachmentDto } from '../../../preload/contract.js';
import { refsOf } from '../attachments/attach-store.js';
import { create } from 'zustand';
import type { AgentEvent, AppInfo, CommandOutcome, MethodName, ModelInfo, ProfileStatus, SessionSummary, ThinkingLevel } from '../../../preload/contract.js';
import type { ConnectionStatus, RendererTransport } from '../transport/types.js';
import { createFrameBatcher } from './frame-batcher.js';
import { applyEvents, ensureRunTurn, historyToTurns } from './reduce.js';
import type { AssistantTurn, Turn, UserTurn } from './types.js';

export const DEFAULT_SESSION_KEY = 'main';

export interface ChatState {
  connection: ConnectionStatus;
  /** The connection has been open at least once (a refused token before that means a wrong link, not a restart). */
  everOpened?: boolean;
  /** Reconnect attempts that failed since the connection was last open. */
  failedReconnects?: number;
  transportKind?: RendererTransport['kind'];
  appInfo?: AppInfo;
  models: ModelInfo[];
  model?: string;
  /** undefined = the configured default. */
  thinking?: ThinkingLevel;
  sessionKey: string;
  turns: Turn[];
  sending: boolean;
  /** A request that failed (not a run error: those live on their turn). */
  error?: string;
  /** E6: auth profiles and their cooldowns (empty when the gateway has no `auth.status`). */
  profiles: ProfileStatus[];
  sessions: SessionSummary[];
  /** Ctrl/Cmd+K: the switcher, opened on sessions and models or on models only ("Switch model"). */
  palette?: 'all' | 'models';
  /** The turn find-in-chat is on (outlined). */
  found?: string;
  /** The message list's index of its first turn (lowered when the earlier part of a long chat is put above). */
  firstItemIndex?: number;
  /** "Switch model" on a failed reply: the turn the model picked next retries. */
  retryOnPick?: string;
  /** "Open settings" from an error: the app frame shows this section (it subscribes to this field). */
  settingsRequest?: { section: 'keys' | 'models' | 'general'; nonce: number };
  /** ↑ in an empty composer: the last message's text to edit (nonce makes a repeat distinct). */
  editRequest?: { text: string; nonce: number };
  /** A switch of chats is in flight (trackNavigation): the chat on screen may not be the one that will be. */
  switching?: boolean;
}

export const useChat = create<ChatState>(() => ({
  connection: 'connecting',
  models: [],
  sessionKey: DEFAULT_SESSION_KEY,
  turns: [],
  sending: false,
  profiles: [],
  sessions: [],
}));

let transport: RendererTransport | undefined;
let userSeq = 0;
let nonce = 0;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
/** The request never reached the gateway, or its answer never came back: safe to send again with the same key. */
const isConnectionLoss = (err: unknown): boolean => /connection lost|not connected/i.test(message(err));

const batcher = createFrameBatcher<AgentEvent>((events) => {
  useChat.setState((s) => ({ turns: applyEvents(s.turns, events, s.sessionKey) }));
  if (events.some((e) => e.stream === 'retry')) void refreshProfiles();
});

/** Applies queued events now (the sessions store calls it before replacing the turns of a session it opens). */
export const flushEvents = (): void => batcher.flushNow();

/** After a command the gateway answered (`/new`, `/reset`, `/status`, …): the app frame opens or refreshes sessions. */
let commandFollowUp: ((outcome: CommandOutcome) => Promise<void>) | undefined;
export const setCommandHandler = (fn: (outcome: CommandOutcome) => Promise<void>): void => {
  commandFollowUp = fn;
};

/** Resolves once the app frame has opened the chat to show; messages typed before wait for it. */
let sessionReady: Promise<unknown> = Promise.resolve();
export const setSessionReady = (p: Promise<unknown>): void => {
  sessionReady = p.catch(() => undefined);
};

/**
 * Switching chats (New chat, opening one from the list) in flight. A message sent meanwhile waits for it, so it goes
 * to the chat that will be on screen and is not wiped by the history that chat opens with (issue 18, 8b: New chat
 * then a quick send left the pane empty while the reply went on elsewhere).
 */
const navigations = new Set<Promise<unknown>>();
export function trackNavigation<T>(p: Promise<T>): Promise<T> {
  const settled = p.then(
    () => undefined,
    () => undefined,
  );
  navigations.add(settled);
  if (!useChat.getState().switching) useChat.setState({ switching: true });
  void settled.then(() => {
    navigations.delete(settled);
    if (navigations.size > 0) return;
    const choice = chosenMeanwhile;
    chosenMeanwhile = undefined;
    // (a switch that opened nothing, e.g. an empty chat reused: the choice is still shown)
    useChat.setState({ ...choice, switching: false });
    if (choice) navigator?.keep?.(choice);
  });
  return p;
}

/** A model or thinking level picked in the picker or the palette. */
export type Choice = { model?: string; thinking?: ThinkingLevel };
/**
 * A choice made while switching chats (New chat, Ctrl+N, /new, opening one from the list) is for the chat being
 * switched to: the chat on screen does not remember it, the chat that opens takes it instead of its own model, and
 * it is kept for that chat once the switch is done. (Before, the chat that opened set its own model over the choice
 * the picker had just shown, and the message went out on a model nobody chose.)
 */
let chosenMeanwhile: Choice | undefined;
/** The choice made since the switch in flight began (undefined: none, or no switch in flight). */
export const choiceWhileSwitching = (): Choice | undefined => chosenMeanwhile;
function choose(choice: Choice): void {
  if (navigations.size > 0) chosenMeanwhile = { ...chosenMeanwhile, ...choice };
  useChat.setState(choice);
}
async function navigationsDone(): Promise<void> {
  while (navigations.size > 0) await Promise.all([...navigations]);
}

/**
 * The app frame's sessions store, when present, owns opening and creating sessions (list, replay, undo); `keep`
 * stores a choice made while switching for the chat switched to.
 */
let navigator: { open(sessionKey: string): Promise<void>; create(): Promise<void>; keep?(choice: Choice): void } | undefined;
export const setSessionNavigator = (n: typeof navigator): void => {
  navigator = n;
};

export function activeRun(turns: Turn[]): AssistantTurn | undefined {
  const last = turns.findLast((t): t is AssistantTurn => t.kind === 'assistant' && t.status === 'running');
  return last?.runId ? last : undefined;
}

export function queuedRuns(turns: Turn[]): { turn: AssistantTurn; user?: UserTurn }[] {
  const out: { turn: AssistantTurn; user?: UserTurn }[] = [];
  for (const t of turns) {
    if (t.kind !== 'assistant' || t.status !== 'queued') continue;
    const user = turns.find((u): u is UserTurn => u.kind === 'user' && u.runId === t.runId);
    out.push({ turn: t, ...(user ? { user } : {}) });
  }
  return out;
}

export function defaultModel(models: ModelInfo[], info: AppInfo): string | undefined {
  if (models.some((m) => m.ref === info.defaultModel)) return info.defaultModel;
  return (models.find((m) => m.hasKey) ?? models.find((m) => m.demo) ?? models[0])?.ref;
}

/** A gateway method another part of the app adds (auth.status, queue.*): absent on older gateways. */
async function optionalRequest<T>(method: string, params: Record<string, unknown>): Promise<T | undefined> {
  if (!transport) return undefined;
  try {
    return (await transport.api.request(method as MethodName, params as never)) as T;
  } catch {
    return undefined;
  }
}

let profileTimer: ReturnType<typeof setTimeout> | undefined;
export async function refreshProfiles(): Promise<void> {
  const profiles = await optionalRequest<ProfileStatus[]>('auth.status', {});
  if (!profiles) return;
  useChat.setState({ profiles });
  // while something cools down, look again when the soonest cooldown ends (at most every 30 s)
  clearTimeout(profileTimer);
  const ends = profiles.filter((p) => p.state === 'cooling' && p.cooldownUntil).map((p) => p.cooldownUntil!);
  if (ends.length > 0) profileTimer = setTimeout(() => void refreshProfiles(), Math.min(30_000, Math.max(1000, Math.min(...ends) - Date.now() + 250)));
}

/** performance marks for `npm run bench:ui` (where the time to open a session goes). */
export const mark = (name: string): void => void globalThis.performance?.mark?.(`agentdesk:${name}`);

/** A chat's whole history (after a reconnect, or without the sessions store). */
async function loadHistory(sessionKey: string): Promise<Turn[]> {
  return historyToTurns(await transport!.api.request('sessions.history', { sessionKey }));
}

/** Connects the store to a transport and loads app info and models (the sessions store opens the chat). */
export async function startChat(t: RendererTransport): Promise<void> {
  transport = t;
  useChat.setState({ transportKind: t.kind });
  let wasOpen = false;
  t.onStatus((connection) => {
    if (connection === 'open') useChat.setState({ connection, everOpened: true, failedReconnects: 0 });
    else if (connection === 'closed') useChat.setState((s) => ({ connection, failedReconnects: (s.failedReconnects ?? 0) + 1 }));
    else useChat.setState({ connection });
    if (connection === 'open' && wasOpen) void resync();
    if (connection === 'open') wasOpen = true;
  });
  t.api.onEvent((event) => batcher.push(event));
  // The conversation itself is opened by the sessions store (the chat last open, its latest messages first).
  const failed = (err: unknown): void => useChat.setState({ error: `Could not load: ${message(err)}` });
  const info = Promise.all([t.api.request('app.info', {}), t.api.request('models.list', {})]).then(([appInfo, models]) => {
    useChat.setState((s) => ({ appInfo, models, model: s.model ?? defaultModel(models, appInfo) }));
    mark('models-shown');
  }, failed);
  await info;
  void refreshProfiles();
}

/**
 * After a reconnect: messages that never reached the gateway are sent (same idempotency key: never twice), and a
 * run that was in progress is followed again — if it ended (or the server restarted) while we were away, the
 * stored history replaces the partial view; if it still runs, its next events carry the full text so far.
 */
async function resync(): Promise<void> {
  if (!transport) return;
  const { turns, sessionKey } = useChat.getState();
  for (const t of turns) if (t.kind === 'user' && t.pending) void deliver(t);
  const run = activeRun(turns);
  if (!run?.runId) return;
  let ended = false;
  try {
    ended = (await transport.api.request('agent.result', { runId: run.runId })) !== null;
  } catch {
    ended = true; // unknown run: the server restarted
  }
  if (!ended) return;
  try {
    const history = await loadHistory(sessionKey);
    useChat.setState((s) => ({ turns: [...history, ...s.turns.filter((t) => t.kind === 'user' && t.pending)] }));
  } catch (err) {
    useChat.setState({ error: `Could not reload the conversation: ${message(err)}` });
  }
}

/** Sends a user turn's message; true when the gateway accepted it (or will, once the connection is back). */
async function deliver(turn: UserTurn): Promise<boolean> {
  const { model, thinking, sessionKey } = useChat.getState();
  const key = turn.pending?.idempotencyKey;
  try {
    const accepted = await transport!.api.request('agent', {
      message: turn.text,
      sessionKey,
      ...(model ? { model } : {}),
      ...(thinking ? { thinking } : {}),
      ...(key ? { idempotencyKey: key } : {}),
      ...(turn.attachments?.length ? { attachments: refsOf(turn.attachments) } : {}),
    });
    batcher.flushNow();
    useChat.setState((s) => ({
      turns: ensureRunTurn(
        s.turns.map((t) => (t.id === turn.id ? { ...turn, pending: undefined, runId: accepted.runId } : t)),
        accepted.runId,
      ),
    }));
    return true;
  } catch (err) {
    if (isConnectionLoss(err)) return true; // stays pending; resync() sends it again with the same key
    useChat.setState((s) => ({ error: message(err), turns: s.turns.filter((t) => t.id !== turn.id) }));
    return false;
  }
}

/**
 * A command the gateway owns (E22: `/stop`, `/compact`, `/model …`, `/new`, …), run for the open session; false
 * when `text` is ordinary text (a pasted path) to send as a message. `/compact` is a run that shows as a divider.
 */
export function runCommand(text: string): Promise<boolean> {
  const p = runCommandNow(text);
  return /^\/(new|reset)(\s|$)/i.test(text) ? trackNavigation(p) : p; // a message sent meanwhile goes to the new chat
}

async function runCommandNow(text: string): Promise<boolean> {
  const { sessionKey } = useChat.getState();
  let outcome: CommandOutcome | null;
  try {
    outcome = await transport!.api.request('commands.run', { sessionKey, text });
  } catch (err) {
    useChat.setState({ error: `Could not run ${text.split(/\s/, 1)[0]}: ${message(err)}` });
    return true;
  }
  if (!outcome) return false;
  const { runId, session } = outcome;
  if (runId) {
    batcher.flushNow();
    useChat.setState((s) => ({ turns: ensureRunTurn(s.turns, runId) }));
  }
  if (!outcome.ok) useChat.setState({ error: outcome.notice });
  else if (session?.sessionKey === sessionKey && (outcome.command === 'model' || outcome.command === 'think')) {
    useChat.setState({ ...(session.model ? { model: session.model } : {}), thinking: session.thinking });
  }
  await commandFollowUp?.(outcome);
  return true;
}

/** Sends a message. False (and the caller keeps the draft) only when the gateway refused it. */
export async function sendMessage(text: string, attachments: AttachmentDto[] = []): Promise<boolean> {
  // X3: a message may be attachments only; the model still gets a line of text with them.
  const trimmed = text.trim() || (attachments.length ? `(${attachments.map((a) => a.name).join(', ')})` : '');
  if (!transport || trimmed === '' || useChat.getState().connection !== 'open') return false;
  await sessionReady; // the app frame is still choosing which chat to show
  await navigationsDone(); // …or switching to another one
  if (attachments.length === 0 && trimmed.startsWith('/') && (await runCommand(trimmed))) return true;
  const turn: UserTurn = {
    kind: 'user',
    id: `u${++userSeq}`,
    text: trimmed,
    ts: Date.now(),
    ...(attachments.length ? { attachments } : {}),
    pending: { idempotencyKey: `ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}` },
  };
  useChat.setState((s) => ({ sending: true, error: undefined, turns: [...s.turns, turn] }));
  try {
    return await deliver(turn);
  } finally {
    useChat.setState({ sending: false });
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

/** The connection (branch-actions.ts). */
export const chatTransport = (): RendererTransport | undefined => transport;

/** A queued message: removed (it never runs). */
export async function removeQueued(runId: string): Promise<void> {
  if (!transport) return;
  try {
    const { removed } = await transport.api.request('queue.remove', { runId });
    if (!removed) await transport.api.request('agent.abort', { runId });
  } catch (err) {
    useChat.setState({ error: `Could not remove it: ${message(err)}` });
  }
}

/** A queued message handed to the running reply instead (steer): taken out of the queue, then steered in. */
export async function steerQueued(runId: string): Promise<void> {
  if (!transport) return;
  const { turns, sessionKey } = useChat.getState();
  const user = turns.find((t): t is UserTurn => t.kind === 'user' && t.runId === runId);
  if (!user) return;
  try {
    const { removed } = await transport.api.request('queue.remove', { runId });
    if (!removed) return; // it started meanwhile: nothing to steer
    const result = await transport.api.request('agent.steer', { sessionKey, message: user.text });
    if (result.status === 'rate_limited') throw new Error(`try again in ${Math.ceil(result.retryAfterMs / 1000)} s`);
    const into = result.runId;
    useChat.setState((s) => ({
      turns: ensureRunTurn(
        s.turns
          .filter((t) => !(t.kind === 'assistant' && t.runId === runId)) // the queued entry is gone; the steer takes its place
          .map((t) => (t.id === user.id ? { ...user, runId: into } : t)),
        into,
      ),
    }));
  } catch (err) {
    useChat.setState({ error: `Could not steer it: ${message(err)}` });
  }
}

export async function openSession(sessionKey: string): Promise<void> {
  if (navigator) {
    useChat.setState({ palette: undefined });
    return navigator.open(sessionKey);
  }
  if (!transport) return;
  useChat.setState({ sessionKey, turns: [], error: undefined, palette: undefined });
  try {
    const turns = await loadHistory(sessionKey);
    if (useChat.getState().sessionKey === sessionKey) useChat.setState((s) => ({ turns: [...turns, ...s.turns] }));
  } catch (err) {
    useChat.setState({ error: `Could not open the conversation: ${message(err)}` });
  }
}

/** Ctrl/Cmd+N: a fresh conversation (the gateway creates the session on its first message). */
export function newChat(): void {
  if (navigator) {
    useChat.setState({ palette: undefined });
    void navigator.create();
    return;
  }
  const key = `chat-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  useChat.setState({ sessionKey: key, turns: [], error: undefined, palette: undefined });
}

export async function openPalette(mode: 'all' | 'models' = 'all'): Promise<void> {
  useChat.setState({ palette: mode });
  if (mode === 'all' && transport) {
    const sessions = await transport.api.request('sessions.list', {}).catch(() => undefined);
    if (sessions) useChat.setState({ sessions });
  }
}
export const closePalette = (): void => useChat.setState({ palette: undefined, retryOnPick: undefined });

export function requestSettings(section: 'keys' | 'models' | 'general' = 'keys'): void {
  useChat.setState({ settingsRequest: { section, nonce: ++nonce } });
  window.dispatchEvent(new CustomEvent('agentdesk:open-settings', { detail: { section } }));
}

/** ↑ in an empty composer: put the last message back for editing. */
export function editLastMessage(): boolean {
  const last = useChat.getState().turns.findLast((t): t is UserTurn => t.kind === 'user');
  if (!last) return false;
  useChat.setState({ editRequest: { text: last.text, nonce: ++nonce } });
  return true;
}

let onModelPick: ((turnId: string) => void) | undefined;
export const setModelPickHandler = (fn: (turnId: string) => void): void => {
  onModelPick = fn;
};
/** The model picker and the palette's model list; after "Switch model" on a failed reply, it is retried on it. */
export const selectModel = (model: string): void => {
  const retry = navigations.size > 0 ? undefined : useChat.getState().retryOnPick; // (a failed reply of the chat being left)
  useChat.setState({ palette: undefined, retryOnPick: undefined });
  choose({ model });
  if (retry) onModelPick?.(retry);
};
export const selectThinking = (thinking: ThinkingLevel | undefined): void => choose({ thinking });
export const dismissError = (): void => useChat.setState({ error: undefined });
