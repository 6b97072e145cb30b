/** Display helpers of the app frame (sidebar, settings). */
import type { SessionSummary } from '../../../../preload/contract.js';

export const sessionTitle = (s: Pick<SessionSummary, 'title'>): string => s.title || 'New chat';

export function relativeTime(ts: number, now: number = Date.now()): string {
  const s = Math.max(0, Math.round((now - ts) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86_400) return `${Math.floor(s / 86_400)} d ago`;
  return new Date(ts).toLocaleDateString();
}

export function tokenCount(n: number): string {
  if (n < 1000) return `${n} tok`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k tok`;
  return `${(n / 1_000_000).toFixed(1)}M tok`;
}

/** A model as the chat list shows it: the model's own name (the provider goes in the tooltip); "Demo" for the demo. */
export function modelLabel(ref: string): string {
  if (ref === 'demo/agent') return 'Demo';
  const slash = ref.indexOf('/');
  return slash > 0 && slash < ref.length - 1 ? ref.slice(slash + 1) : ref;
}

/** Last path segment of a folder (either separator). */
export const folderName = (path: string): string => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;
