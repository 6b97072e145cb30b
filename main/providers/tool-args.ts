/**
 * Parsing of streamed tool-call argument JSON, with a small repair for the damage models and truncated streams
 * actually produce. Never throws: an unrepairable string yields `{}` plus a `parseError`.
 */

export interface ParsedToolArgs {
  arguments: Record<string, unknown>;
  /** Set when the raw text could not be parsed even after repair. */
  parseError?: string;
  /** True when the text parsed only after repair. */
  repaired?: boolean;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Unwraps a double-encoded object (`"{\"a\":1}"`), which some models send. */
function asObject(value: unknown): Record<string, unknown> | undefined {
  if (isPlainObject(value)) return value;
  if (typeof value === 'string') {
    const inner = tryParse(value);
    if (inner.ok && isPlainObject(inner.value)) return inner.value;
  }
  return undefined;
}

export function parseToolArgs(raw: string): ParsedToolArgs {
  if (raw.trim() === '') return { arguments: {} };
  const direct = tryParse(raw);
  if (direct.ok) {
    const obj = asObject(direct.value);
    if (obj) return { arguments: obj };
    return { arguments: {}, parseError: `Tool arguments are not a JSON object: ${truncate(raw)}` };
  }
  const fixed = repairJson(raw);
  if (fixed !== undefined) {
    const again = tryParse(fixed);
    if (again.ok) {
      const obj = asObject(again.value);
      if (obj) return { arguments: obj, repaired: true };
    }
  }
  return { arguments: {}, parseError: `Invalid tool arguments JSON (${direct.error}): ${truncate(raw)}` };
}

const truncate = (s: string, max = 200): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/**
 * Best-effort repair of one JSON object: drops text before the first `{` and after the object closes, closes an
 * unterminated string, completes a dangling `"key":` with null, drops trailing commas, closes open brackets.
 * Returns undefined when there is no object to repair.
 */
export function repairJson(raw: string): string | undefined {
  const start = raw.indexOf('{');
  if (start < 0) return undefined;
  const text = raw.slice(start);
  const stack: string[] = [];
  let out = '';
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    if (ch === '{' || ch === '[') {
      stack.push(ch === '{' ? '}' : ']');
      out += ch;
      continue;
    }
    if (ch === '}' || ch === ']') {
      if (stack.length === 0 || stack[stack.length - 1] !== ch) return undefined; // mismatched: give up
      out = dropTrailingComma(out) + ch;
      stack.pop();
      if (stack.length === 0) return out; // anything after the object is trailing garbage
      continue;
    }
    out += ch;
  }
  // The input ended inside the object: close what is open.
  if (inString) {
    if (escaped) out = out.slice(0, -1);
    out += '"';
  }
  out = dropTrailingComma(out);
  if (/:\s*$/.test(out)) out += 'null';
  while (stack.length > 0) out += stack.pop();
  return out;
}

function dropTrailingComma(s: string): string {
  return s.replace(/,\s*$/, '');
}
