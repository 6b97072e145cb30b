/**
 * E22 session store: user-facing session keys ("main", "work/bugfix") map to sessions with a random id; each
 * session has one append-only transcript `<dir>/<sessionId>.jsonl` (the key never reaches a file name).
 *
 * Writes to a transcript are serialised per session (E13) through a KeyedMutex: `append` takes the lock for one
 * batch; `withWriteLock` holds it for a multi-step critical section and hands out a writer that does not re-lock
 * (the mutex is not re-entrant). Reads (`loadMessages`) take no lock: a reader that races a write at worst sees
 * the batch being written as a torn tail and drops it from its view; the file is untouched.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Message } from '../engine/messages.js';
import { addBilling, type Billing } from '../engine/attempt/usage.js';
import { emptyUsage } from '../engine/messages.js';
import { IndexStore, type SessionEntry } from './index-store.js';
import { messageSchema } from './message-schema.js';
import { SESSION_ID_RE, TRANSCRIPT_EXT } from './rebuild.js';
import { autoTitle, normalizeTitle, USER_TITLE_MAX } from './title.js';
import {
  appendLines,
  compactionLine,
  contextOf,
  createTranscript,
  headerLine,
  loadTranscript,
  messageLine,
  repairTranscript,
  tailState,
  toolResultsLine,
  type CompactionFields,
  type LoadedTranscript,
  type SessionContext,
} from './transcript.js';
import type { ToolResultsFields } from './message-schema.js';
import { KeyedMutex } from './write-lock.js';
import { externalizeImages, type AttachmentStore } from './attachments.js';

export type { SessionEntry } from './index-store.js';

export class SessionNotFoundError extends Error {
  override name = 'SessionNotFoundError';
}

export class InvalidSessionKeyError extends Error {
  override name = 'InvalidSessionKeyError';
}

export const SESSION_KEY_MAX = 200;

export function validateSessionKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.trim() === '') throw new InvalidSessionKeyError('Session key must be a non-empty string');
  if (key.length > SESSION_KEY_MAX) throw new InvalidSessionKeyError(`Session key is longer than ${SESSION_KEY_MAX} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new InvalidSessionKeyError('Session key must not contain control characters');
}

export interface SessionStoreOptions {
  now?: () => number;
  newId?: () => string;
  /** fsync each transcript append (default false) — the index is always fsynced before its rename. */
  fsync?: boolean;
  onWarning?: (message: string) => void;
  /** E19 `session_start`: a session began — created for a key, or a key reset to a fresh session (/reset). */
  onSessionStart?: (session: { sessionKey: string; sessionId: string }) => void;
  /** E19 `session_end`: a key was reset; its previous session ends (called before the new one's start). */
  onSessionEnd?: (session: { sessionKey: string; sessionId: string; reason: 'reset' }) => void;
  /** X3: where images a message carries inline are stored (the transcript then names them by sha256). */
  attachments?: AttachmentStore;
}

/** Handed to `withWriteLock` callbacks: writes inside the held lock. Invalid once the callback has settled. */
export interface TranscriptWriter {
  append(...messages: Message[]): Promise<void>;
  /** What the model sees of the session now (as `loadContext`), read under the lock. */
  loadContext(): Promise<SessionContext>;
  /** Records tool results shortened after the fact (a `tool_results` line; the transcript is never edited). */
  recordShortening(record: ToolResultsFields): Promise<void>;
}

export interface SessionPatch {
  title?: string;
  model?: string;
  /** null clears the session's own choice (back to the default). */
  thinking?: SessionEntry['thinking'] | null;
  verbose?: boolean | null;
  extraSystemPrompt?: string | null;
  historyTurns?: number | null;
  /** E17: a run's billed tokens (every model call, compaction included), added to the session's totals. */
  addBilling?: Billing;
  /** E17: tokens the conversation takes now (kept apart from the billed totals). */
  context?: number;
}

