/**
 * The app frame's store (zustand): the session list, search, the open session (its history plus a replay of a run
 * that is still streaming), delete with undo, slash commands, and which view is shown (chat or settings).
 * The chat store keeps the turns of the open session; this store decides which session that is.
 */
import { create } from 'zustand';
import type { AgentEvent, CommandOutcome, SessionSearchHit, SessionSummary, ThinkingLevel } from '../../../preload/contract.js';
import type { RendererTransport } from '../transport/types.js';
import { choiceWhileSwitching, defaultModel, flushEvents, mark, runCommand, setCommandHandler, setSessionNavigator, trackNavigation, useChat } from './chat-store.js';
import { askEarlier, beginEarlier, FIRST_INDEX, setEarlierHost } from './earlier-part.js';
import { applyEvents, historyToTurns } from './reduce.js';
import type { Turn } from './types.js';

export type View = 'chat' | 'settings';

export interface SessionsState {
  sessions: SessionSummary[];
  loaded: boolean;
  query: string;
  /** Search results for `query` (undefined: no search active). */
  hits?: SessionSearchHit[];
  /** Loading the open session's history. */
  opening: boolean;
  /** Delete or /reset, undoable for a while (a reset: `keptKey` is the earlier conversation, listed as its own chat). */
  undo?: { sessionKey: string; title: string; until: number; keptKey?: string };
  /** Older history entries of the open session that are not loaded (0: all shown). */
  omitted: number;
  view: View;
  /** Settings section to scroll to when the settings view opens. */
  settingsSection?: string;
  notice?: string;
  /** The sidebar in a wide window: shown or folded away (remembered). */
  sidebar: 'open' | 'closed';
  /** The sidebar in a narrow window (folded by default): open over the chat. */
  drawer: boolean;
  /** The notice is information (a command's answer), not a problem. */
  noticeInfo?: boolean;
  /** Start-up has chosen and opened the chat to show. */
  started?: boolean;
}

const SIDEBAR_KEY = 'agentdesk.sidebar';
const readSidebar = (): 'open' | 'closed' => {
  try {
    return localStorage.getItem(SIDEBAR_KEY) === 'closed' ? 'closed' : 'open';
  } catch {
    return 'open';
  }
};

export const useSessions = create<SessionsState>(() => ({
  sessions: [],
  loaded: false,
  query: '',
  opening: false,
  omitted: 0,
  view: 'chat',
  sidebar: readSidebar(),
  drawer: false,
}));

/** The ☰ button and Ctrl/Cmd+B: folds or shows the sidebar (in a narrow window: opens or closes it over the chat). */
export function toggleSidebar(narrow: boolean): void {
  if (narrow) {
    useSessions.setState((s) => ({ drawer: !s.drawer }));
    return;
  }
  const sidebar = useSessions.getState().sidebar === 'open' ? 'closed' : 'open';
  try {
    localStorage.setItem(SIDEBAR_KEY, sidebar);
  } catch {
    // storage unavailable: remembered until the window closes
  }
  useSessions.setState({ sidebar });
}
export const closeDrawer = (): void => useSessions.setState({ drawer: false });

/**
 * How many history entries a session opens with. Long sessions open fast (a 5 000-message session in well under
 * 300 ms); "Show earlier messages" loads more.
 */
export const OPEN_LIMIT = 40;

let transport: RendererTransport | undefined;
let markStarted: () => void = () => undefined;
const started = new Promise<void>((resolve) => (markStarted = resolve));
let openToken = 0;
/** Live events that arrive while a session is being opened (merged with its replay). */
let collecting: { sessionKey: string; events: AgentEvent[] } | undefined;

const api = () => {
  if (!transport) throw new Error('not connected');
  return transport.api;
};
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const setNotice = (notice: string | undefined, info = false) => useSessions.setState({ notice, noticeInfo: info });
setEarlierHost({
  request: (sessionKey, before, limit) => api().request('sessions.open', { sessionKey, before, limit }),
  current: (token, sessionKey) => token === openToken && useChat.getState().sessionKey === sessionKey,
  omitted: () => useSessions.getState().omitted,
  setOmitted: (omitted) => useSessions.setState({ omitted }),
  failed: (token, err) => {
    if (token === openToken) setNotice(`Could not load the earlier messages: ${message(err)}`);
  },
});
/** The list's first index and its end report, for the message list (they belong to the earlier part's loading). */
export { FIRST_INDEX, listAtEnd } from './earlier-part.js';

