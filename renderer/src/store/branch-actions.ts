/**
 * Edit, Regenerate, Retry and Switch model (issue 18 items 8 and 15), all one move: the chat continues from before
 * one of the person's messages (`sessions.branch`), then a message is sent — the edited text, or the same one.
 * Edit and Regenerate keep the conversation they leave as a chat of its own ("Earlier version: …"); Retry and
 * Switch model re-run a failed reply in place (nothing worth keeping). The view drops the turns from that message
 * on at once, so the new reply takes the old one's place.
 */
import { chatTransport, sendMessage, setModelPickHandler, useChat } from './chat-store.js';
import type { Turn, UserTurn } from './types.js';

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const busyOf = new WeakMap<readonly Turn[], boolean>();

/**
 * A reply is running or waiting: the conversation cannot move under it. Every message on screen asks on every
 * streamed frame; the answer is worked out once per turns array (a long chat has tens of thousands of turns, and
 * the walk per message per frame was the long task while a reply streamed — issue 18 item 18).
 */
export const busy = (turns: readonly Turn[]): boolean => {
  let b = busyOf.get(turns);
  if (b === undefined) {
    b = turns.some((t) => t.kind === 'assistant' && (t.status === 'running' || t.status === 'queued'));
    busyOf.set(turns, b);
  }
  return b;
};

/** The person's message before `turnId` (the turn itself when it is one). */
export function userTurnAt(turns: Turn[], turnId: string): UserTurn | undefined {
  const index = turns.findIndex((t) => t.id === turnId);
  if (index === -1) return undefined;
  const t = turns[index]!;
  return t.kind === 'user' ? t : turns.slice(0, index).findLast((x): x is UserTurn => x.kind === 'user');
}

async function branchAndSend(user: UserTurn, text: string, keep: boolean): Promise<boolean> {
  const t = chatTransport();
  const { turns, sessionKey } = useChat.getState();
  if (!t || !sessionKey || busy(turns) || text.trim() === '') return false;
  const at = turns.indexOf(user);
  if (at === -1) return false;
  const fromEnd = turns.slice(at + 1).filter((x) => x.kind === 'user').length;
  try {
    await t.api.request('sessions.branch', { sessionKey, fromEnd, text: user.text, keep });
  } catch (err) {
    useChat.setState({ error: `Could not ${keep ? 'branch the conversation' : 'retry'}: ${message(err)}` });
    return false;
  }
  if (useChat.getState().sessionKey !== sessionKey) return false;
  useChat.setState((s) => ({ turns: s.turns.slice(0, s.turns.indexOf(user) === -1 ? at : s.turns.indexOf(user)) }));
  return sendMessage(text, user.attachments ?? []); // the message's attachments go with it again
}

/** Edit: `userTurnId`'s message replaced by `text`; the conversation goes on from there (the old one is kept). */
export function editMessage(userTurnId: string, text: string): Promise<boolean> {
  const user = userTurnAt(useChat.getState().turns, userTurnId);
  return user ? branchAndSend(user, text, true) : Promise.resolve(false);
}

/** Regenerate: the reply `assistantTurnId` asked for again (the old one is kept). */
export function regenerate(assistantTurnId: string): Promise<boolean> {
  const user = userTurnAt(useChat.getState().turns, assistantTurnId);
  return user ? branchAndSend(user, user.text, true) : Promise.resolve(false);
}

/** Retry: the failed reply `runTurnId` run again in place (same message, same turn). */
export function retryRun(runTurnId: string): Promise<boolean> {
  const user = userTurnAt(useChat.getState().turns, runTurnId);
  return user ? branchAndSend(user, user.text, false) : Promise.resolve(false);
}

/** Switch model: the model list opens; the model picked there retries the failed reply `runTurnId`. */
export function switchModelAndRetry(runTurnId: string): void {
  useChat.setState({ palette: 'models', retryOnPick: runTurnId });
}

setModelPickHandler((turnId) => void retryRun(turnId));
