/**
 * E6: the auth profiles' persisted state (cooldowns, last good, last used, last error, error counts) — one JSON
 * file in the home folder shared by every process using it (the CLI and the app at once).
 *
 * Every change is read-modify-write under the shared file lock (`<file>.lock`, main/sessions/file-lock.ts: a
 * killed holder's lock is taken over at once, by one waiter at a time) and lands with an atomic
 * write (temp file + rename), so a reader never sees a half-written file. A corrupt or unreadable file costs one warning and a clean start, never a failed run.
 */
import { readFile, rename, writeFile, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { acquireFileLock } from '../sessions/file-lock.js';
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import type { ProfileState } from './cooldown.js';

export const AUTH_STATE_FILE = 'auth-state.json';
/** How long a change waits for the lock before it is applied to this process only (with a warning). */
const LOCK_WAIT_MS = 20_000;

const reasonSchema = lazy(() => z.enum([
  'rate_limit', 'overloaded', 'billing', 'auth', 'timeout', 'context_overflow', 'format', 'model_not_found',
  'server_error', 'aborted', 'unknown',
]));
const num = lazy(() => z.number().finite());
const profileSchema = lazy(() => z.object({
  cooldownUntil: num.optional(),
  reason: reasonSchema.optional(),
  errorCount: z.partialRecord(reasonSchema, z.number().int().nonnegative()).optional(),
  lastFailureAt: num.optional(),
  lastGoodAt: num.optional(),
  lastUsedAt: num.optional(),
  lastError: z.string().optional(),
  keyId: z.string().optional(),
  models: z
    .record(
      z.string(),
      z.object({ cooldownUntil: num.optional(), reason: reasonSchema.optional(), errorCount: z.number().int().nonnegative().optional(), lastFailureAt: num.optional() }),
    )
    .optional(),
}));
const fileSchema = lazy(() => z.object({ version: z.literal(1), profiles: z.record(z.string(), profileSchema) }));

export type ProfileStates = Record<string, ProfileState>;

export interface AuthStateStoreOptions {
  /** One line per problem (default: console.error). */
  warn?: (message: string) => void;
  /** A lock older than this belongs to a crashed process and is taken over (default 10 s). */
  staleMs?: number;
}

export class AuthStateStore {
  private warned = false;
  private readonly warn: (message: string) => void;
  private readonly staleMs: number;

  constructor(
    readonly file: string,
    opts: AuthStateStoreOptions = {},
  ) {
    this.warn = opts.warn ?? ((m) => console.error(`[agentdesk] ${m}`));
    this.staleMs = opts.staleMs ?? 10_000;
  }

  /** The current state (no lock: writes are atomic, so a read sees one whole version). */
  async read(): Promise<ProfileStates> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      this.warnOnce(`could not read ${this.file} (${(err as Error).message}); profile cooldowns start clean.`);
      return {};
    }
    try {
      const parsed = fileSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data.profiles as ProfileStates;
    } catch {
      /* falls through to the warning */
    }
    this.warnOnce(`${this.file} is not a valid auth state file; profile cooldowns start clean.`);
    return {};
  }

  /**
   * Changes one profile's state under the cross-process lock; returns the new state of that profile. Bookkeeping
   * never fails a run: when the lock cannot be had or the file cannot be written, one warning, and the change
   * applies to this answer only.
   */
  async update(id: string, change: (s: ProfileState | undefined) => ProfileState): Promise<ProfileState> {
    try {
      return await this.updateLocked(id, change);
    } catch (err) {
      this.warnOnce(`could not save profile state to ${this.file} (${(err as Error).message}); cooldowns are not shared this time.`);
      return change((await this.read())[id]);
    }
  }

  private async updateLocked(id: string, change: (s: ProfileState | undefined) => ProfileState): Promise<ProfileState> {
    // The shared lock: a killed holder's lock is taken over at once, by one waiter at a time (file-lock.ts). The lock is
    // held for one read and one write; a wait past LOCK_WAIT_MS becomes the warning above, never a failed run.
    const release = await acquireFileLock(`${this.file}.lock`, { stale: this.staleMs, pollMs: 20, signal: AbortSignal.timeout(LOCK_WAIT_MS) });
    try {
      const profiles = await this.read();
      const next = change(profiles[id]);
      profiles[id] = next;
      await this.writeAtomic(JSON.stringify({ version: 1, profiles }, null, 2));
      return next;
    } finally {
      await release().catch(() => undefined);
    }
  }

  private async writeAtomic(text: string): Promise<void> {
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, this.file);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(message);
  }
}
