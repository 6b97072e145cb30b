/**
 * Collects items and hands them over once per animation frame (with a timer fallback, since hidden windows
 * get no frames). Streaming deltas then cost one store update per frame, not one per token.
 */
export type Scheduler = (run: () => void) => void;

export const frameScheduler: Scheduler = (run) => {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    run();
  };
  requestAnimationFrame(once);
  setTimeout(once, 100);
};

export function createFrameBatcher<T>(flush: (items: T[]) => void, schedule: Scheduler = frameScheduler) {
  let queue: T[] = [];
  let scheduled = false;
  const run = (): void => {
    scheduled = false;
    const items = queue;
    queue = [];
    if (items.length > 0) flush(items);
  };
  return {
    push(item: T): void {
      queue.push(item);
      if (!scheduled) {
        scheduled = true;
        schedule(run);
      }
    },
    /** Delivers anything queued right now (e.g. before a request that must see the latest state). */
    flushNow: run,
  };
}
