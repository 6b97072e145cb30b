/**
 * Conversation branches (X2 "restore the conversation"; reusable for edit-and-resend): a session key moves to a
 * new transcript that holds the first N messages of an older one — byte for byte, compaction records before the
 * cut included — and whose header names where it branched from (`branchOf`). The older transcript is never
 * changed or removed, so the history after the cut stays on disk and the key can be switched back to it.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Message } from '../engine/messages.js';
import { SessionNotFoundError, type SessionStore } from './store.js';
import { classifyLine, headerLine } from './transcript.js';

/** The raw lines of `text` before its `keep`-th message line (the header excluded). */
export function linesBeforeMessage(text: string, keep: number): string {
  let seen = 0;
  let out = '';
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const kind = classifyLine(line).kind;
    if (kind === 'header' || kind === 'invalid') continue;
    if (kind === 'message') {
      if (seen === keep) break;
      seen++;
    }
    out += `${line}\n`;
  }
  return out;
}

/** Writes a new transcript with the first `keep` messages of `fromSessionId`; returns the new session id. */
export async function branchTranscript(store: SessionStore, sessionKey: string, fromSessionId: string, keep: number, now = Date.now()): Promise<string> {
  let text = '';
  try {
    text = await readFile(store.transcriptPath(fromSessionId), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = randomUUID();
  const header = headerLine({ id, createdAt: now, key: sessionKey }).replace(/}\n$/, `,"branchOf":${JSON.stringify({ sessionId: fromSessionId, atMessage: keep })}}\n`);
  await writeFile(store.transcriptPath(id), header + linesBeforeMessage(text, keep), { flag: 'wx', mode: 0o600 });
  return id;
}

/** Points `sessionKey` at the transcript `sessionId` (a branch, or back to the one it branched from). */
export async function switchTranscript(store: SessionStore, sessionKey: string, sessionId: string, now = Date.now()): Promise<void> {
  store.transcriptPath(sessionId); // validates the id
  await store.index.mutate((entries) => {
    const e = entries.get(sessionKey);
    if (!e) throw new SessionNotFoundError(`No session with key ${JSON.stringify(sessionKey)}`);
    e.sessionId = sessionId;
    e.updatedAt = now;
  });
}

/** Index of a turn's user message: the first user message with this text written at or after the run started. */
export function findTurnMessage(messages: readonly Message[], turn: { message?: string; startedAt?: number }): number {
  return messages.findIndex(
    (m) => m.role === 'user' && (turn.message === undefined || m.content === turn.message) && m.timestamp >= (turn.startedAt ?? 0),
  );
}
