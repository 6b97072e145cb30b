/**
 * The context meter's figure: tokens the conversation takes in the model's window. Measured from the last finished
 * run's usage (its last call's prompt plus the output since), else estimated from the text (~4 characters a token)
 * — marked as an estimate.
 */
import type { ModelInfo } from '../../../preload/contract.js';
import type { Turn } from '../store/types.js';

export interface ContextFigure {
  used: number;
  window?: number;
  estimated: boolean;
}

const CHARS_PER_TOKEN = 4;

// turns are immutable: each one's size is computed once (the meter re-reads thousands of them per frame)
const sizes = new WeakMap<Turn, number>();
function charsOf(t: Turn): number {
  let n = sizes.get(t);
  if (n === undefined) {
    n = 0;
    if (t.kind === 'user') n = t.text.length;
    else for (const p of t.parts) n += p.kind === 'text' ? p.text.length : p.kind === 'tool' ? JSON.stringify(p.tool.args).length + (p.tool.result?.length ?? 0) : 0;
    sizes.set(t, n);
  }
  return n;
}

export function contextFigure(turns: Turn[], models: ModelInfo[], selected: string | undefined): ContextFigure | undefined {
  let used: number | undefined;
  let estimated = false;
  let ref = selected;
  let measuredAt = -1;
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.kind === 'assistant' && t.usage && t.usage.input + t.usage.cacheRead + t.usage.cacheWrite > 0) {
      used = t.usage.input + t.usage.cacheRead + t.usage.cacheWrite + t.usage.output;
      ref = t.answeredBy ?? t.model ?? selected;
      measuredAt = i;
      break;
    }
  }
  // compaction after the measurement: its "after" figure is the better one
  for (let i = Math.max(0, measuredAt); i < turns.length; i++) {
    const t = turns[i]!;
    if (t.kind !== 'assistant') continue;
    for (const p of t.parts) if (p.kind === 'compaction' && p.tokensAfter !== undefined) used = p.tokensAfter;
  }
  if (used === undefined) {
    let chars = 0;
    for (const t of turns) chars += charsOf(t);
    if (chars === 0) return undefined;
    used = Math.round(chars / CHARS_PER_TOKEN);
    estimated = true;
  }
  const window = models.find((m) => m.ref === ref)?.contextWindow ?? models.find((m) => m.ref === selected)?.contextWindow;
  return { used, ...(window ? { window } : {}), estimated };
}
