/**
 * Parsing of streamed tool-call argument JSON, with a small repair for the damage models actually produce (text
 * around the object, trailing commas, a missing closing brace). Never throws: an unrepairable string yields `{}`
 * plus a `parseError`. Arguments that were cut off — the text ends inside a string, after a `:` or `,`, or in the
 * middle of a value — are never "repaired" into a call that runs (issue 21: a cut-off `write` wrote a truncated
 * file): they carry a `parseError` that says so, and `cutOff`; their best-effort `arguments` are for display only.
 * A `parseError` is always one clause the attempt puts after "The call to NAME was not run:".
 */

export interface ParsedToolArgs {
  arguments: Record<string, unknown>;
  /** Set when the raw text could not be parsed even after repair. */
  parseError?: string;
  /** True when the text parsed only after repair. */
  repaired?: boolean;
  /** The text stopped inside the object before its end: the call must not run (`parseError` says why). */
  cutOff?: boolean;
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
    return { arguments: {}, parseError: `its arguments are not a JSON object (${truncate(raw)}). Call the tool again with a JSON object` };
  }
  const fixed = repairJsonEnd(raw);
  if (fixed !== undefined) {
    const again = tryParse(fixed.text);
    const obj = again.ok ? asObject(again.value) : undefined;
    if (obj && fixed.cut) return { arguments: obj, repaired: true, cutOff: true, parseError: cutOffError(raw, false) };
    if (obj) return { arguments: obj, repaired: true };
  }
  return {
    arguments: {},
    parseError: `its arguments are not valid JSON (${direct.error}): ${truncate(raw)}. Call the tool again with valid JSON`,
  };
}

/**
 * Why a cut-off call did not run. `byLimit`: the provider said the reply reached its output token limit
 * (finish_reason "length") while the arguments were being written.
 */
export function cutOffError(raw: string, byLimit: boolean): string {
  return byLimit
    ? `the reply reached the output token limit while its arguments were being written, so they are incomplete (${truncate(raw, 120)}). Call the tool again with less in one call: for a long file, write a first part, then add the rest with edit`
    : `its arguments were cut off before they ended (${truncate(raw, 120)}). Call the tool again with the complete arguments`;
}

const truncate = (s: string, max = 200): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/**
 * Best-effort repair of one JSON object: drops text before the first `{` and after the object closes, drops
 * trailing commas; when the text ends inside the object, closes an unterminated string, completes a dangling
 * `"key":` with null and closes open brackets. `cut` is true when the end came anywhere but right after a complete
 * string, object or array (only closing brackets missing — a model's slip — is not a cut). Returns undefined when
 * there is no object to repair.
 */
export function repairJsonEnd(raw: string): { text: string; cut: boolean } | undefined {
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
      if (stack.length === 0) return { text: out, cut: false }; // anything after the object is trailing garbage
      continue;
    }
    out += ch;
  }
  // The input ended inside the object: close what is open.
  const last = out.trimEnd().slice(-1);
  const cut = inString || !(last === '"' || last === '}' || last === ']');
  if (inString) {
    if (escaped) out = out.slice(0, -1);
    out += '"';
  }
  out = dropTrailingComma(out);
  if (/:\s*$/.test(out)) out += 'null';
  while (stack.length > 0) out += stack.pop();
  return { text: out, cut };
}

function dropTrailingComma(s: string): string {
  return s.replace(/,\s*$/, '');
}
