/**
 * X3 `@`-completion ranking (pure): workspace paths ("a/b.ts", folders "a/") against what the person typed after
 * `@`. Every character of the query must appear in order (case-insensitive); a match in the file name beats one in
 * the folders, a prefix beats a later start, consecutive characters beat scattered ones, shorter paths win ties.
 */
import type { PathCompletion } from '../../../preload/contract.js';

function score(path: string, query: string): number | undefined {
  if (query === '') return 1000 - path.split('/').length * 10 - path.length / 100;
  const p = path.toLowerCase();
  const q = query.toLowerCase();
  const trimmed = p.endsWith('/') ? p.slice(0, -1) : p;
  const base = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  if (p.startsWith(q)) return 900 - p.length / 100;
  if (base.startsWith(q)) return 800 - p.length / 100;
  const at = p.indexOf(q);
  if (at >= 0) return 600 - at - p.length / 100;
  // In-order (fuzzy) match: each query character after the previous one; gaps cost.
  let i = 0;
  let gaps = 0;
  let last = -1;
  for (const ch of q) {
    const found = p.indexOf(ch, last + 1);
    if (found < 0) return undefined;
    if (last >= 0 && found > last + 1) gaps++;
    last = found;
    i++;
  }
  return 300 - gaps * 10 - p.length / 100;
}

export function rankCompletions(paths: readonly string[], query: string, limit: number): PathCompletion[] {
  const q = query.trim().replace(/^\.\//, '');
  const scored: Array<{ path: string; s: number }> = [];
  for (const path of paths) {
    const s = score(path, q);
    if (s !== undefined) scored.push({ path, s });
  }
  scored.sort((a, b) => b.s - a.s || a.path.localeCompare(b.path));
  return scored.slice(0, limit).map(({ path }) => ({ path, kind: path.endsWith('/') ? 'dir' : 'file' }));
}
