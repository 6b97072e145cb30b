/**
 * Edit, regenerate and retry (issue 18 items 8 and 15): the conversation continues from before one of the
 * person's messages as a new branch — a new transcript holding the messages before it (branch.ts) — and the
 * key moves to it. With `keep`, the transcript it leaves stays in the chat list as "Earlier version: …"
 * (keep-earlier.ts); a retry of a failed reply keeps nothing (the failure is not a version worth keeping).
 */
import type { Message } from '../engine/messages.js';
import { branchTranscript, switchTranscript } from './branch.js';
import { keepAsChat } from './keep-earlier.js';
import { autoTitle } from './title.js';
import type { SessionEntry, SessionStore } from './store.js';

export class BranchRefusedError extends Error {
  override name = 'BranchRefusedError';
}

export interface BranchAt {
  /** The person's message, counted from the end among the person's messages (0: the last one). */
  fromEnd: number;
  /** Its text, as the window shows it (checked, so a stale window never branches at another message). */
  text: string;
}

/** Index of the person's message `at` in `messages`, or -1. */
export function userMessageIndex(messages: readonly Message[], at: BranchAt): number {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    if (seen === at.fromEnd) return m.content === at.text ? i : -1;
    seen++;
  }
  return -1;
}

/**
 * The title of a branch whose chat was not named by the person: it follows the first message of the branch shown
 * ("" when the branch starts before it — the edited message, once sent, titles the chat as a first message does).
 */
export function branchTitle(before: readonly Message[]): string {
  const first = before.find((m) => m.role === 'user' && m.content.trim() !== '');
  return first && first.role === 'user' ? autoTitle(first.content) : '';
}

async function retitle(store: SessionStore, sessionKey: string, title: string): Promise<void> {
  await store.index.mutate((entries, skip) => {
    const e = entries.get(sessionKey);
    if (!e || e.titleByUser || e.title === title) return skip();
    e.title = title;
  });
}

export interface Branched {
  session: SessionEntry;
  kept?: SessionEntry;
}

export async function branchBefore(store: SessionStore, sessionKey: string, at: BranchAt, keep: boolean, now: number): Promise<Branched> {
  const entry = await store.get(sessionKey);
  if (!entry) throw new BranchRefusedError(`No chat "${sessionKey}".`);
  const messages = await store.loadMessages(entry.sessionId);
  const index = userMessageIndex(messages, at);
  if (index === -1) throw new BranchRefusedError('That message is no longer in this chat as shown: reopen the chat and try again.');
  const id = await branchTranscript(store, sessionKey, entry.sessionId, index, now);
  await switchTranscript(store, sessionKey, id, now);
  if (!entry.titleByUser) await retitle(store, sessionKey, branchTitle(messages.slice(0, index)));
  const kept = keep ? await keepAsChat(store, entry, 'branch', now) : undefined;
  return { session: (await store.get(sessionKey))!, ...(kept ? { kept } : {}) };
}
