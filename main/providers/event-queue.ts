/**
 * Events waiting to be handed out one `next()` at a time, for the plain async iterators of the streaming path (a
 * provider converter or a stream layer may turn one input into several events). Producers append to `items`.
 */
export class EventQueue<T> {
  readonly items: T[] = [];
  private head = 0;

  get pending(): boolean {
    return this.head < this.items.length;
  }

  /** The next event as an iterator result (only when `pending`). */
  take(): IteratorResult<T, undefined> {
    const value = this.items[this.head++]!;
    if (this.head === this.items.length) this.clear();
    return { done: false, value };
  }

  clear(): void {
    this.items.length = 0;
    this.head = 0;
  }
}
