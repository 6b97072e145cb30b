/**
 * The earlier part of a long chat (issue 18 item 18): a chat opens with its latest messages and the rest comes in
 * above them, piece by piece, latest first, once the list has drawn the chat's end. The sessions store opens chats
 * and hands this module where the earlier part starts (beginEarlier); Ctrl+Home, find and the Earlier bar ask for it
 * at once (askEarlier, through the store's showEarlier). The store also lends its connection and state (the host).
 */
import type { SessionOpened } from '../../../preload/contract.js';
import { mark, useChat } from './chat-store.js';
import { historyToTurns } from './reduce.js';

type Point = { sessionId: string; offset: number };
/** What this module needs of the sessions store. */
export interface EarlierHost {
  /** One piece: `sessions.open` with `before`. */
  request(sessionKey: string, before: Point, limit: number): Promise<SessionOpened>;
  /** The chat opened with `token` is still the open one. */
  current(token: number, sessionKey: string): boolean;
  /** Messages not loaded yet (the store's `omitted`), and setting it. */
  omitted(): number;
  setOmitted(omitted: number): void;
  /** A piece could not be loaded (a notice, if that chat is still open). */
  failed(token: number, err: unknown): void;
}
let host: EarlierHost | undefined;
export const setEarlierHost = (h: EarlierHost): void => {
  host = h;
};

/** The list's index of its first item (react-virtuoso's firstItemIndex): lowered by what is put above it. */
export const FIRST_INDEX = 10_000_000;
let earlierLoading: { token: number; done: Promise<void> } | undefined;
/** Where the open chat's shown part starts in its transcript (the open's `earlier`), until the earlier part is in. */
let earlierPoint: { token: number; before: { sessionId: string; offset: number } } | undefined;

/**
 * Messages in each piece of the earlier part: each piece is a short task for the gateway and for the window (each
 * answer is its own task, so the view keeps painting in between). Larger once the person asks for the earlier part
 * (Ctrl+Home, find): fewer round trips to the first message.
 */
export const EARLIER_PIECE = 2000;
const EARLIER_PIECE_ASKED = 4000;
/** The person asked for the earlier part of the chat opened with this token. */
let earlierAsked = -1;

let shown: (() => void) | undefined;
/**
 * The message list calls this once it shows the end of the chat it opened with (react-virtuoso has placed it):
 * the earlier part may come in once that frame is drawn.
 */
export const listAtEnd = (): void => {
  const done = shown;
  if (!done) return;
  mark('list-at-end');
  requestAnimationFrame(() => setTimeout(done, 0)); // after the frame that draws it
};
/** Resolves when the list shows the opened chat's end (at most a second after it is asked: a list not on screen). */
function listShown(): Promise<void> {
  shown?.();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, 1000);
    function done() {
      clearTimeout(timer);
      if (shown === done) shown = undefined;
      resolve();
    }
    shown = done;
  });
}
/**
 * The earlier part of a long chat (issue 18 item 18): every message before those it opened with, put above them
 * piece by piece, latest first — so scrolling up, Ctrl+Home and find reach the first message, and no piece holds
 * the window (or the gateway) for long.
 */
function loadEarlier(sessionKey: string, token: number, shown: Promise<void> = Promise.resolve()): Promise<void> {
  const h = host!;
  if (earlierLoading?.token === token) return earlierLoading.done;
  // the next piece is asked for as soon as a piece names where it starts, so the gateway reads it while this
  // window takes in the one before
  const ask = (before: { sessionId: string; offset: number }) => {
    const answer = h.request(sessionKey, before, earlierAsked === token ? EARLIER_PIECE_ASKED : EARLIER_PIECE);
    answer.catch(() => undefined); // awaited below, unless the chat was left first
    return answer;
  };
  const done = (async () => {
    try {
      const first = earlierPoint?.token === token ? earlierPoint.before : undefined;
      if (!first || h.omitted() === 0) return;
      let next: ReturnType<typeof ask> | undefined = ask(first);
      for (let piece = 0; next; piece++) {
        const earlier: Awaited<ReturnType<typeof ask>> = await next;
        if (piece === 0) await shown;
        if (!h.current(token, sessionKey)) return;
        earlierPoint = earlier.omitted > 0 && earlier.earlier ? { token, before: earlier.earlier } : undefined;
        next = earlierPoint ? ask(earlierPoint.before) : undefined;
        const older = historyToTurns(earlier.history, `e${piece}-`);
        useChat.setState((s) => ({ turns: [...older, ...s.turns], firstItemIndex: (s.firstItemIndex ?? FIRST_INDEX) - older.length }));
        h.setOmitted(earlierPoint ? earlier.omitted : 0);
        if (!earlierPoint) mark('earlier-in');
      }
    } catch (err) {
      h.failed(token, err);
    }
  })().finally(() => {
    if (earlierLoading?.token === token) earlierLoading = undefined;
  });
  earlierLoading = { token, done };
  return done;
}

/**
 * The chat opened with `token` shows its latest messages; `before` is where they start (none: the chat is whole).
 * The earlier part is asked for at once, but put in only once the list has shown them: a piece taken in before would
 * hold up the first paint.
 */
export function beginEarlier(sessionKey: string, token: number, before: Point | undefined): void {
  earlierPoint = before ? { token, before } : undefined;
  if (earlierPoint) void loadEarlier(sessionKey, token, listShown());
}

/** The person asked for the earlier part (Ctrl+Home, find, the Earlier bar): larger pieces, and wait for it. */
export function askEarlier(sessionKey: string, token: number): Promise<void> {
  earlierAsked = token;
  return loadEarlier(sessionKey, token);
}