export class SessionStore {
  readonly index: IndexStore;
  private readonly locks = new KeyedMutex();
  /** Transcripts checked (torn tail repaired, header present) by this process since it started. */
  private readonly ready = new Set<string>();
  private readonly now: () => number;
  private readonly newId: () => string;

  constructor(
    readonly dir: string,
    private readonly opts: SessionStoreOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.newId = opts.newId ?? randomUUID;
    this.index = new IndexStore(dir, {
      now: this.now,
      ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    });
  }

  transcriptPath(sessionId: string): string {
    if (!SESSION_ID_RE.test(sessionId)) throw new Error(`Invalid session id: ${JSON.stringify(sessionId)}`);
    return join(this.dir, sessionId + TRANSCRIPT_EXT);
  }

  /** The entry of `sessionKey`, created (with a new id and an empty transcript) if it does not exist. */
  async resolve(sessionKey: string, init: { model?: string; parentSessionKey?: string } = {}): Promise<SessionEntry> {
    validateSessionKey(sessionKey);
    // Most calls find the session: a lock-free read first keeps them off the cross-process index lock.
    const known = await this.index.get(sessionKey);
    if (known) return known;
    let isNew = false;
    const entry = await this.index.mutate((entries, skipWrite) => {
      const existing = entries.get(sessionKey);
      if (existing) {
        skipWrite();
        return { ...existing, usage: { ...existing.usage } };
      }
      isNew = true;
      const t = this.now();
      const created: SessionEntry = {
        sessionKey,
        sessionId: this.newId(),
        title: '',
        ...(init.model !== undefined ? { model: init.model } : {}),
        ...(init.parentSessionKey !== undefined ? { parentSessionKey: init.parentSessionKey } : {}),
        createdAt: t,
        updatedAt: t,
        usage: emptyUsage(),
      };
      this.transcriptPath(created.sessionId); // validates the id before it is stored
      entries.set(sessionKey, created);
      return { ...created, usage: { ...created.usage } };
    });
    // Index first, transcript second: a crash in between leaves an entry whose transcript is missing, which
    // loads as empty and gets its header on first append — never an orphan transcript.
    await mkdir(this.dir, { recursive: true });
    await createTranscript(this.transcriptPath(entry.sessionId), { id: entry.sessionId, createdAt: entry.createdAt, key: sessionKey });
    if (isNew) this.opts.onSessionStart?.({ sessionKey, sessionId: entry.sessionId });
    return entry;
  }

  get(sessionKey: string): Promise<SessionEntry | undefined> {
    return this.index.get(sessionKey);
  }