export async function refreshSessions(): Promise<void> {
  try {
    const sessions = await api().request('sessions.list', {});
    useSessions.setState({ sessions, loaded: true });
  } catch (err) {
    setNotice(`Could not list sessions: ${message(err)}`);
  }
}

/** Shows `sessionKey`: stored history, then (if a run is streaming) its events so far, then live events. */
export function openSession(sessionKey: string, limit: number = OPEN_LIMIT, opts: { keepView?: boolean } = {}): Promise<void> {
  return trackNavigation(openSessionNow(sessionKey, limit, opts));
}

async function openSessionNow(sessionKey: string, limit: number, opts: { keepView?: boolean }): Promise<void> {
  const token = ++openToken;
  collecting = { sessionKey, events: [] };
  rememberLastSession(sessionKey);
  const known = useSessions.getState().sessions.find((s) => s.sessionKey === sessionKey);
  const { models, appInfo } = useChat.getState();
  const chosen = choiceWhileSwitching(); // picked while this chat was being switched to: it wins
  useChat.setState({
    sessionKey,
    found: undefined,
    firstItemIndex: FIRST_INDEX,
    turns: [],
    error: undefined,
    model: chosen?.model ?? (known?.model && models.some((m) => m.ref === known.model) ? known.model : appInfo ? defaultModel(models, appInfo) : useChat.getState().model),
    thinking: chosen && 'thinking' in chosen ? chosen.thinking : known?.thinking,
  });
  // The start-up open keeps the view: a person who already went to Settings is not pulled back to the chat.
  useSessions.setState({ opening: true, drawer: false, ...(opts.keepView ? {} : { view: 'chat' as const }) });
  try {
    mark('history-request');
    const opened = await api().request('sessions.open', { sessionKey, limit });
    mark('history-received');
    if (token !== openToken) return;
    flushEvents();
    const live = collecting?.sessionKey === sessionKey ? collecting.events : [];
    let turns: Turn[] = historyToTurns(opened.history);
    if (opened.active) {
      turns = [...turns, { kind: 'user', id: `active-${opened.active.runId}`, text: opened.active.message, ts: opened.active.acceptedAt }];
      turns = applyEvents(turns, [...opened.active.events, ...live], sessionKey);
    } else {
      // Only runs that started while loading; anything older is already in the history.
      const started = new Set(live.filter((e) => e.stream === 'lifecycle' && (e.data as { phase: string }).phase === 'start').map((e) => e.runId));
      turns = applyEvents(turns, live.filter((e) => started.has(e.runId)), sessionKey);
    }
    useChat.setState({ turns, firstItemIndex: FIRST_INDEX });
    mark('history-shown');
    const before = opened.omitted > 0 ? opened.earlier : undefined;
    useSessions.setState({ omitted: before ? opened.omitted : 0 });
    // A long chat opens with its latest messages; the earlier part follows, above them (the view stays put).
    beginEarlier(sessionKey, token, before);
  } catch (err) {
    if (token === openToken) useChat.setState({ error: `Could not open this chat: ${message(err)}` });
  } finally {
    if (token === openToken) {
      collecting = undefined;
      useSessions.setState({ opening: false });
    }
  }
}

/** Loads the earlier part of the open chat now, if it is not loaded yet (Ctrl+Home, find, the Earlier bar). */
export async function showEarlier(): Promise<void> {
  const sessionKey = useChat.getState().sessionKey;
  if (!sessionKey || useSessions.getState().omitted === 0) return;
  await askEarlier(sessionKey, openToken);
}

const isEmpty = (key: string) => {
  const s = useSessions.getState().sessions.find((x) => x.sessionKey === key);
  // Only a listed session counts (the chat store starts on a key that may not exist yet).
  return useChat.getState().sessionKey === key && useChat.getState().turns.length === 0 && !!s && s.title === '';
};

/** New chat (button, Ctrl/Cmd+N, /new). The current chat is reused when it is still empty. */
export function newChat(): Promise<void> {
  userNavigations++;
  return trackNavigation(newChatNow());
}

/** New chat or a chat opened by the person: start-up does not then open the last chat over it. */
let userNavigations = 0;

