/**
 * E8: the facts a classification rests on, gathered from whatever was thrown — an SDK error (HTTP or mid-stream),
 * a connection failure, a plain text (a finish reason, a wrapped message), or a plain object (an OpenAI Responses
 * `error` event). Three kinds of evidence: the HTTP status, the provider's codes and types, and its wording.
 */

export interface Facts {
  status?: number;
  /** Provider codes and types as sent: body `code` / `type` / `error_code`, err.code, err.type, vendor numbers. */
  codes: string[];
  /** Error class names along the `cause` chain (AbortError, APIConnectionError, …). */
  names: string[];
  /** The provider's own words (the body's message), when known. */
  detail?: string;
  /** Everything wording rules may read, one piece a line: messages, body messages, codes. URLs removed. */
  text: string;
  /** The body is an HTML page (a proxy's or CDN's): only its status says anything. */
  html: boolean;
  /** Markdown headings: an explanation (e.g. a model's answer), not an error; its wording is not evidence. */
  prose: boolean;
  headers?: unknown;
  provider?: string;
  /** Message of the innermost `cause` (e.g. "other side closed" under "terminated"). */
  rootCause?: string;
}

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

const isHttpStatus = (n: number): boolean => Number.isInteger(n) && n >= 400 && n <= 599;
/** A bare code that is a word, not a sentence (`"error": "insufficient_balance"`). */
const CODE_LIKE = /^[A-Za-z][\w.-]{2,60}$/;

/** Collects codes, a numeric status and the message from an error body, however nested. */
export function digBody(body: unknown, facts: Facts, depth: number): void {
  if (depth > 4 || body === undefined || body === null) return;
  if (typeof body === 'string') {
    if (CODE_LIKE.test(body) && body.includes('_')) facts.codes.push(body);
    else facts.detail ??= body;
    return;
  }
  if (Array.isArray(body)) {
    for (const part of body.slice(0, 8)) digBody(part, facts, depth + 1);
    return;
  }
  if (!isObj(body)) return;
  for (const key of ['error_code', 'code', 'type', 'status'] as const) {
    const v = body[key];
    if (typeof v === 'number') {
      if (isHttpStatus(v)) facts.status ??= v;
      else if (key === 'code' && v >= 1000) facts.codes.push(String(v)); // vendor codes (z.ai 1311, 1113, 1305…)
    } else if (typeof v === 'string' && v !== '' && v !== 'error' && !v.startsWith('response.')) {
      if (/^\d{3}$/.test(v) && isHttpStatus(Number(v))) facts.status ??= Number(v);
      else if (CODE_LIKE.test(v) || /^\d{4}$/.test(v)) facts.codes.push(v);
    }
  }
  if (isObj(body.details)) digBody(body.details, facts, depth + 1);
  if (body.error !== undefined) digBody(body.error, facts, depth + 1);
  if (isObj(body.response)) digBody(body.response, facts, depth + 1);
  const message = str(body.message);
  if (message && depth > 0) facts.detail ??= message;
}

