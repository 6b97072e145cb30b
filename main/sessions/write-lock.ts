/**
 * E13: a keyed mutex. `run(key, fn)` starts `fn` only after every earlier `fn` of the same key has settled, so
 * all writes to one transcript are strictly serialised. A failing `fn` rejects its own promise but never breaks
 * the chain for the callers queued behind it. Different keys never wait for each other.
 *
 * Not re-entrant: calling `run(k, …)` from inside a `run(k, …)` deadlocks. Callers that need several writes in one
 * critical section take the lock once (`SessionStore.withWriteLock`) and write through the handle it passes.
 */
export class KeyedMutex {
  /** Per key: a promise that settles (never rejects) when the last queued task has finished. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const result = prev.then(() => fn());
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once its queue has drained, so the map does not grow with every session ever written.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Number of keys with running or queued tasks. */
  get size(): number {
    return this.tails.size;
  }
}
