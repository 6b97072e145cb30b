/**
 * An earlier conversation kept as a chat of its own (issue 18 items 4 and 15): when `/reset` starts a key over,
 * or an edited message sends the conversation down a new branch, the transcript the key leaves is not orphaned —
 * it gets an index entry under a new key, so it is listed, searchable, openable and deletable like any chat.
 * `takeBack` undoes a reset: the key returns to its earlier transcript and the kept entry goes.
 */
import { unlink } from 'node:fs/promises';
import { newSessionKey } from './new-key.js';
import type { SessionEntry, SessionStore } from './store.js';

/** Said first, so a narrow chat list that cuts the title off still shows why the chat is there. */
export const KEPT_PREFIX = { reset: 'Before reset: ', branch: 'Earlier version: ' } as const;
export type KeptReason = keyof typeof KEPT_PREFIX;

/** The title of the kept chat: the old one after a word on why it was kept. */
export const keptTitle = (title: string, why: KeptReason): string => `${KEPT_PREFIX[why]}${title.trim() || 'a conversation'}`;

/**
 * Lists `earlier` (an entry as it was before its key moved to another transcript) under a new key, with its
 * title, usage and choices. Returns the kept entry, or undefined when the transcript holds no message.
 */
export async function keepAsChat(store: SessionStore, earlier: SessionEntry, why: KeptReason, now: number): Promise<SessionEntry | undefined> {
  if ((await store.loadMessages(earlier.sessionId)).length === 0) return undefined;
  let key = newSessionKey('chat', now);
  while (await store.get(key)) key = newSessionKey('chat', now);
  return store.index.mutate((entries) => {
    const kept: SessionEntry = { ...earlier, sessionKey: key, title: keptTitle(earlier.title, why), usage: { ...earlier.usage } };
    entries.set(key, kept);
    return { ...kept, usage: { ...kept.usage } };
  });
}

export class TakeBackRefusedError extends Error {
  override name = 'TakeBackRefusedError';
}

/**
 * Undo of a reset: `sessionKey` points at the kept chat's transcript again (its title without the prefix) and the
 * kept entry leaves the list. Refused once the fresh conversation has a message (that would lose it).
 */
export async function takeBack(store: SessionStore, sessionKey: string, keptKey: string): Promise<SessionEntry> {
  const [now, kept] = await Promise.all([store.get(sessionKey), store.get(keptKey)]);
  if (!kept || !kept.title.startsWith(KEPT_PREFIX.reset)) throw new TakeBackRefusedError('The earlier conversation is no longer there to go back to.');
  if (now && (await store.loadMessages(now.sessionId)).length > 0) {
    throw new TakeBackRefusedError(`This chat has new messages since the reset; the earlier conversation stays in the list as “${kept.title}”.`);
  }
  const restored = await store.index.mutate((entries) => {
    const title = kept.title.slice(KEPT_PREFIX.reset.length);
    const back: SessionEntry = { ...kept, sessionKey, title: title === 'a conversation' ? '' : title, usage: { ...kept.usage } };
    entries.delete(keptKey);
    entries.set(sessionKey, back);
    return { ...back, usage: { ...back.usage } };
  });
  if (now) await unlink(store.transcriptPath(now.sessionId)).catch(() => undefined); // the fresh, empty transcript
  return restored;
}
