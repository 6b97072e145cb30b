import type { Turn } from '../store/types.js';

/** What find-in-chat searches in a turn: the person's text, the reply's text and thinking, tool names and results. */
export function turnText(t: Turn): string {
  if (t.kind === 'user') return t.text;
  let s = '';
  for (const p of t.parts) {
    if (p.kind === 'text' || p.kind === 'thinking') s += `${p.text}\n`;
    else if (p.kind === 'tool') s += `${p.tool.name} ${p.tool.result ?? ''}\n`;
  }
  return s;
}

/** Indexes of the turns that contain `query` (case-insensitive), first to last. */
export function findTurns(turns: readonly Turn[], query: string): number[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const out: number[] = [];
  turns.forEach((t, i) => {
    if (turnText(t).toLowerCase().includes(q)) out.push(i);
  });
  return out;
}
