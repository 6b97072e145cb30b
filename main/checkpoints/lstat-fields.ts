/**
 * X2: the few `lstat` fields a snapshot's walk needs (type, mode, size, mtime, ctime, inode), for every entry of the
 * workspace — 10 000 calls for a 10 000-file folder on every later snapshot.
 *
 * Why not `fs.lstatSync` alone: on Node 20 each call builds a Stats object with four Date objects, about a quarter
 * of a later snapshot's walk (≈ 10 ms of 40 for 10 000 files here). Node's own fs binding returns the same numbers
 * in an array it reuses, so where that binding is there and gives exactly what `lstatSync` gives on a probe (same
 * layout, same mtimeMs/ctimeMs to the last bit, errors with the same codes), it is used; anywhere else (another
 * Node or Electron release, a runtime without `process.binding`, `--pending-deprecation` — which would print
 * DEP0111) every call goes to `lstatSync`. The probe runs once per thread.
 */
import { lstatSync, type Stats } from 'node:fs';

export interface LstatFields {
  /** st_mode (type and permission bits). */
  mode: number;
  size: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

const S_IFMT = 0o170000;
export const isDir = (mode: number): boolean => (mode & S_IFMT) === 0o040000;
export const isFile = (mode: number): boolean => (mode & S_IFMT) === 0o100000;
export const isLink = (mode: number): boolean => (mode & S_IFMT) === 0o120000;

type RawLstat = (path: string, bigint: false, req: undefined, throwIfNoEntry: true) => Float64Array;

/** Milliseconds from a timespec, computed the way Node computes Stats' *Ms fields. */
const ms = (sec: number, nsec: number) => sec * 1e3 + nsec / 1e6;

function fromRaw(a: Float64Array): LstatFields {
  return { mode: a[1]!, size: a[8]!, ino: a[7]!, mtimeMs: ms(a[12]!, a[13]!), ctimeMs: ms(a[14]!, a[15]!) };
}

function fromStats(st: Stats): LstatFields {
  return { mode: st.mode, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
}

const same = (a: LstatFields, b: LstatFields) => a.mode === b.mode && a.size === b.size && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

const pendingDeprecation = () =>
  process.execArgv.some((a) => a === '--pending-deprecation') || /(^|\s)--pending-deprecation(\s|$)/.test(process.env.NODE_OPTIONS ?? '') || process.env.NODE_PENDING_DEPRECATION === '1';

/** The binding's lstat when it behaves exactly like lstatSync on `probes` (undefined: use lstatSync). Exported for tests. */
export function probeRawLstat(probes: readonly string[], binding?: unknown): RawLstat | undefined {
  if (process.platform === 'win32') return undefined; // paths would need Node's own namespacing there
  try {
    const get = (process as unknown as { binding?: (name: string) => unknown }).binding;
    const b = (binding ?? (typeof get === 'function' && !pendingDeprecation() ? get.call(process, 'fs') : undefined)) as { lstat?: unknown } | undefined;
    if (!b || typeof b.lstat !== 'function') return undefined;
    const raw = (b.lstat as RawLstat).bind(b);
    for (const p of probes) {
      const a = raw(p, false, undefined, true);
      if (!(a instanceof Float64Array) || a.length < 18 || !same(fromRaw(a), fromStats(lstatSync(p)))) return undefined;
    }
    // A path that names nothing must throw as lstatSync does, with its code (the walk tells "gone" and "name too
    // long" apart by it): a name under a regular file is ENOTDIR.
    try {
      raw(`${process.execPath}/agentdesk-no-such-entry`, false, undefined, true);
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') return undefined;
    }
    return raw;
  } catch {
    return undefined;
  }
}

let raw: RawLstat | undefined | null = null;

/** lstat of `path` (no link followed), the fields a snapshot compares. Throws like `fs.lstatSync` (err.code). */
export function lstatFields(path: string): LstatFields {
  if (raw === null) raw = probeRawLstat(['/', process.execPath]);
  return raw ? fromRaw(raw(path, false, undefined, true)) : fromStats(lstatSync(path));
}

/**
 * `lstatFields` written into `out` (returned): the walk's one object for all its calls, not one per entry. `out` is
 * left as it was when this throws.
 */
export function lstatFieldsInto(path: string, out: LstatFields): LstatFields {
  if (raw === null) raw = probeRawLstat(['/', process.execPath]);
  if (!raw) return Object.assign(out, fromStats(lstatSync(path)));
  const a = raw(path, false, undefined, true);
  out.mode = a[1]!;
  out.size = a[8]!;
  out.ino = a[7]!;
  out.mtimeMs = ms(a[12]!, a[13]!);
  out.ctimeMs = ms(a[14]!, a[15]!);
  return out;
}