/** The JSON object inside a text ("429 {…}", "Codex error: {…}", "… details: {…}"), parsed; undefined if none. */
export function jsonIn(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1)) as unknown;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The HTTP status inside a text. A number is a status only where the text says so: at the start ("429 Too Many
// Requests", "Error: 401 <!doctype…"), after HTTP / status / error code, in "API error (503)", after
// "returned" / "got a" / "received a", or as "code:500". A leading 402 also needs a payment word: "402 records
// processed" is a count, not a status.

const LEADING = /^\s*(?:error:\s*)?(?:http\s*)?(\d{3})(?=$|[\s:;,.({<["]|status)(?!\s*(?:tokens|ms\b|s\b|seconds|bytes))/i;
const LABELLED = /\b(?:https?|status(?:\s*code)?|error\s*code|statuscode)\s*[:=]?\s*(\d{3})\b/i;
const PARENTHESISED = /\berror\s*\((\d{3})\)/i;
const VERB = /\b(?:returned|got an?|received an?)\s+(\d{3})(?=\s*$|\s*[.,;:)]|\s+(?:from|response|error|status|code)\b)/i;
const CODE_COLON = /\bcode\s*[:=]\s*(\d{3})\b/i;
const PAYMENT_WORD = /payment|billing|credit|balance|quota|subscription|purchase|points|insufficient/i;

export function statusFromText(text: string): number | undefined {
  const leading = LEADING.exec(text);
  if (leading) {
    const n = Number(leading[1]);
    if (isHttpStatus(n) && (n !== 402 || PAYMENT_WORD.test(text))) return n;
  }
  for (const re of [LABELLED, PARENTHESISED, VERB, CODE_COLON]) {
    const m = re.exec(text);
    const n = m ? Number(m[1]) : NaN;
    if (isHttpStatus(n)) return n;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------

const HTML = /<!doctype html|<html[\s>]/i;
const URL = /\bhttps?:\/\/\S+/gi;
const HEADING = /^#{1,6}\s/m;

export function extractFacts(err: unknown): Facts {
  const facts: Facts = { codes: [], names: [], text: '', html: false, prose: false };
  const texts: string[] = [];
  if (!isObj(err)) {
    facts.detail = err === undefined || err === null ? undefined : String(err);
    if (facts.detail) texts.push(facts.detail);
  } else {
    if (typeof err.status === 'number') facts.status = err.status;
    else if (typeof err.statusCode === 'number') facts.status = err.statusCode;
    else if (typeof err.statusCode === 'string' && /^\d{3}$/.test(err.statusCode)) facts.status = Number(err.statusCode);
    facts.headers = err.headers;
    if ('apiMessage' in err) facts.provider = 'Anthropic';
    else if ('param' in err && 'code' in err && err instanceof Error) facts.provider = 'OpenAI';
    for (let e: unknown = err, depth = 0; isObj(e) && depth < 4; e = e.cause, depth++) {
      const name = str(e.name);
      if (name) facts.names.push(name);
      const ctor = isObj(e.constructor) || typeof e.constructor === 'function' ? str((e.constructor as { name?: unknown }).name) : undefined;
      if (ctor && ctor !== 'Object' && ctor !== 'Error') facts.names.push(ctor);
      const code = str(e.code) ?? str(e.errorCode);
      if (code) facts.codes.push(code);
      if (str(e.message)) texts.push(e.message as string);
      if (depth > 0 && str(e.message)) facts.rootCause = e.message as string;
      if (depth === 0) {
        facts.detail = str(e.apiMessage);
        const type = str(e.type);
        if (type && type !== 'error' && !type.startsWith('response.')) facts.codes.push(type);
        // SDK errors: `.error` is the body (Anthropic) or the inner error (OpenAI); plain objects are bodies.
        digBody(e.error, facts, 1);
        if (isObj(e.response)) digBody(e.response, facts, 1);
        if (!(err instanceof Error)) {
          facts.detail ??= str(e.message);
          if (typeof e.code === 'number' && isHttpStatus(e.code)) facts.status ??= e.code;
        }
      }
    }
  }
  // A JSON body inside a text ("429 {…}"): its codes, status and message count like a parsed body's.
  for (const t of [...texts]) {
    const body = jsonIn(t);
    if (body !== undefined) digBody(body, facts, 1);
  }
  if (facts.detail && !texts.includes(facts.detail)) texts.unshift(facts.detail);
  if (facts.status === undefined) {
    for (const t of texts) {
      facts.status = statusFromText(t);
      if (facts.status !== undefined) break;
    }
  }
  // One piece per line: wording anchored to a whole message ("terminated") matches line by line.
  const all = [...texts, ...facts.codes].join('\n');
  facts.html = HTML.test(all);
  facts.prose = HEADING.test(all);
  facts.text = all.replace(URL, ' ');
  return facts;
}
