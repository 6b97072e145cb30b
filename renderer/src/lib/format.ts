/** Small display helpers. */

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export function argsPreview(args: Record<string, unknown>, max = 60): string {
  const entries = Object.entries(args);
  if (entries.length === 0) return '';
  const text = entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function modelLabel(model: { ref: string; demo: boolean; hasKey: boolean }): string {
  if (model.demo) return 'Demo (offline)';
  return model.hasKey ? model.ref : `${model.ref} (no key)`;
}
