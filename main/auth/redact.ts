/**
 * Keys never echoed (X5): providers and proxies quote a rejected key back ("Incorrect API key provided: …"), whole
 * or cut, and for key formats without a recognisable prefix no pattern can find it. So every key this process has
 * loaded is known here, and error text is cleaned before it is stored (auth-state `lastError`, transcripts),
 * emitted (`retry` events, `auth.status`) or printed: every occurrence of a key, or of any 8-character piece of
 * one, becomes "[redacted]". Errors are cleaned in place at the one place provider failures enter the engine
 * (providers/stream-runner.ts) — message, stack and the parsed body the SDKs keep — so every copy made later is
 * clean; the stores and listings clean again on their way out.
 */

/** A key shorter than this is not a secret worth hunting (the demo's "demo", a local server's "no-key"). */
export const MIN_KEY_CHARS = 8;
/** Every window of this many characters of a key is searched for. */
export const PIECE_CHARS = 8;
export const REDACTED = '[redacted]';
const MAX_DEPTH = 4;

export class SecretRedactor {
  private readonly keys = new Set<string>();
  private readonly pieces = new Set<string>();

  /** Learns a key (ignored when too short; cheap when already known). */
  add(key: string | undefined | null): void {
    const k = key?.trim();
    if (!k || k.length < MIN_KEY_CHARS || this.keys.has(k)) return;
    this.keys.add(k);
    for (let i = 0; i + PIECE_CHARS <= k.length; i++) this.pieces.add(k.slice(i, i + PIECE_CHARS));
  }

  get size(): number {
    return this.keys.size;
  }

  /** `text` with every run of characters covered by a known key piece replaced by "[redacted]". */
  redact(text: string): string {
    if (this.pieces.size === 0 || text.length < PIECE_CHARS) return text;
    let out = '';
    let copied = 0;
    let coverEnd = -1;
    let runStart = -1;
    for (let i = 0; i + PIECE_CHARS <= text.length; i++) {
      if (!this.pieces.has(text.slice(i, i + PIECE_CHARS))) continue;
      if (i > coverEnd) {
        if (runStart >= 0) {
          out += text.slice(copied, runStart) + REDACTED;
          copied = coverEnd;
        }
        runStart = i;
      }
      coverEnd = i + PIECE_CHARS;
    }
    if (runStart < 0) return text;
    return out + text.slice(copied, runStart) + REDACTED + text.slice(coverEnd);
  }

  /**
   * Cleans an error in place — message, stack, cause, and every string in its own properties (the SDKs keep the
   * parsed error body on `error`) — and returns it. Non-objects come back cleaned as far as they can be.
   */
  redactError<T>(err: T): T {
    if (this.pieces.size === 0) return err;
    if (typeof err === 'string') return this.redact(err) as T;
    this.scrub(err, 0, new Set());
    return err;
  }

  private scrub(value: unknown, depth: number, seen: Set<object>): void {
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > MAX_DEPTH) return;
    seen.add(value);
    const target = value as Record<string, unknown>;
    const names = new Set<string>(Object.keys(target));
    if (value instanceof Error) for (const n of ['message', 'stack', 'cause']) names.add(n);
    for (const name of names) {
      let v: unknown;
      try {
        v = target[name];
      } catch {
        continue;
      }
      if (typeof v === 'string') {
        const clean = this.redact(v);
        if (clean !== v) {
          try {
            target[name] = clean;
          } catch {
            // a read-only property: left as it is (the stores clean again on their way out)
          }
        }
      } else if (typeof v === 'object' && v !== null && !(v instanceof Map) && !ArrayBuffer.isView(v)) {
        this.scrub(v, depth + 1, seen);
      }
    }
  }
}

/** The keys this process has loaded (auth pool, keychain, environment scrub, key tests, model listing). */
export const secretRedactor = new SecretRedactor();

/** `text` with every known key (plus `extra` keys) and its pieces redacted. */
export function redactSecrets(text: string, extra: readonly (string | undefined)[] = []): string {
  for (const k of extra) secretRedactor.add(k);
  return secretRedactor.redact(text);
}
