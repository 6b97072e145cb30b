/**
 * For the secrets-hygiene tests (issue 10 item 3): the fake provider's per-key scenario, and searching what the app
 * wrote or sent for API keys. A key counts as leaked in any of the forms it could travel in: whole, any
 * 8-character window of its secret part (a truncated or JSON/URL-escaped copy still holds one: the secret parts are
 * hex), base64 (all three alignments) and hex.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { trailingToolResults, type FakeTurn, type RecordedRequest } from '../fake/index.js';

/** The key a request to a fake provider carried (`x-api-key`, or `Authorization: Bearer`). */
export const requestKey = (req: RecordedRequest): string => String(req.headers['x-api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer /i, '');

/** An exec command that prints its environment three ways: `env`, its own /proc environ, its parent's. */
export const PRINT_ENV = `env; echo ---self; tr '\\0' '\\n' < /proc/self/environ; echo ---parent; tr '\\0' '\\n' < /proc/$PPID/environ; echo ---end`;

/**
 * A fake-provider scenario by key: `fault(key)` answers 401 ('auth') or 429 with retry-after 30 s ('rate_limit');
 * any other key gets a turn that runs PRINT_ENV with `exec` and, once the tool result comes back (pushed to
 * `outputs`), the text "Checked the environment."
 */
export function printEnvScenario(fault: (key: string) => 'auth' | 'rate_limit' | undefined, outputs: string[]): (req: RecordedRequest) => FakeTurn {
  return (req) => {
    const kind = fault(requestKey(req));
    if (kind === 'auth') return { fault: { kind } };
    if (kind === 'rate_limit') return { fault: { kind, retryAfterSeconds: 30 } };
    const result = trailingToolResults(req);
    if (result === null) return { text: 'Let me look at the environment.', toolCalls: [{ name: 'exec', arguments: { command: PRINT_ENV } }] };
    outputs.push(result);
    return { text: 'Checked the environment.' };
  };
}

/** One place the app wrote or sent something, and what it was. */
export interface Seen {
  where: string;
  text: string;
}

/** The forms `key` could leak in. The secret part is what follows the last "-" (e.g. "sk-ant-<secret>"). */
export function leakForms(key: string): string[] {
  const secretPart = key.slice(key.lastIndexOf('-') + 1);
  const forms = [key, Buffer.from(key).toString('hex')];
  for (let i = 0; i + 8 <= secretPart.length; i++) forms.push(secretPart.slice(i, i + 8));
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.from(key.slice(shift)).toString('base64');
    forms.push(b64.slice(4, -4)); // edges depend on the neighbouring bytes
  }
  return forms;
}

/** One readable line per key found in `text` (the first form it was found in). */
export function leaksIn(keys: readonly string[], text: string): string[] {
  const found: string[] = [];
  for (const key of keys) {
    const form = leakForms(key).find((f) => text.includes(f));
    if (form !== undefined) found.push(`${key.slice(0, 8)}… as "${form}"`);
  }
  return found;
}

/** Every leak in `seen`, prefixed with where it was. */
export const leaksInAll = (keys: readonly string[], seen: readonly Seen[]): string[] => seen.flatMap((s) => leaksIn(keys, s.text).map((l) => `${s.where}: ${l}`));

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Every regular file under `dir` (up to 20 MB each), named `<label>/relative/path`. */
export async function filesAsSeen(dir: string, label: string): Promise<Seen[]> {
  const out: Seen[] = [];
  for (const file of await filesUnder(dir)) {
    if ((await stat(file)).size > 20_000_000) continue;
    out.push({ where: file.replace(dir, `<${label}>`), text: await readFile(file, 'latin1') });
  }
  return out;
}
