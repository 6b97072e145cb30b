/**
 * Keys never echoed (X5): providers and proxies quote a rejected key back ("Incorrect API key provided: …"), whole
 * or cut, and for key formats without a recognisable prefix no pattern can find it. So every key this process has
 * loaded is known here, and error text is cleaned before it is stored (auth-state `lastError`, transcripts),
 * emitted (`retry` events, `auth.status`) or printed: every occurrence of a key, or of any 8-character piece of
 * one, becomes "[redacted]". Pieces that read like a word (`subagent`, `test-key`, `sk-ant-a`: letters of one
 * case and separators) are left out — they are not what makes a key secret, and cutting them would mangle ordinary
 * messages; in a random key such a piece is rare (under 0.1 % for base62), and its neighbours still cover it. Errors are cleaned in place at the one place provider failures enter the engine
 * (providers/stream-runner.ts) — message, stack and the parsed body the SDKs keep — so every copy made later is
 * clean; the stores and listings clean again on their way out.
 */

/** A key shorter than this is not a secret worth hunting (the demo's "demo", a local server's "no-key"). */
export const MIN_KEY_CHARS = 8;
/** Every window of this many characters of a key is searched for. */
export const PIECE_CHARS = 8;
export const REDACTED = '[redacted]';
const MAX_DEPTH = 4;
/** A piece that reads like a word or an identifier, not like key material. */
const WORDLIKE = /^(?:[a-z._-]+|[A-Z._-]+|[A-Z][a-z._-]+)$/;

export class SecretRedactor {
  private readonly keys = new Set<string>();
  private readonly pieces = new Set<string>();

  /** Learns a key (ignored when too short; cheap when already known). */
  add(key: string | undefined | null): void {
    const k = key?.trim();
    if (!k || k.length < MIN_KEY_CHARS || this.keys.has(k)) return;
    this.keys.add(k);
    for (let i = 0; i + PIECE_CHARS <= k.length; i++) {
      const piece = k.slice(i, i + PIECE_CHARS);
      if (!WORDLIKE.test(piece)) this.pieces.add(piece);
    }
  }

  get size(): number {
    return this.keys.size;
  }

  /** `text` with every run of characters covered by a known key, or a piece of one, replaced by "[redacted]". */
  redact(text: string): string {
    if (this.keys.size === 0 || text.length < MIN_KEY_CHARS) return text;
    let covered: Uint8Array | undefined;
    const cover = (from: number, to: number): void => {
      covered ??= new Uint8Array(text.length);
      covered.fill(1, from, to);
    };
    for (const key of this.keys) {
      for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + key.length)) cover(at, at + key.length);
    }
    for (let i = 0; i + PIECE_CHARS <= text.length; i++) {
      if (this.pieces.has(text.slice(i, i + PIECE_CHARS))) cover(i, i + PIECE_CHARS);
    }
    if (!covered) return text;
    let out = '';
    for (let i = 0; i < text.length; ) {
      if (!covered[i]) {
        let j = i;
        while (j < text.length && !covered[j]) j++;
        out += text.slice(i, j);
        i = j;
      } else {
        while (i < text.length && covered[i]) i++;
        out += REDACTED;
      }
    }
    return out;
  }

  /**
   * Cleans an error in place — message, stack, cause, and every string in its own properties (the SDKs keep the
   * parsed error body on `error`) — and returns it. Non-objects come back cleaned as far as they can be.
   */
  redactError<T>(err: T): T {
    if (this.keys.size === 0) return err;
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
