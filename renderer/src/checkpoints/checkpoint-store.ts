/**
 * X2 in the window: the open chat's checkpoints (refreshed when a run records one), the Restore… dialog (summary,
 * list of changes, a diff on click, three choices), and the "Undo restore" notice. Kept apart from the chat
 * store, like the approvals: the components subscribe to their own slice.
 */
import { create } from 'zustand';
import type { AgentDeskApi, CheckpointData, CheckpointDiff, CheckpointDto, CheckpointPreview, RestoreDto, RestoreMode } from '../../../preload/contract.js';
import { openSession, useChat } from '../store/chat-store.js';
import type { Turn, UserTurn } from '../store/types.js';

export interface RestoreDialog {
  checkpoint: CheckpointDto;
  preview?: CheckpointPreview;
  error?: string;
  diff?: CheckpointDiff | { path: string; loading: true };
  /** A restore is on its way (buttons disabled). */
  busy?: boolean;
}

interface CheckpointsState {
  sessionKey?: string;
  list: CheckpointDto[];
  lastRestore: RestoreDto | null;
  dialog?: RestoreDialog;
  /**
   * After a restore: what happened, with "Undo restore"; a failed undo (`undo`) offers to try again. `startup`: what
   * the app's start found (a crash's restore finished or left partly done, in any chat) — kept when the window opens
   * another chat, with no Undo of its own (it may be about another chat than the one on screen).
   */
  notice?: { message: string; error?: boolean; undo?: 'failed'; startup?: true };
  usage?: { bytes: number; sessions: number };
}

export const useCheckpoints = create<CheckpointsState>(() => ({ list: [], lastRestore: null }));

let api: AgentDeskApi | undefined;
/** Recovery notices already shown in this window. */
const shownNotices = new Set<string>();
/**
 * What the app's start found, already shown in this tab: the gateway keeps those lines for its whole life, and a
 * reload must not say again what was dealt with (a restore undone since). Kept for the tab, not for good: another
 * window is told once too.
 */