async function newChatNow(): Promise<void> {
  await started; // asked for before the window had connected: once it has
  const current = useChat.getState().sessionKey;
  if (current && isEmpty(current)) {
    useSessions.setState({ view: 'chat', drawer: false });
    return;
  }
  // An untouched chat (no message yet) is reused rather than piling up empty ones.
  const untouched = useSessions.getState().sessions.find((s) => s.title === '' && s.usage.total === 0);
  if (untouched) {
    await openSession(untouched.sessionKey);
    return;
  }
  await runCommand('/new'); // the gateway's /new: a new session on the defaults for new chats (onCommand opens it)
}

export async function renameSession(sessionKey: string, title: string): Promise<void> {
  if (title.trim() === '') return;
  try {
    const updated = await api().request('sessions.update', { sessionKey, title });
    useSessions.setState((s) => ({ sessions: s.sessions.map((x) => (x.sessionKey === sessionKey ? updated : x)) }));
  } catch (err) {
    setNotice(`Could not rename: ${message(err)}`);
  }
}

/** E9: the chat's custom instructions (added to the system prompt of its runs); empty clears them. */
export async function setInstructions(sessionKey: string, text: string): Promise<void> {
  try {
    const updated = await api().request('sessions.update', { sessionKey, extraSystemPrompt: text.trim() ? text : null });
    useSessions.setState((s) => ({ sessions: s.sessions.map((x) => (x.sessionKey === sessionKey ? updated : x)) }));
  } catch (err) {
    setNotice(`Could not save the instructions: ${message(err)}`);
  }
}

export async function deleteSession(sessionKey: string): Promise<void> {
  const entry = useSessions.getState().sessions.find((s) => s.sessionKey === sessionKey);
  try {
    const res = await api().request('sessions.delete', { sessionKey });
    if (!res.deleted) return;
    const rest = useSessions.getState().sessions.filter((s) => s.sessionKey !== sessionKey);
    useSessions.setState({ sessions: rest, undo: { sessionKey, title: entry?.title || 'New chat', until: res.undoUntil ?? Date.now() } });
    if (useChat.getState().sessionKey === sessionKey) {
      if (rest[0]) await openSession(rest[0].sessionKey);
      else await newChat();
    }
  } catch (err) {
    setNotice(`Could not delete: ${message(err)}`);
  }
}

/** The toast's Undo: a deleted chat comes back; a chat started over with /reset returns to its earlier conversation. */
export async function undoDelete(): Promise<void> {
  const undo = useSessions.getState().undo;
  if (!undo) return;
  useSessions.setState({ undo: undefined });
  try {
    if (undo.keptKey) await api().request('sessions.undoReset', { sessionKey: undo.sessionKey, keptKey: undo.keptKey });
    else await api().request('sessions.restore', { sessionKey: undo.sessionKey });
    await refreshSessions();
    await openSession(undo.sessionKey);
  } catch (err) {
    setNotice(`Could not undo: ${message(err)}`);
  }
}

export const dismissUndo = (): void => useSessions.setState({ undo: undefined });

/** /reset: the open chat starts over (its old transcript stays on disk) — the gateway's command. */
export async function resetSession(): Promise<void> {
  await runCommand('/reset');
}

export async function exportSession(sessionKey: string, format: 'markdown' | 'json'): Promise<void> {
  try {
    const file = await api().request('sessions.export', { sessionKey, format });
    const url = URL.createObjectURL(new Blob([file.content], { type: file.mime }));
    const a = document.createElement('a');
    a.href = url;
    a.download = file.filename;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    setNotice(`Could not export: ${message(err)}`);
  }
}

let searchSeq = 0;
export async function searchSessions(query: string): Promise<void> {
  useSessions.setState({ query });
  const seq = ++searchSeq;
  if (query.trim() === '') {
    useSessions.setState({ hits: undefined });
    return;
  }
  try {
    const hits = await api().request('sessions.search', { query });
    if (seq === searchSeq) useSessions.setState({ hits });
  } catch (err) {
    setNotice(`Search failed: ${message(err)}`);
  }
}

/** The model and thinking pickers (chat store): the open session remembers the choice. */
async function remember(patch: { model?: string; thinking?: ThinkingLevel | null }): Promise<void> {
  const sessionKey = useChat.getState().sessionKey;
  if (!sessionKey || !useSessions.getState().sessions.some((s) => s.sessionKey === sessionKey)) return;
  try {
    const updated = await api().request('sessions.update', { sessionKey, ...patch });
    useSessions.setState((s) => ({ sessions: s.sessions.map((x) => (x.sessionKey === sessionKey ? updated : x)) }));
  } catch (err) {
    setNotice(`Could not save the choice: ${message(err)}`);
  }
}

