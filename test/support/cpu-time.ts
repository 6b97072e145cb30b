/**
 * The CPU time (user + system, ms) this process spends running `fn`. A bound on a pure function's cost (is it
 * linear?) is checked against this, not the wall clock: on a loaded 2-core machine the wall clock also counts the
 * time the other processes had the cores, and a 0.2 s job was seen to take 2.3 s.
 */
export function cpuMs<T>(fn: () => T): { ms: number; value: T } {
  const since = process.cpuUsage();
  const value = fn();
  const d = process.cpuUsage(since);
  return { ms: (d.user + d.system) / 1000, value };
}