const STARTUP_SHOWN = 'agentdesk.startupNoticesShown';
function startupShown(): Set<string> {
  try {
    const saved: unknown = JSON.parse(sessionStorage.getItem(STARTUP_SHOWN) ?? '[]');
    return new Set(Array.isArray(saved) ? saved.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}
function rememberStartupShown(lines: readonly string[]): void {
  try {
    sessionStorage.setItem(STARTUP_SHOWN, JSON.stringify([...startupShown(), ...lines].slice(-50)));
  } catch {
    // storage unavailable: said again after a reload
  }
}
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function refreshCheckpoints(sessionKey = useChat.getState().sessionKey): Promise<void> {
  if (!api || !sessionKey) return;
  try {
    const { checkpoints, lastRestore, notices = [] } = await api.request('checkpoints.list', { sessionKey });
    if (useChat.getState().sessionKey === sessionKey) useCheckpoints.setState({ sessionKey, list: checkpoints, lastRestore });
    // After a crash: what the start-up finished (a restore completed, a checkpoint discarded), said once.
    const before = startupShown();
    const fresh = notices.filter((n) => !shownNotices.has(n) && !before.has(n));
    for (const n of fresh) shownNotices.add(n);
    if (fresh.length > 0) rememberStartupShown(fresh);
    const shown = useCheckpoints.getState().notice;
    if (fresh.length > 0 && !shown) useCheckpoints.setState({ notice: { message: fresh.join(' '), startup: true } });
    // A restore of this chat left partly done (neither finished nor put back): said with its Undo until it is undone
    // (in place of what the start said about it).
    else if (lastRestore?.incomplete && useChat.getState().sessionKey === sessionKey && (!shown || shown.startup) && !shownNotices.has(lastRestore.incomplete)) {
      shownNotices.add(lastRestore.incomplete);
      useCheckpoints.setState({ notice: { message: lastRestore.incomplete } });
    }
  } catch {
    // an older gateway without checkpoints: no Restore… actions
    useCheckpoints.setState({ sessionKey, list: [], lastRestore: null });
  }
}

/** Subscribes to the transport's events and to the open chat (called once at start-up). */
export function startCheckpoints(a: AgentDeskApi): void {
  api = a;
  a.onEvent((event) => {
    if (event.stream === 'checkpoint' && (event.data as CheckpointData).phase === 'created' && event.sessionKey === useChat.getState().sessionKey) {
      void refreshCheckpoints(event.sessionKey);
    }
  });
  let seen = useChat.getState().sessionKey;
  useChat.subscribe((s) => {
    if (s.sessionKey === seen) return;
    seen = s.sessionKey;
    const { notice } = useCheckpoints.getState();
    useCheckpoints.setState({ list: [], lastRestore: null, dialog: undefined, notice: notice?.startup ? notice : undefined });
    void refreshCheckpoints(s.sessionKey);
  });
  void refreshCheckpoints(seen);
}

/** The checkpoint taken in the turn this user message started: by run id (live), else by the stored message. */
export function checkpointFor(turn: Pick<UserTurn, 'runId' | 'ts' | 'text'>, list: readonly CheckpointDto[]): CheckpointDto | undefined {
  return (
    (turn.runId ? list.find((c) => c.runId === turn.runId) : undefined) ??
    list.find((c) => c.messageAt === turn.ts && (c.message === undefined || c.message === turn.text))
  );
}

/** Where a turn stood, as firstItemIndex + its position: still true after earlier turns are put above it. */
const hints = new WeakMap<Turn, number>();
/** Turns arrays whose turns all have their place in `hints`. */
const indexed = new WeakSet<readonly Turn[]>();

/**
 * Where a turn stands. Each message on screen asks whenever the turns change — every streamed frame, every piece
 * of a long chat's earlier part — so the answer must not cost a walk of the whole chat each time: each turn's
 * position is remembered, counted from the list's first index (which moves with what is put above, so the
 * position stays true), and checked; the live turn (a new object every frame) is found at the end; only a turn
 * not seen yet has the whole array indexed, once per array.
 */
function positionOf(turns: readonly Turn[], turn: Turn, first: number): number {
  const known = (): number => {
    const hint = hints.get(turn);
    return hint !== undefined && turns[hint - first] === turn ? hint - first : -1;
  };
  let at = known();
  if (at >= 0) return at;
  for (let i = turns.length - 1; i >= Math.max(0, turns.length - 3); i--) if (turns[i]!.id === turn.id) return i;
  if (indexed.has(turns)) return turns.findIndex((t) => t.id === turn.id); // another object of that id (a moment's lag)
  turns.forEach((t, i) => hints.set(t, i + first));
  indexed.add(turns);
  at = known();
  return at >= 0 ? at : turns.findIndex((t) => t.id === turn.id);
}

/** The user message an assistant turn answers (the nearest user turn before it); `first`: the list's first index. */
export function userTurnBefore(turns: readonly Turn[], turn: Turn, first = 0): UserTurn | undefined {
  const at = positionOf(turns, turn, first);
  for (let i = at - 1; i >= 0; i--) if (turns[i]!.kind === 'user') return turns[i] as UserTurn;
  return undefined;
}

export async function openRestore(checkpoint: CheckpointDto): Promise<void> {
  const sessionKey = useChat.getState().sessionKey;
  useCheckpoints.setState({ dialog: { checkpoint } });
  try {
    const preview = await api!.request('checkpoints.preview', { sessionKey, id: checkpoint.id });
    useCheckpoints.setState((s) => (s.dialog?.checkpoint.id === checkpoint.id ? { dialog: { ...s.dialog, preview } } : s));
  } catch (err) {
    useCheckpoints.setState((s) => (s.dialog ? { dialog: { ...s.dialog, error: message(err) } } : s));
  }
}

export const closeRestore = (): void => useCheckpoints.setState({ dialog: undefined });

export async function showDiff(path: string): Promise<void> {
  const dialog = useCheckpoints.getState().dialog;
  if (!dialog || !api) return;
  if (dialog.diff?.path === path) return useCheckpoints.setState({ dialog: { ...dialog, diff: undefined } });
  useCheckpoints.setState({ dialog: { ...dialog, diff: { path, loading: true } } });
  try {
    const diff = await api.request('checkpoints.diff', { sessionKey: useChat.getState().sessionKey, id: dialog.checkpoint.id, path });
    useCheckpoints.setState((s) => (s.dialog?.diff?.path === path ? { dialog: { ...s.dialog, diff } } : s));
  } catch (err) {
    useCheckpoints.setState((s) => (s.dialog ? { dialog: { ...s.dialog, diff: undefined, error: message(err) } } : s));
  }
}

/** After a restore: the conversation (if it changed) is reloaded, and the restored message is put back to edit. */
async function afterRestore(sessionKey: string, conversation: boolean, draft?: string): Promise<void> {
  if (conversation) await openSession(sessionKey);
  if (draft !== undefined) useChat.setState({ editRequest: { text: draft, nonce: Date.now() } });
  await refreshCheckpoints(sessionKey);
}

export async function confirmRestore(mode: RestoreMode): Promise<void> {
  const dialog = useCheckpoints.getState().dialog;
  if (!dialog || !api || dialog.busy) return;
  const sessionKey = useChat.getState().sessionKey;
  useCheckpoints.setState({ dialog: { ...dialog, busy: true, error: undefined } });
  try {
    const result = await api.request('checkpoints.restore', { sessionKey, id: dialog.checkpoint.id, mode });
    useCheckpoints.setState({ dialog: undefined, notice: { message: result.message.replace(/ `checkpoints undo` takes it back\.$/, '') } });
    await afterRestore(sessionKey, result.restore.conversation, result.draft);
  } catch (err) {
    useCheckpoints.setState((s) => (s.dialog ? { dialog: { ...s.dialog, busy: false, error: message(err) } } : s));
  }
}

export async function undoRestore(): Promise<void> {
  if (!api) return;
  const sessionKey = useChat.getState().sessionKey;
  try {
    const result = await api.request('checkpoints.undo', { sessionKey });
    useCheckpoints.setState({ notice: { message: result.message.replace(/ `checkpoints undo` takes it back\.$/, '') } });
    await afterRestore(sessionKey, result.restore.conversation);
  } catch (err) {
    // nothing was changed: once the cause is fixed (a folder made writable again) the person tries again from here
    useCheckpoints.setState({ notice: { message: message(err), error: true, undo: 'failed' } });
    await refreshCheckpoints(sessionKey);
  }
}

export const dismissRestoreNotice = (): void => useCheckpoints.setState({ notice: undefined });

export async function loadCheckpointUsage(): Promise<void> {
  if (!api) return;
  try {
    useCheckpoints.setState({ usage: await api.request('checkpoints.usage', {}) });
  } catch {
    /* older gateway */
  }
}
