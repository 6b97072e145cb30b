/**
 * The person's explicit approvals of protected paths (X5), handed from the approval gate to the file tool that
 * then writes: one grant per approved path, used once, valid for a short while. The tool checks the path it is
 * about to write — the real one, after the confined walk resolved symlinks — so a grant for one path never
 * covers another, even if a symlink is swapped between the approval and the write.
 */
export const GRANT_TTL_MS = 5 * 60_000;

export class ProtectedGrants {
  private readonly grants = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Approve writing each of `rels` (workspace-relative real paths) once. */
  grant(workspace: string, rels: readonly string[]): void {
    const until = this.now() + GRANT_TTL_MS;
    for (const rel of rels) {
      const key = `${workspace}\0${rel}`;
      this.grants.set(key, [...(this.grants.get(key) ?? []), until]);
    }
  }

  /** Whether a live grant exists for the path (does not use it). */
  has(workspace: string, rel: string): boolean {
    const now = this.now();
    return (this.grants.get(`${workspace}\0${rel}`) ?? []).some((t) => t > now);
  }

  /** Uses up one grant for the path; false when there is none (or it expired). */
  take(workspace: string, rel: string): boolean {
    const key = `${workspace}\0${rel}`;
    const now = this.now();
    const live = (this.grants.get(key) ?? []).filter((t) => t > now);
    const ok = live.length > 0;
    if (ok) live.shift();
    if (live.length > 0) this.grants.set(key, live);
    else this.grants.delete(key);
    return ok;
  }
}
