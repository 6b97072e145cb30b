/**
 * Rebuilds session index entries from the transcript files in a folder (used when sessions.json is corrupt or
 * missing). The key comes from the transcript header (`key`), else the sessionId; when several transcripts claim
 * one key (after /new or /reset) the most recently updated one keeps it and the others are listed under their id.
 * The model is left unset: the models seen in a transcript may be fallbacks, and pinning one would be wrong.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { emptyUsage, type Message, type Usage } from '../engine/messages.js';
import type { SessionEntry } from './index-store.js';
import { autoTitle } from './title.js';
import { parseTranscript } from './transcript.js';

export const TRANSCRIPT_EXT = '.jsonl';
export const SESSION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * Session totals as E17 defines them per run, reconstructed from the messages: a run starts at a user message;
 * output accumulates over its calls; input / cacheRead / cacheWrite are those of its last call that reported a
 * prompt; total = that prompt + the accumulated output. Runs are then summed field by field.
 */
export function usageOfMessages(messages: Message[]): Usage {
  const sum = emptyUsage();
  let run: { prompt: Usage | undefined; output: number } | undefined;
  const close = () => {
    if (!run) return;
    const p = run.prompt ?? emptyUsage();
    sum.input += p.input;
    sum.cacheRead += p.cacheRead;
    sum.cacheWrite += p.cacheWrite;
    sum.output += run.output;
    sum.total += p.input + p.cacheRead + p.cacheWrite + run.output;
    run = undefined;
  };
  for (const m of messages) {
    if (m.role === 'user') {
      close();
      run = { prompt: undefined, output: 0 };
    } else if (m.role === 'assistant') {
      run ??= { prompt: undefined, output: 0 };
      run.output += m.usage.output;
      if (m.usage.input + m.usage.cacheRead + m.usage.cacheWrite > 0) run.prompt = m.usage;
    }
  }
  close();
  return sum;
}

interface Candidate {
  entry: SessionEntry;
  claimedKey: string;
}

async function candidateFrom(dir: string, name: string): Promise<Candidate | undefined> {
  const sessionId = name.slice(0, -TRANSCRIPT_EXT.length);
  if (!SESSION_ID_RE.test(sessionId)) return undefined;
  const file = join(dir, name);
  let data: Buffer;
  let mtime: number;
  try {
    [data, mtime] = await Promise.all([readFile(file), stat(file).then((s) => s.mtimeMs)]);
  } catch {
    return undefined;
  }
  const t = parseTranscript(data);
  const firstUser = t.messages.find((m) => m.role === 'user' && m.content.trim() !== '');
  const last = t.messages.at(-1);
  const createdAt = t.header?.createdAt ?? t.messages[0]?.timestamp ?? Math.floor(mtime);
  const updatedAt = Math.max(createdAt, last?.timestamp ?? createdAt);
  return {
    claimedKey: t.header?.key ?? sessionId,
    entry: {
      sessionKey: sessionId,
      sessionId,
      title: firstUser && firstUser.role === 'user' ? autoTitle(firstUser.content) : '',
      createdAt,
      updatedAt,
      usage: usageOfMessages(t.messages),
    },
  };
}

export async function rebuildEntries(dir: string): Promise<SessionEntry[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(TRANSCRIPT_EXT)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const candidates = (await Promise.all(names.map((n) => candidateFrom(dir, n)))).filter(
    (c): c is Candidate => c !== undefined,
  );
  // Newest first, so the newest transcript of a key takes the key.
  candidates.sort((a, b) => b.entry.updatedAt - a.entry.updatedAt || a.entry.sessionId.localeCompare(b.entry.sessionId));
  const taken = new Set<string>();
  const out: SessionEntry[] = [];
  for (const c of candidates) {
    const key = taken.has(c.claimedKey) ? c.entry.sessionId : c.claimedKey;
    if (taken.has(key)) continue;
    taken.add(key);
    out.push({ ...c.entry, sessionKey: key });
  }
  return out;
}