export const showView = (view: View, settingsSection?: string): void => useSessions.setState({ view, settingsSection, drawer: false });
export const dismissNotice = (): void => setNotice(undefined);

/** What the app frame does after a command the gateway answered (chat-store's runCommand). */
async function onCommand(outcome: CommandOutcome): Promise<void> {
  if (!outcome.ok) return; // the chat shows why
  const { session } = outcome;
  if ((outcome.command === 'new' || outcome.command === 'reset') && session) {
    userNavigations++;
    const kept = outcome.kept;
    useSessions.setState((s) => ({
      sessions: [session, ...(kept ? [kept] : []), ...s.sessions.filter((x) => x.sessionKey !== session.sessionKey && x.sessionKey !== kept?.sessionKey)],
      // /reset: the earlier conversation is a chat of its own now, and the reset can be undone for a while
      ...(kept ? { undo: { sessionKey: session.sessionKey, title: kept.title, keptKey: kept.sessionKey, until: Date.now() + 30_000 } } : {}),
    }));
    await openSession(session.sessionKey);
    return;
  }
  if (session) useSessions.setState((s) => ({ sessions: s.sessions.map((x) => (x.sessionKey === session.sessionKey ? session : x)) }));
  if (outcome.command !== 'compact') setNotice(outcome.notice, true);
}

/** Connects to the transport, lists the sessions and opens the most recent one (or a new chat when there is none). */
export async function startSessions(t: RendererTransport): Promise<void> {
  try {
    await startSessionsNow(t);
  } finally {
    useSessions.setState({ started: true });
  }
}

async function startSessionsNow(t: RendererTransport): Promise<void> {
  transport = t;
  markStarted();
  setCommandHandler(onCommand);
  setSessionNavigator({ open: openSession, create: newChat, keep: (choice) => void remember({ ...choice, ...('thinking' in choice ? { thinking: choice.thinking ?? null } : {}) }) });
  useChat.subscribe((s, prev) => {
    if (s.sessionKey !== prev.sessionKey) return; // opening a session sets its own model and thinking
    if (choiceWhileSwitching()) return; // for the chat being switched to: kept for it once it is open
    if (s.model !== prev.model && s.model) void remember({ model: s.model });
    if (s.thinking !== prev.thinking) void remember({ thinking: s.thinking ?? null });
  });
  t.api.onEvent((event) => {
    if (collecting && event.sessionKey === collecting.sessionKey) collecting.events.push(event);
    if (event.stream === 'lifecycle') {
      const phase = (event.data as { phase: string }).phase;
      if (phase === 'end' || phase === 'error' || phase === 'start') void refreshSessions();
    }
  });
  const navigationsBefore = userNavigations;
  await refreshSessions();
  const { sessions } = useSessions.getState();
  let target = (sessions.find((s) => s.sessionKey === readLastSession()) ?? sessions[0])?.sessionKey;
  if (!target) {
    try {
      const { model, thinking } = useChat.getState();
      const created = await api().request('sessions.create', { ...(model ? { model } : {}), ...(thinking ? { thinking } : {}) });
      useSessions.setState((s) => ({ sessions: [created, ...s.sessions] }));
      target = created.sessionKey;
    } catch (err) {
      setNotice(`Could not start a new chat: ${message(err)}`);
      return;
    }
  }
  // Someone was quicker than the list: a message already went to the chat on screen, or a new chat was asked
  // for — stay there.
  if (userNavigations !== navigationsBefore) return;
  const shown = useChat.getState();
  if (shown.turns.length > 0 || shown.sending) {
    rememberLastSession(shown.sessionKey);
    return;
  }
  await openSession(target, OPEN_LIMIT, { keepView: true });
}

const LAST_SESSION = 'agentdesk.lastSession';
function readLastSession(): string | null {
  try {
    return localStorage.getItem(LAST_SESSION);
  } catch {
    return null;
  }
}
function rememberLastSession(sessionKey: string): void {
  try {
    localStorage.setItem(LAST_SESSION, sessionKey);
  } catch {
    // storage unavailable: the newest session opens next time
  }
}
