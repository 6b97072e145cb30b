/**
 * E22 session index: `<dir>/sessions.json` = {"version":1,"sessions":{ sessionKey: SessionEntry }}.
 *
 * - Writes are atomic (temp file, fsync, rename) and serialised; each mutation works on a copy, so memory and
 *   disk never disagree when a write fails.
 * - A corrupt index (bad JSON or bad shape) is moved aside to `sessions.json.corrupt-<ts>` and rebuilt from the
 *   transcripts present; a missing index with transcripts present is rebuilt too.
 * - An index written by a newer version is never overwritten (IndexVersionError).
 * - Several processes may share one folder (the app and CLI runs): every mutation holds the cross-process lock
 *   `sessions.json.lock` (file-lock.ts: a killed holder's lock is taken over at once), re-reads the file, applies its change to what is on
 *   disk now (so another process's entries are merged, never overwritten by a stale copy) and renames atomically.
 *   A file whose text is the one this process last read or wrote is not parsed and checked again (a turn writes
 *   the index two or three times; with many sessions each parse was the larger part of a write).
 *   Reads take no lock: a rename is atomic, so a reader sees the old or the new index, never a mix.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import type { Usage } from '../engine/messages.js';
import { rebuildEntries } from './rebuild.js';
import { KeyedMutex } from './write-lock.js';
import { withFileLock } from './file-lock.js';

export interface SessionEntry {
  sessionKey: string;
  sessionId: string;
  title: string;
  /** The person named the chat: its title no longer follows its first message (an edit of it leaves the name). */
  titleByUser?: boolean;
  /** "provider/model" chosen for this session; unset = the configured default. */
  model?: string;
  /** A subagent's session: the session key of the run that spawned it (E20). */
  parentSessionKey?: string;
  /** Thinking level chosen for this session; unset = the configured default. */
  thinking?: 'off' | 'minimal' | 'low' | 'medium' | 'high';
  /** `/verbose` chosen for this session; unset = the configured default (agent.verbose). */
  verbose?: boolean;
  /** E9: the chat's custom instructions, added to the system prompt of its runs. */
  extraSystemPrompt?: string;
  /** E22: send only the last N turns of this session (unset: agent.historyTurns). */
  historyTurns?: number;
  createdAt: number;
  updatedAt: number;
  /** E17: billed tokens of every run (every model call, compaction included); `cost` (USD) while every call was priced. */
  usage: Usage & { calls?: number; cost?: number };
  /** E17: tokens the conversation takes now (after the last run), apart from the billed totals. */
  context?: number;
}

export const INDEX_FILE = 'sessions.json';
export const INDEX_VERSION = 1;

const finite = lazy(() => z.number().refine(Number.isFinite));
const entrySchema = lazy(() => z.object({
  sessionKey: z.string().min(1),
  sessionId: z.string().min(1),
  title: z.string(),
  titleByUser: z.boolean().optional(),
  model: z.string().optional(),
  parentSessionKey: z.string().optional(),
  thinking: z.enum(['off', 'minimal', 'low', 'medium', 'high']).optional(),
  verbose: z.boolean().optional(),
  extraSystemPrompt: z.string().optional(),
  historyTurns: z.number().int().positive().optional(),
  createdAt: finite,
  updatedAt: finite,
  usage: z.object({
    input: finite,
    output: finite,
    cacheRead: finite,
    cacheWrite: finite,
    total: finite,
    calls: finite.optional(),
    cost: finite.optional(),
  }),
  context: finite.optional(),
}));
const indexSchema = lazy(() => z.object({ version: z.number().int().positive(), sessions: z.record(z.string(), z.unknown()) }));

export class IndexVersionError extends Error {
  override name = 'IndexVersionError';
}

export interface IndexRecovery {
  /** Where the unreadable index was moved (absent when there was no index file). */
  movedTo?: string;
  reason: string;
  rebuilt: number;
}

