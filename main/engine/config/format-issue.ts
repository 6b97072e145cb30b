/**
 * Turns the first zod issue of a config into one plain line:
 *   agent.maxConcurrent: expected a number, got "four"
 *   agent: unknown key "maxConcurency" (did you mean "maxConcurrent"?)
 * Unknown keys are reported before other issues (the shallowest first): a misspelt key usually causes the rest.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

export function formatValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 39)}…` : v);
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

// Minimal view of zod 4's schema definitions, enough to list the keys allowed at a path.
interface SchemaView {
  _zod: { def: { type: string; innerType?: SchemaView; shape?: Record<string, SchemaView>; element?: SchemaView; valueType?: SchemaView } };
}
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional']);

function unwrap(s: SchemaView): SchemaView {
  let cur = s;
  while (WRAPPERS.has(cur._zod.def.type) && cur._zod.def.innerType) cur = cur._zod.def.innerType;
  return cur;
}

export function allowedKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let cur: SchemaView | undefined = unwrap(schema as unknown as SchemaView);
  for (const seg of path) {
    const def: SchemaView['_zod']['def'] = cur._zod.def;
    if (def.type === 'object' && def.shape && typeof seg === 'string') cur = def.shape[seg];
    else if (def.type === 'array') cur = def.element;
    else if (def.type === 'record') cur = def.valueType;
    else cur = undefined;
    if (!cur) return undefined;
    cur = unwrap(cur);
  }
  const shape = cur._zod.def.type === 'object' ? cur._zod.def.shape : undefined;
  return shape ? Object.keys(shape) : undefined;
}

/** Optimal string alignment distance: insert, delete, substitute, swap two neighbours ("aip" → "api" = 1). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

export function suggest(key: string, allowed: readonly string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of allowed) {
    const d = k.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, k);
    if (d <= Math.max(1, Math.min(3, Math.floor(k.length / 3))) && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

function describeIssue(issue: Issue, schema: z.ZodType): string {
  const got = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      return got === undefined ? `missing (expected ${expected})` : `expected ${expected}, got ${formatValue(got)}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${formatValue(got)}`;
    case 'invalid_format':
      return issue.format === 'url' ? `expected an http:// or https:// URL, got ${formatValue(got)}` : `expected ${issue.format}, got ${formatValue(got)}`;
    case 'too_small':
      if (issue.origin === 'string') return `expected a non-empty string, got ${formatValue(got)}`;
      return `expected a number ${issue.inclusive ? 'of at least' : 'greater than'} ${String(issue.minimum)}, got ${formatValue(got)}`;
    case 'too_big':
      return `expected a number ${issue.inclusive ? 'of at most' : 'less than'} ${String(issue.maximum)}, got ${formatValue(got)}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
      const allowed = allowedKeysAt(schema, issue.path);
      const hint = allowed && issue.keys.length === 1 ? suggest(issue.keys[0]!, allowed) : undefined;
      const tail = hint ? ` (did you mean "${hint}"?)` : allowed ? ` (allowed: ${allowed.join(', ')})` : '';
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}${tail}`;
    }
    default:
      return issue.message;
  }
}

/** One line for the most useful issue: `<path>: <problem>` (or just the problem at the top level). */
export function formatIssues(issues: readonly Issue[], schema: z.ZodType): string {
  const unknown = issues.filter((i) => i.code === 'unrecognized_keys');
  // The shallowest unknown key first: a misspelt section explains the problems inside it.
  const issue = unknown.reduce<Issue | undefined>((best, i) => (!best || i.path.length < best.path.length ? i : best), undefined) ?? issues[0];
  if (!issue) return 'invalid';
  const path = formatPath(issue.path);
  const problem = describeIssue(issue, schema);
  return path ? `${path}: ${problem}` : problem;
}
