/**
 * Every `sessions.*` method (D3, E10, E22): list, history, open (history + the streaming run as a replay), create,
 * update (title, model, thinking, custom instructions, history limit), delete with undo, restore, reset, search,
 * export, and compact (a `/compact` run). Every request is validated here with zod.
 *
 * Delete is soft for an undo window: the entry leaves the index at once and its transcript is renamed to
 * `<id>.jsonl.deleted` (invisible to the index rebuild); `sessions.restore` puts both back; after the window
 * (or at the next start) the file is removed.
 */
import { readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { AgentAccepted, HistoryEntry, Methods, SessionSearchHit, SessionSummary } from '../../../preload/contract.js';
import type { Message } from '../../engine/messages.js';
import type { RunRegistry } from '../../engine/run/runs.js';
import type { SessionEntry, SessionStore } from '../../sessions/store.js';
import { newSessionKey } from '../../sessions/new-key.js';
import { TakeBackRefusedError, keepAsChat, takeBack } from '../../sessions/keep-earlier.js';
import { abortError } from '../../engine/abort.js';
import { toHistory, type PriceOf } from '../history.js';
import { modelRef, validatedMethods, sessionKey, thinking } from '../params.js';
import { GatewayError } from '../types.js';
import type { ActiveRuns } from './active-runs.js';
import { exportSession } from './session-export.js';
import { openLatest, shownPart } from './session-open.js';

export const UNDO_WINDOW_MS = 30_000;
/** Messages in each piece of a long chat's earlier part (`before` without a `limit`). */
const EARLIER_PIECE = 2000;
const DELETED_EXT = '.jsonl.deleted';

const schemas = lazy(() => ({
  'sessions.list': z.object({}).strict(),
  'sessions.history': z.object({ sessionKey }).strict(),
  /** E10: a `/compact` run in the session's lane (its events and result as for any run). */
  'sessions.compact': z.object({ sessionKey }).strict(),
  /** `before`: the part before the point an open named (`earlier`) — its latest `limit` messages, and where they start. */
  'sessions.open': z
    .object({
      sessionKey,
      limit: z.number().int().min(1).max(1_000_000).optional(),
      before: z.object({ sessionId: z.string().min(1), offset: z.number().int().min(0) }).strict().optional(),
    })
    .strict(),
  'sessions.create': z.object({ model: modelRef.optional(), thinking: thinking.optional() }).strict(),
  'sessions.update': z
    .object({
      sessionKey,
      title: z.string().max(500, 'title is too long (max 500 characters)').optional(),
      model: modelRef.optional(),
      thinking: thinking.nullable().optional(),
      /** E9: the chat's custom instructions (added to the system prompt of its runs); null or "" clears them. */
      extraSystemPrompt: z.string().max(20_000, 'extraSystemPrompt is too long (max 20 000 characters)').nullable().optional(),
      /** E22: send only the last N turns of this chat; null: agent.historyTurns. */
      historyTurns: z.number().int().min(1).max(10_000).nullable().optional(),
    })
    .strict(),
  'sessions.delete': z.object({ sessionKey }).strict(),
  'sessions.restore': z.object({ sessionKey }).strict(),
  'sessions.reset': z.object({ sessionKey }).strict(),
  'sessions.undoReset': z.object({ sessionKey, keptKey: sessionKey }).strict(),
  'sessions.search': z.object({ query: z.string().max(500, 'query is too long (max 500 characters)') }).strict(),
  'sessions.export': z.object({ sessionKey, format: z.enum(['markdown', 'json']) }).strict(),
} as const));

type SessionMethod = keyof typeof schemas;

export interface SessionMethodDeps {
  store: SessionStore;
  runs: RunRegistry;
  active: ActiveRuns;
  now: () => number;
  /** Throws when `ref` is not a known model. */
  checkModel: (ref: string) => void;
  /** A model's price as runs bill it (history shows each reply's cost from it). */
  priceOf?: PriceOf;
  timers?: { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (h: unknown) => void };
  undoWindowMs?: number;
  /** E19 `session_end`: a chat was deleted (its transcript ends here; a reset's is the store's). */
  onSessionEnd?: (event: { sessionKey: string; sessionId: string; reason: 'deleted' }) => void;
  /** A deleted session is gone for good (its undo window is over): its checkpoints go too (X2). */
  onPurge?: (sessionKey: string) => void | Promise<void>;
  /** Starts the `/compact` run of a session (the gateway's command). */
  compact: (sessionKey: string) => Promise<AgentAccepted>;
  /** X3: an attachment's bytes, so an export carries the attachments it refers to. */
  readAttachment?: (id: string) => Promise<{ mimeType: string; data: string } | undefined>;
}

export function toSummary(s: SessionEntry): SessionSummary {
  return {
    sessionKey: s.sessionKey,
    sessionId: s.sessionId,
    title: s.title,
    ...(s.model ? { model: s.model } : {}),
    ...(s.thinking ? { thinking: s.thinking } : {}),
    ...(s.verbose !== undefined ? { verbose: s.verbose } : {}),
    ...(s.extraSystemPrompt ? { extraSystemPrompt: s.extraSystemPrompt } : {}),
    ...(s.historyTurns !== undefined ? { historyTurns: s.historyTurns } : {}),
    updatedAt: s.updatedAt,
    createdAt: s.createdAt,
    usage: { ...s.usage },
    ...(s.context !== undefined ? { context: s.context } : {}),
  };
}

/** Searchable text of one message: user text, assistant text and tool arguments, tool results. */
function messageText(m: Message): string {
  if (m.role === 'user' || m.role === 'toolResult') return m.content;
  return m.content
    .map((b) => (b.type === 'text' ? b.text : b.type === 'toolCall' ? `${b.name} ${JSON.stringify(b.arguments)}` : ''))
    .join(' ');
}

export function snippetAround(text: string, index: number, length: number, radius = 40): string {
  const start = Math.max(0, index - radius);
  const end = Math.min(text.length, index + length + radius);
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

export function createSessionMethods(deps: SessionMethodDeps) {
  const { store, active } = deps;
  const timers = deps.timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms).unref(), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
  const undoWindow = deps.undoWindowMs ?? UNDO_WINDOW_MS;
  const trash = new Map<string, { entry: SessionEntry; timer: unknown }>();

  const deletedPath = (sessionId: string) => store.transcriptPath(sessionId).replace(/\.jsonl$/, DELETED_EXT);
  const purge = async (sessionId: string) => unlink(deletedPath(sessionId)).catch(() => undefined);

  const mustGet = async (key: string): Promise<SessionEntry> => {
    const entry = await store.get(key);
    if (!entry) throw new GatewayError('not_found', `No session "${key}".`);
    return entry;
  };

  const checkModel = (ref: string | undefined) => {
    if (ref === undefined) return;
    try {
      deps.checkModel(ref);
    } catch (err) {
      throw new GatewayError('bad_request', (err as Error).message);
    }
  };

  const history = async (entry: SessionEntry) => {
    const t = await store.loadTranscript(entry.sessionId);
    return toHistory(t.messages, t.compactions, deps.priceOf);
  };

  const handlers: { [M in SessionMethod]: (p: z.infer<(typeof schemas)[M]>) => Promise<Methods[M][1]> } = {
    async 'sessions.list'() {
      return (await store.list()).map(toSummary);
    },
    async 'sessions.history'(p) {
      const entry = await store.get(p.sessionKey);
      return entry ? history(entry) : [];
    },
    async 'sessions.compact'(p) {
      await mustGet(p.sessionKey);
      return deps.compact(p.sessionKey);
    },
    async 'sessions.open'(p) {
      const entry = await store.get(p.sessionKey);
      const snapshot = active.snapshot(p.sessionKey);
      if (!entry) return { session: null, history: [], omitted: 0, active: snapshot };
      const file = store.transcriptPath(entry.sessionId);
      if (p.before !== undefined) {
        // the earlier part of a long chat (never the run), from the point its open named
        if (p.before.sessionId !== entry.sessionId) throw new GatewayError('bad_request', 'This chat changed since it was opened: open it again to see its earlier messages.');
        try {
          const part = await openLatest(file, entry.sessionId, null, p.limit ?? EARLIER_PIECE, deps.priceOf, { end: p.before.offset });
          return { session: toSummary(entry), ...part, active: null };
        } catch (err) {
          if (err instanceof RangeError) throw new GatewayError('bad_request', 'This chat changed since it was opened: open it again to see its earlier messages.');
          throw err;
        }
      }
      if (p.limit !== undefined) return { session: toSummary(entry), ...(await openLatest(file, entry.sessionId, snapshot, p.limit, deps.priceOf)), active: snapshot };
      const part = shownPart(await store.loadTranscript(entry.sessionId), snapshot, undefined);
      return { session: toSummary(entry), history: toHistory(part.messages, part.marks, deps.priceOf), omitted: 0, active: snapshot };
    },
    async 'sessions.create'(p) {
      checkModel(p.model);
      let key = newSessionKey('chat', deps.now());
      while (await store.get(key)) key = newSessionKey('chat', deps.now());
      await store.resolve(key, p.model ? { model: p.model } : {});
      return toSummary(p.thinking ? await store.update(key, { thinking: p.thinking }) : await mustGet(key));
    },
    async 'sessions.update'(p) {
      await mustGet(p.sessionKey);
      checkModel(p.model);
      if (p.title !== undefined && p.title.trim() === '') throw new GatewayError('bad_request', 'sessions.update: title must not be empty');
      return toSummary(
        await store.update(p.sessionKey, {
          ...(p.title !== undefined ? { title: p.title } : {}),
          ...(p.model !== undefined ? { model: p.model } : {}),
          ...(p.thinking !== undefined ? { thinking: p.thinking } : {}),
          ...(p.extraSystemPrompt !== undefined ? { extraSystemPrompt: p.extraSystemPrompt?.trim() ? p.extraSystemPrompt : null } : {}),
          ...(p.historyTurns !== undefined ? { historyTurns: p.historyTurns } : {}),
        }),
      );
    },
    async 'sessions.delete'(p) {
      const entry = await store.get(p.sessionKey);
      if (!entry) return { deleted: false };
      const stop = abortError('The session was deleted.');
      const running = deps.runs.active().filter((r) => r.sessionKey === p.sessionKey);
      for (const run of running) deps.runs.abort(run.runId, stop);
      await Promise.allSettled(running.map((r) => r.done));
      await store.index.mutate((entries, skip) => {
        if (!entries.delete(p.sessionKey)) skip();
      });
      await rename(store.transcriptPath(entry.sessionId), deletedPath(entry.sessionId)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      const previous = trash.get(p.sessionKey);
      if (previous) {
        timers.clearTimeout(previous.timer);
        void purge(previous.entry.sessionId);
      }
      const timer = timers.setTimeout(() => {
        trash.delete(p.sessionKey);
        void purge(entry.sessionId);
        void deps.onPurge?.(p.sessionKey);
      }, undoWindow);
      trash.set(p.sessionKey, { entry, timer });
      deps.onSessionEnd?.({ sessionKey: p.sessionKey, sessionId: entry.sessionId, reason: 'deleted' });
      return { deleted: true, undoUntil: deps.now() + undoWindow };
    },
    async 'sessions.restore'(p) {
      const item = trash.get(p.sessionKey);
      if (!item) throw new GatewayError('not_found', `Session "${p.sessionKey}" can no longer be restored.`);
      if (await store.get(p.sessionKey)) throw new GatewayError('bad_request', `A session "${p.sessionKey}" exists again; it was not replaced.`);
      timers.clearTimeout(item.timer);
      trash.delete(p.sessionKey);
      await rename(deletedPath(item.entry.sessionId), store.transcriptPath(item.entry.sessionId)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await store.index.mutate((entries) => {
        entries.set(p.sessionKey, item.entry);
      });
      return toSummary(item.entry);
    },
    async 'sessions.reset'(p) {
      if (active.sessionKeys().has(p.sessionKey)) {
        throw new GatewayError('bad_request', 'This chat has a run in progress: stop it before /reset.');
      }
      const before = await store.get(p.sessionKey);
      const fresh = await store.reset(p.sessionKey); // session_end, then session_start (the store's hooks)
      if (before) await keepAsChat(store, before, 'reset', deps.now()); // the earlier conversation stays listed
      return toSummary(fresh);
    },
    async 'sessions.undoReset'(p) {
      if (active.sessionKeys().has(p.sessionKey)) throw new GatewayError('bad_request', 'This chat has a run in progress: it cannot go back now.');
      try {
        return toSummary(await takeBack(store, p.sessionKey, p.keptKey));
      } catch (err) {
        if (err instanceof TakeBackRefusedError) throw new GatewayError('bad_request', err.message);
        throw err;
      }
    },
    async 'sessions.search'(p) {
      const needle = p.query.trim().toLowerCase();
      const all = await store.list();
      if (needle === '') return all.map((s) => ({ sessionKey: s.sessionKey, title: s.title, where: 'title' as const, snippet: s.title }));
      const hits: SessionSearchHit[] = [];
      for (const s of all) {
        const inTitle = s.title.toLowerCase().indexOf(needle);
        if (inTitle !== -1) {
          hits.push({ sessionKey: s.sessionKey, title: s.title, where: 'title', snippet: s.title });
          continue;
        }
        for (const m of await store.loadMessages(s.sessionId)) {
          const text = messageText(m);
          const at = text.toLowerCase().indexOf(needle);
          if (at !== -1) {
            hits.push({ sessionKey: s.sessionKey, title: s.title, where: 'content', snippet: snippetAround(text, at, needle.length) });
            break;
          }
        }
      }
      return hits;
    },
    async 'sessions.export'(p) {
      const entry = await mustGet(p.sessionKey);
      return exportSession(toSummary(entry), await history(entry), p.format, deps.readAttachment);
    },
  };

  const methods = validatedMethods<typeof schemas, { [M in SessionMethod]: Methods[M][1] }>(schemas, handlers);

  return {
    methods,
    /** Removes transcripts left in the trash by an earlier process (their undo window is over). */
    async purgeLeftovers(): Promise<void> {
      let names: string[];
      try {
        names = await readdir(store.dir);
      } catch {
        return;
      }
      await Promise.all(names.filter((n) => n.endsWith(DELETED_EXT)).map((n) => unlink(join(store.dir, n)).catch(() => undefined)));
    },
    /** Ends every pending undo window now (the files are removed). */
    async close(): Promise<void> {
      for (const [key, item] of trash) {
        timers.clearTimeout(item.timer);
        trash.delete(key);
        await purge(item.entry.sessionId);
        await deps.onPurge?.(key);
      }
    },
  };
}