export interface IndexStoreOptions {
  now: () => number;
  fsync?: boolean;
  onWarning?: (message: string) => void;
}

type Entries = Map<string, SessionEntry>;

const copyEntry = (e: SessionEntry): SessionEntry => ({ ...e, usage: { ...e.usage } });

export class IndexStore {
  readonly file: string;
  /** Set when the last load had to recover (for diagnostics and tests). */
  recovery: IndexRecovery | undefined;
  private entries: Entries | undefined;
  private readonly mutex = new KeyedMutex();
  /** Stale temp files were swept (under the lock: another process's temp is only ever in flight under it). */
  private swept = false;
  /** The file's stamp when `entries` were read from it or written to it. */
  private readStamp: string | undefined;
  /** The text `entries` were parsed from or written as. */
  private entriesText: string | undefined;

  constructor(
    readonly dir: string,
    private readonly opts: IndexStoreOptions,
  ) {
    this.file = join(dir, INDEX_FILE);
  }

  /** A snapshot of all entries (copies). */
  all(): Promise<SessionEntry[]> {
    return this.mutex.run('index', async () => [...(await this.read()).values()].map(copyEntry));
  }

  get(sessionKey: string): Promise<SessionEntry | undefined> {
    return this.mutex.run('index', async () => {
      const e = (await this.read()).get(sessionKey);
      return e && copyEntry(e);
    });
  }

