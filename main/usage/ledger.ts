/**
 * X4: the cost ledger — one line per model call, every call the engine bills (each call of the tool loop, failed ones
 * that reported tokens, compaction summaries, `/compact`, silent NO_REPLY turns: the engine's `usage` events, E17), in
 * `<home>/usage/ledger.jsonl` — and the key tests of Settings (kind `key-test`, in no chat). The cost is the one
 * computed when the call was made (at the model entry's price then).
 *
 * Crash-safe: append-only; each line is written with one `write` on an O_APPEND descriptor; a torn last line (a
 * crash mid-write) is skipped when read and cut off before the next append, so nothing complete is ever lost.
 * Several processes (the app and CLI runs) append to the same file; each reads what the others added (by offset)
 * before it answers a total, so a budget counts every process's spending.
 */
import { mkdir, open, readFile, stat, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';

export const LEDGER_VERSION = 1;

export interface LedgerEntry {
  v: number;
  /** When the call ended (ms since the epoch). */
  ts: number;
  sessionKey: string;
  /** The session's id then (a reset chat keeps its key but gets a new id); absent when unknown. */
  sessionId?: string;
  runId: string;
  kind: string;
  provider: string;
  model: string;
  profileId: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** USD; null when the model has no price (tokens are still counted). */
  cost: number | null;
}

const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** A parsed line, or undefined for anything that is not a complete, valid entry (skipped, never fatal). */
export function parseEntry(line: string): LedgerEntry | undefined {
  if (line.trim() === '') return undefined;
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!e || typeof e !== 'object' || !num(e.ts) || typeof e.sessionKey !== 'string' || typeof e.provider !== 'string' || typeof e.model !== 'string') return undefined;
  if (![e.input, e.output, e.cacheRead, e.cacheWrite].every(num) || !(e.cost === null || num(e.cost))) return undefined;
  return e as unknown as LedgerEntry;
}

export class Ledger {
  #entries: LedgerEntry[] = [];
  /** Bytes of the file read so far (complete lines only). */
  #offset = 0;
  #loaded: Promise<void> | undefined;
  #writes: Promise<void> = Promise.resolve();
  #listeners = new Set<(e: LedgerEntry) => void>();

  constructor(
    readonly file: string,
    private readonly opts: { fsync?: boolean; onWarning?: (message: string) => void } = {},
  ) {}

  /** Every entry (this process's and, once `refresh` ran, other processes'), oldest first. */
  get entries(): readonly LedgerEntry[] {
    return this.#entries;
  }

  /** Reads what the file holds beyond what was read (other processes' calls). */
  refresh(): Promise<void> {
    const run = (this.#loaded ?? Promise.resolve()).then(() => this.#readNew());
    this.#loaded = run.catch(() => undefined);
    return run;
  }

  async #readNew(): Promise<void> {
    const size = await stat(this.file).then((s) => s.size, () => 0);
    if (size <= this.#offset) return;
    const handle = await open(this.file, 'r');
    try {
      const buf = Buffer.alloc(size - this.#offset);
      const { bytesRead } = await handle.read(buf, 0, buf.length, this.#offset);
      const text = buf.subarray(0, bytesRead);
      const end = text.lastIndexOf(0x0a);
      if (end < 0) return; // only a partial line so far
      for (const line of text.subarray(0, end).toString('utf8').split('\n')) {
        const e = parseEntry(line);
        if (e && !this.#mine.has(keyOf(e))) this.#add(e);
      }
      this.#offset += end + 1;
    } finally {
      await handle.close();
    }
  }

  /** Keys of the entries this process wrote (so reading them back from the file does not count them twice). */
  #mine = new Set<string>();

  #add(e: LedgerEntry): void {
    this.#entries.push(e);
    for (const l of this.#listeners) l(e);
  }

  /** Called for every entry as it is counted (this process's at once, others' when read). */
  onEntry(listener: (e: LedgerEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Records one call: counted at once (a budget check right after sees it), written in order behind earlier writes.
   * The promise settles when the line is on disk.
   */
  record(e: Omit<LedgerEntry, 'v'>): Promise<void> {
    const entry: LedgerEntry = { v: LEDGER_VERSION, ...e };
    this.#mine.add(keyOf(entry));
    this.#add(entry);
    const write = this.#writes.then(() => this.#append(entry));
    this.#writes = write.catch((err: Error) => this.opts.onWarning?.(`Could not write the cost ledger: ${err.message}`));
    return write;
  }

  async #append(entry: LedgerEntry): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    await this.#cutTornTail();
    const handle = await open(this.file, 'a', 0o600);
    try {
      await handle.write(`${JSON.stringify(entry)}\n`);
      if (this.opts.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** A last line without its newline (a crash mid-write) is cut off, so the next line starts clean. */
  async #cutTornTail(): Promise<void> {
    const size = await stat(this.file).then((s) => s.size, () => 0);
    if (size === 0) return;
    const handle = await open(this.file, 'r');
    let keep = size;
    try {
      const tail = Buffer.alloc(Math.min(size, 64 * 1024));
      await handle.read(tail, 0, tail.length, size - tail.length);
      if (tail[tail.length - 1] === 0x0a) return;
      const nl = tail.lastIndexOf(0x0a);
      keep = nl < 0 ? (size > tail.length ? size : 0) : size - tail.length + nl + 1;
    } finally {
      await handle.close();
    }
    if (keep < size) {
      this.opts.onWarning?.(`Dropped a torn last line (${size - keep} bytes) from ${this.file}`);
      await truncate(this.file, keep);
    }
  }

  /** Waits for every write this process started. */
  flush(): Promise<void> {
    return this.#writes;
  }
}

const keyOf = (e: LedgerEntry): string => `${e.runId}|${e.ts}|${e.kind}|${e.input}|${e.output}|${e.cacheRead}|${e.cacheWrite}`;

/** Reads a whole ledger file (for `agentdesk usage`): complete, valid lines only. */
export async function readLedger(file: string): Promise<LedgerEntry[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const end = text.lastIndexOf('\n');
  return text
    .slice(0, end + 1)
    .split('\n')
    .flatMap((l) => parseEntry(l) ?? []);
}
