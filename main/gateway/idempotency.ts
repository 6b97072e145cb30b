/**
 * E1 idempotency keys: a key seen before returns the same accepted run and starts nothing. The entry is recorded
 * synchronously, before the first await, as a promise — so two concurrent calls with one key share one run (a
 * check-then-set around the session lookup let both start). Memory is bounded: at most `max` keys (least recently
 * used evicted first), each forgotten `ttlMs` after it was last seen. A call that failed forgets its key, so a
 * retry can succeed.
 */
export const IDEMPOTENCY_MAX_KEYS = 1000;
export const IDEMPOTENCY_TTL_MS = 10 * 60_000;

export class IdempotencyCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; seenAt: number }>();

  constructor(
    private readonly now: () => number,
    private readonly max = IDEMPOTENCY_MAX_KEYS,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
  ) {}

  /** The promise for `key`: the remembered one, or `start()`'s (remembered until it fails). */
  run(key: string, start: () => Promise<T>): Promise<T> {
    const t = this.now();
    const hit = this.entries.get(key);
    if (hit && t - hit.seenAt <= this.ttlMs) {
      this.entries.delete(key); // re-insert: most recently used goes last
      this.entries.set(key, { value: hit.value, seenAt: t });
      return hit.value;
    }
    const value = start();
    this.entries.delete(key);
    this.entries.set(key, { value, seenAt: t });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    this.evict(t);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(t: number): void {
    for (const [key, e] of this.entries) {
      if (this.entries.size > this.max || t - e.seenAt > this.ttlMs) this.entries.delete(key);
      else break; // oldest first: the rest are newer
    }
  }
}
