/** Small display helpers. */

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** 950 → "950", 12 345 → "12.3k", 1 200 000 → "1.2M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function argsPreview(args: Record<string, unknown>, max = 60): string {
  const entries = Object.entries(args);
  if (entries.length === 0) return '';
  const text = entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
  return oneLine(text, max);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The argument that says what a tool call does, per tool; other tools get `key: value, …`. */
const MAIN_ARG: Record<string, string[]> = {
  exec: ['command', 'cmd'],
  read: ['path'],
  write: ['path'],
  edit: ['path', 'file'],
  list: ['path'],
  apply_patch: ['path'],
  grep: ['pattern'],
  glob: ['pattern'],
};

export function toolSummary(name: string, args: Record<string, unknown>, max = 80): string {
  for (const key of MAIN_ARG[name] ?? []) {
    const v = args[key];
    if (typeof v === 'string' && v !== '') return oneLine(v, max);
  }
  if (name === 'apply_patch') {
    const patch = Object.values(args).find((v): v is string => typeof v === 'string') ?? '';
    const files = [...patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)].map((m) => m[1]);
    if (files.length > 0) return oneLine(files.join(', '), max);
  }
  return argsPreview(args, max);
}

export function modelLabel(model: { ref: string; demo: boolean; hasKey: boolean }): string {
  if (model.demo) return 'Demo (offline)';
  return model.hasKey ? model.ref : `${model.ref} (no key)`;
}

/** "in 2 min", "in 40 s" — for cooldown ends. */
export function formatUntil(until: number, now: number): string {
  const s = Math.max(0, Math.round((until - now) / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.round(m / 60)} h`;
}