  /** All sessions, most recently updated first (ties: newest created first, then key). */
  async list(): Promise<SessionEntry[]> {
    const all = await this.index.all();
    return all.sort(
      (a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt || a.sessionKey.localeCompare(b.sessionKey),
    );
  }

  /** Applies a patch and sets updatedAt = now. `addBilling` is summed field by field (cost while every call was priced). */
  update(sessionKey: string, patch: SessionPatch): Promise<SessionEntry> {
    return this.index.mutate((entries) => {
      const e = entries.get(sessionKey);
      if (!e) throw new SessionNotFoundError(`No session with key ${JSON.stringify(sessionKey)}`);
      if (patch.title !== undefined) {
        e.title = normalizeTitle(patch.title, USER_TITLE_MAX);
        e.titleByUser = true;
      }
      if (patch.model !== undefined) e.model = patch.model;
      if (patch.thinking === null) delete e.thinking;
      else if (patch.thinking !== undefined) e.thinking = patch.thinking;
      if (patch.verbose === null) delete e.verbose;
      else if (patch.verbose !== undefined) e.verbose = patch.verbose;
      if (patch.extraSystemPrompt === null) delete e.extraSystemPrompt;
      else if (patch.extraSystemPrompt !== undefined) e.extraSystemPrompt = patch.extraSystemPrompt;
      if (patch.historyTurns === null) delete e.historyTurns;
      else if (patch.historyTurns !== undefined) e.historyTurns = patch.historyTurns;
      if (patch.addBilling) e.usage = addBilling(e.usage, patch.addBilling);
      if (patch.context !== undefined) e.context = patch.context;
      e.updatedAt = this.now();
      return { ...e, usage: { ...e.usage } };
    });
  }

  rename(sessionKey: string, title: string): Promise<SessionEntry> {
    return this.update(sessionKey, { title });
  }

  /** Removes the entry and its transcript. Returns false if the key was unknown. */
  async delete(sessionKey: string): Promise<boolean> {
    const removed = await this.index.mutate((entries, skipWrite) => {
      const e = entries.get(sessionKey);
      if (!e) skipWrite();
      else entries.delete(sessionKey);
      return e;
    });
    if (!removed) return false;
    const id = removed.sessionId;
    await this.locks.run(id, async () => {
      await unlink(this.transcriptPath(id)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      this.ready.delete(id);
    });
    return true;
  }

  /**
   * /new and /reset: gives `sessionKey` a fresh session id, empty title and zero usage; the model choice is kept.
   * The old transcript stays on disk (history is never destroyed by a reset).
   */
  async reset(sessionKey: string): Promise<SessionEntry> {
    validateSessionKey(sessionKey);
    let previous: string | undefined;
    const entry = await this.index.mutate((entries) => {
      const old = entries.get(sessionKey);
      previous = old?.sessionId;
      const t = this.now();
      const fresh: SessionEntry = {
        sessionKey,
        sessionId: this.newId(),
        title: '',
        ...(old?.model !== undefined ? { model: old.model } : {}),
        ...(old?.thinking !== undefined ? { thinking: old.thinking } : {}),
        ...(old?.verbose !== undefined ? { verbose: old.verbose } : {}),
        ...(old?.extraSystemPrompt !== undefined ? { extraSystemPrompt: old.extraSystemPrompt } : {}),
        ...(old?.historyTurns !== undefined ? { historyTurns: old.historyTurns } : {}),
        createdAt: t,
        updatedAt: t,
        usage: emptyUsage(),
      };
      this.transcriptPath(fresh.sessionId);
      entries.set(sessionKey, fresh);
      return { ...fresh, usage: { ...fresh.usage } };
    });
    await mkdir(this.dir, { recursive: true });
    await createTranscript(this.transcriptPath(entry.sessionId), { id: entry.sessionId, createdAt: entry.createdAt, key: sessionKey });
    if (previous) this.opts.onSessionEnd?.({ sessionKey, sessionId: previous, reason: 'reset' });
    this.opts.onSessionStart?.({ sessionKey, sessionId: entry.sessionId });
    return entry;
  }

  async loadMessages(sessionId: string): Promise<Message[]> {
    return (await this.loadTranscript(sessionId)).messages;
  }

  /** What the model sees of the session: the latest compaction's summary and the messages it keeps (E10). */
  async loadContext(sessionId: string): Promise<SessionContext> {
    return contextOf(await this.loadTranscript(sessionId));
  }

  /** Appends a compaction record (never rewrites the transcript), serialised with the session's other writes. */
  async appendCompaction(sessionId: string, record: CompactionFields): Promise<void> {
    const file = this.transcriptPath(sessionId);
    return this.locks.run(sessionId, () => this.appendLinesLocked(sessionId, file, [compactionLine(record)]));
  }

  /** The full load result (torn tail, skipped lines) for diagnostics. */
  async loadTranscript(sessionId: string): Promise<LoadedTranscript> {
    return loadTranscript(this.transcriptPath(sessionId));
  }

  /** Appends messages as one batch, serialised with every other write to this session. */
  async append(sessionId: string, ...messages: Message[]): Promise<void> {
    const file = this.transcriptPath(sessionId);
    return this.locks.run(sessionId, () => this.appendLocked(sessionId, file, messages));
  }

  /**
   * E10: shortens stored tool results under the session's write lock — `plan` sees the context as it is now and
   * names the new text of the results to shorten — recorded as one `tool_results` line. Returns how many.
   */
  shortenToolResults(
    sessionId: string,
    plan: (messages: readonly Message[]) => { toolCallId: string; content: string }[],
    reason = 'truncate',
  ): Promise<number> {
    return this.withWriteLock(sessionId, async (writer) => {
      const results = plan((await writer.loadContext()).messages);
      if (results.length > 0) await writer.recordShortening({ results, reason, timestamp: this.now() });
      return results.length;
    });
  }

  /** Holds the session's write lock for `fn`; write through the writer it receives (not through `append`). */
  async withWriteLock<T>(sessionId: string, fn: (writer: TranscriptWriter) => Promise<T>): Promise<T> {
    const file = this.transcriptPath(sessionId);
    return this.locks.run(sessionId, async () => {
      let open = true;
      const guard = () => {
        if (!open) throw new Error('TranscriptWriter used after its write lock was released');
      };
      const writer: TranscriptWriter = {
        append: async (...messages) => {
          guard();
          await this.appendLocked(sessionId, file, messages);
        },
        loadContext: async () => {
          guard();
          return contextOf(await loadTranscript(file));
        },
        recordShortening: async (record) => {
          guard();
          await this.appendLinesLocked(sessionId, file, [toolResultsLine(record)]);
        },
      };
      try {
        return await fn(writer);
      } finally {
        open = false;
      }
    });
  }

  private async appendLocked(sessionId: string, file: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    const attachments = this.opts.attachments;
    if (attachments) messages = await Promise.all(messages.map((m) => externalizeImages(m, attachments)));
    for (const m of messages) {
      const check = messageSchema.safeParse(m);
      if (!check.success) throw new TypeError(`Refusing to write an invalid message: ${check.error.issues[0]?.message ?? 'bad shape'}`);
    }
    await this.appendLinesLocked(sessionId, file, messages.map(messageLine));
    const firstUser = messages.find((m) => m.role === 'user' && m.content.trim() !== '');
    if (firstUser && firstUser.role === 'user') await this.setAutoTitle(sessionId, firstUser.content);
  }

  private async appendLinesLocked(sessionId: string, file: string, lines: string[]): Promise<void> {
    // Full repair once per session per process (also drops an invalid last line that has its newline); after
    // that a cheap last-byte check catches a tail torn since (a failed write, another process, a test).
    let size: number;
    const tail = this.ready.has(sessionId) ? await tailState(file) : undefined;
    if (!tail || !tail.endsWithNewline) {
      await mkdir(this.dir, { recursive: true });
      const repaired = await repairTranscript(file);
      if (repaired.truncatedBytes > 0) this.opts.onWarning?.(`Dropped a torn last line (${repaired.truncatedBytes} bytes) from ${file}`);
      size = repaired.size;
      this.ready.add(sessionId);
    } else {
      size = tail.size;
    }
    if (size === 0) {
      const entry = await this.entryById(sessionId);
      lines.unshift(headerLine({ id: sessionId, createdAt: entry?.createdAt ?? this.now(), ...(entry ? { key: entry.sessionKey } : {}) }));
    }
    try {
      await appendLines(file, lines, { fsync: this.opts.fsync ?? false });
    } catch (err) {
      this.ready.delete(sessionId); // a partial write may have torn the tail: repair fully next time
      throw err;
    }
  }

  private async entryById(sessionId: string): Promise<SessionEntry | undefined> {
    return (await this.index.all()).find((e) => e.sessionId === sessionId);
  }

  private async setAutoTitle(sessionId: string, text: string): Promise<void> {
    const current = (await this.index.all()).find((x) => x.sessionId === sessionId);
    if (!current || current.title !== '') return; // titled already (checked again under the lock below)
    return this.index.mutate((entries, skipWrite) => {
      const e = [...entries.values()].find((x) => x.sessionId === sessionId);
      if (!e || e.title !== '') return skipWrite();
      e.title = autoTitle(text);
    });
  }
}