  /**
   * Runs `fn` on a private copy of the entries; when it returns, the copy is written atomically and becomes the
   * current state. If `fn` throws or the write fails, nothing changes. A caller that changed nothing calls
   * `skipWrite()` to avoid a pointless write.
   */
  mutate<T>(fn: (entries: Entries, skipWrite: () => void) => T | Promise<T>): Promise<T> {
    return this.mutex.run('index', () =>
      this.locked(async () => {
        // Another process may have written since: start from what is on disk (the same text: the same entries).
        const previous = this.entries;
        this.entries = undefined;
        const current = await this.load(previous);
        const draft: Entries = new Map([...current].map(([k, e]) => [k, copyEntry(e)]));
        let skip = false;
        const result = await fn(draft, () => {
          skip = true;
        });
        if (skip) return result;
        await this.write(draft);
        this.entries = draft;
        return result;
      }),
    );
  }

  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    await mkdir(this.dir, { recursive: true });
    return withFileLock(`${this.file}.lock`, fn);
  }

  /**
   * The index as on disk now; a missing or unreadable index is recovered under the lock. A readable one needs no
   * lock (a rename is atomic), so a process that only reads — most CLI turns until their last write — never waits
   * for the lock (stale temp files are swept by the first write, which holds it).
   */
  private async read(): Promise<Entries> {
    // Unchanged since this process last read or wrote it (every write renames a new file in): no need to read and
    // check a large index again (a CLI turn asks for its session several times).
    const stamp = await this.stamp();
    if (stamp !== undefined && this.entries && stamp === this.readStamp) return this.entries;
    let text: string | undefined;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text !== undefined) {
      const parsed = this.parse(text);
      if (parsed.ok) {
        this.readStamp = stamp;
        this.entriesText = text;
        return (this.entries = parsed.entries);
      }
    }
    return this.locked(async () => {
      this.entries = undefined;
      return this.load();
    });
  }

  /** The index on disk (under the lock). `previous`: the entries this process last had, reused if the text is theirs. */
  private async load(previous?: Entries): Promise<Entries> {
    if (this.entries) return this.entries;
    await mkdir(this.dir, { recursive: true });
    if (!this.swept) await this.removeStaleTemps();
    this.swept = true;
    let text: string | undefined;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === undefined) {
      const rebuilt = await rebuildEntries(this.dir);
      const entries: Entries = new Map(rebuilt.map((e) => [e.sessionKey, e]));
      if (rebuilt.length > 0) {
        await this.write(entries);
        this.recovery = { reason: 'index missing', rebuilt: rebuilt.length };
        this.opts.onWarning?.(`${INDEX_FILE} was missing; rebuilt ${rebuilt.length} session(s) from transcripts`);
      } else {
        this.entriesText = undefined; // no file: these entries have no text
      }
      this.entries = entries;
      return entries;
    }
    if (previous && text === this.entriesText) return (this.entries = previous);
    const parsed = this.parse(text);
    if (parsed.ok) {
      this.entriesText = text;
      this.entries = parsed.entries;
      return parsed.entries;
    }
    const movedTo = `${this.file}.corrupt-${this.opts.now()}`;
    await rename(this.file, movedTo);
    const rebuilt = await rebuildEntries(this.dir);
    const entries: Entries = new Map(rebuilt.map((e) => [e.sessionKey, e]));
    await this.write(entries);
    this.recovery = { movedTo, reason: parsed.reason, rebuilt: rebuilt.length };
    this.opts.onWarning?.(
      `${INDEX_FILE} was unreadable (${parsed.reason}); moved it to ${movedTo} and rebuilt ${rebuilt.length} session(s) from transcripts`,
    );
    this.entries = entries;
    return entries;
  }

  private parse(text: string): { ok: true; entries: Entries } | { ok: false; reason: string } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      return { ok: false, reason: `invalid JSON: ${(err as Error).message.split('\n')[0]}` };
    }
    const top = indexSchema.safeParse(json);
    if (!top.success) return { ok: false, reason: 'not a session index' };
    if (top.data.version > INDEX_VERSION) {
      throw new IndexVersionError(
        `${this.file} has format version ${top.data.version}; this build reads version ${INDEX_VERSION}. Update AgentDesk.`,
      );
    }
    const entries: Entries = new Map();
    for (const [key, raw] of Object.entries(top.data.sessions)) {
      const e = entrySchema.safeParse(raw);
      if (!e.success || e.data.sessionKey !== key) return { ok: false, reason: `bad entry for session "${key}"` };
      const { model, parentSessionKey, thinking, verbose, extraSystemPrompt, historyTurns, context, usage, ...rest } = e.data;
      entries.set(key, {
        ...rest,
        ...(model !== undefined ? { model } : {}),
        ...(parentSessionKey !== undefined ? { parentSessionKey } : {}),
        ...(thinking !== undefined ? { thinking } : {}),
        ...(verbose !== undefined ? { verbose } : {}),
        ...(extraSystemPrompt !== undefined ? { extraSystemPrompt } : {}),
        ...(historyTurns !== undefined ? { historyTurns } : {}),
        ...(context !== undefined ? { context } : {}),
        usage: {
          input: usage.input,
          output: usage.output,
          cacheRead: usage.cacheRead,
          cacheWrite: usage.cacheWrite,
          total: usage.total,
          ...(usage.calls !== undefined ? { calls: usage.calls } : {}),
          ...(usage.cost !== undefined ? { cost: usage.cost } : {}),
        },
      });
    }
    return { ok: true, entries };
  }

  /** What identifies one version of the index file without reading it (undefined: no file). */
  private async stamp(): Promise<string | undefined> {
    try {
      const s = await stat(this.file);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return undefined;
    }
  }

  private async write(entries: Entries): Promise<void> {
    const body = JSON.stringify({ version: INDEX_VERSION, sessions: Object.fromEntries(entries) }, null, 2) + '\n';
    const tmp = `${this.file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(body);
      if (this.opts.fsync !== false) await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(tmp, this.file);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    this.readStamp = await this.stamp(); // the entries the caller keeps are this file's
    this.entriesText = body;
  }

  /** Temp files left by a crash between write and rename; the real index is still the previous one. */
  private async removeStaleTemps(): Promise<void> {
    const names = await readdir(this.dir);
    await Promise.all(
      names.filter((n) => n.startsWith(`${INDEX_FILE}.tmp-`)).map((n) => unlink(join(this.dir, n)).catch(() => undefined)),
    );
  }
}
