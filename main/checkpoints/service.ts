/**
 * X2 restores as a person asks for them — the files, the conversation, or both, to before one user message of a
 * session — and their undo. Shared by the gateway (`checkpoints.*`) and the CLI (`agentdesk checkpoints …`).
 *
 * - A restore never runs beside a run of the same session: it takes the session's run lock (the same cross-process
 *   lock a run holds from before it loads the history to its last write) and is refused with one line if a run
 *   holds it.
 * - The conversation is cut back in a new branch (main/sessions/branch.ts): the old transcript stays on disk, and
 *   the undo switches back to it.
 * - Every restore checkpoints the current state first (restore.ts), so every restore — an undo included — can be
 *   undone: undo twice is a redo.
 */
import { existsSync } from 'node:fs';
import type { CheckpointDiff, CheckpointDto, CheckpointPreview, RestoreDto, RestoreMode, RestoreResultDto } from '../../preload/contract.js';
import { branchTranscript, findTurnMessage, switchTranscript } from '../sessions/branch.js';
import { sessionRunLock } from '../sessions/session-lock.js';
import type { SessionStore } from '../sessions/store.js';
import type { ApplyReport } from './apply.js';
import type { CheckpointRecord, RestoreRecord } from './log.js';
import type { CheckpointStore } from './store.js';
import { shellWord } from './restore.js';
import { WorkspaceFs } from './workspace-fs.js';

/** Files larger than this are shown as binary in a diff. */
const DIFF_MAX_BYTES = 512 * 1024;

/** A refusal a person can act on (CLI exit 1, gateway bad_request). */
export class RestoreRefusedError extends Error {
  override name = 'RestoreRefusedError';
}

/** The workspace's copy of `rel` for a diff (null when gone or not a regular file; 'large' over the diff cap). */
function readCurrent(root: string, rel: string): Buffer | null | 'large' {
  let fs: WorkspaceFs | undefined;
  try {
    fs = new WorkspaceFs(root);
    const data = fs.readFile(rel, DIFF_MAX_BYTES);
    return Buffer.isBuffer(data) ? data : data === 'too-large' ? 'large' : null;
  } catch {
    return null;
  } finally {
    fs?.close();
  }
}

function toCheckpointDto(r: CheckpointRecord): CheckpointDto {
  return {
    id: r.id,
    createdAt: r.createdAt,
    label: r.label,
    files: r.files,
    skipped: r.skipped,
    ...(r.message !== undefined ? { message: r.message } : {}),
    ...(r.sessionId ? { sessionId: r.sessionId } : {}),
    ...(r.runId ? { runId: r.runId } : {}),
  };
}

/** The state a restore recorded as incomplete left the folder in, and what to do (restore.ts `setAsideIncomplete`). */
function incompleteLine(sessionKey: string, r: RestoreRecord, root: string | undefined): string {
  return `The last restore of session "${sessionKey}" could neither be finished nor put back (${String(r.incomplete).split('\n')[0]}): ${root ?? 'its folder'} is partly restored. Once that is fixed, \`agentdesk checkpoints undo --session ${shellWord(sessionKey)}\` (Undo restore in the app) puts it back as it was before.`;
}

function toRestoreDto(r: RestoreRecord, incomplete?: string): RestoreDto {
  return {
    id: r.id,
    at: r.at,
    target: r.target,
    files: r.files,
    conversation: r.conversation !== undefined,
    ...(r.undoOf ? { undoOf: r.undoOf } : {}),
    summary: r.summary,
    ...(r.incomplete !== undefined && incomplete ? { incomplete } : {}),
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function describeRestore(r: RestoreRecord, label: string, report?: ApplyReport): string {
  const what = r.undoOf ? 'Undid the last restore' : `Restored ${r.files && r.conversation ? 'files and conversation' : r.files ? 'files' : 'the conversation'} to before “${label}”`;
  const parts: string[] = [];
  if (r.files) {
    const s = r.summary;
    parts.push(s.modified + s.created + s.deleted === 0 ? 'no file needed a change' : `${plural(s.modified, 'file')} changed back, ${s.created} brought back, ${s.deleted} removed`);
  }
  // What it moved aside to make room is said in the same line (in no checkpoint: ignored now, over a size cap).
  const names = (paths: readonly string[]) => `${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ` and ${paths.length - 3} more` : ''}`;
  if (report?.keptAside.length) parts.push(`kept aside (not in a checkpoint): ${names(report.keptAside)}`);
  if (r.conversation) parts.push(r.undoOf ? 'the conversation is back as it was' : 'the conversation continues from there (the old one is kept)');
  return `${what}: ${parts.join('; ')}. \`checkpoints undo\` takes it back.`;
}

export interface ServiceDeps {
  store: CheckpointStore;
  sessions: SessionStore;
  /** How long a restore waits for the session's run lock before it is refused (default 1.5 s). */
  lockWaitMs?: number;
  now?: () => number;
}

export class CheckpointService {
  constructor(private readonly d: ServiceDeps) {}

  /** The session's turn checkpoints (oldest first), each with the time of its user message when that is found. */
  async list(sessionKey: string, opts: { withMessages?: boolean } = {}): Promise<{ checkpoints: CheckpointDto[]; lastRestore: RestoreDto | null }> {
    await this.d.store.settled(); // a turn's checkpoint still committing (copy-on-write) is listed
    const last = this.d.store.lastRestore(sessionKey);
    const records = this.d.store.list(sessionKey);
    const checkpoints = records.map(toCheckpointDto);
    if (opts.withMessages) {
      const transcripts = new Map<string, Awaited<ReturnType<SessionStore['loadMessages']>>>();
      for (const [i, r] of records.entries()) {
        if (!r.sessionId) continue;
        if (!transcripts.has(r.sessionId)) transcripts.set(r.sessionId, await this.d.sessions.loadMessages(r.sessionId).catch(() => []));
        const messages = transcripts.get(r.sessionId)!;
        const at = findTurnMessage(messages, { message: r.message, startedAt: r.runStartedAt });
        if (at !== -1) checkpoints[i]!.messageAt = messages[at]!.timestamp;
      }
    }
    return { checkpoints, lastRestore: last ? toRestoreDto(last, last.incomplete !== undefined ? incompleteLine(sessionKey, last, this.rootOf(sessionKey, last)) : undefined) : null };
  }

  /** The folder a restore was made in (by its checkpoints: they may have been pruned since). */
  private rootOf(sessionKey: string, r: RestoreRecord): string | undefined {
    return this.d.store.records(sessionKey).find((c): c is CheckpointRecord => c.type === 'checkpoint' && (c.id === r.before || c.id === r.target))?.root;
  }

  async preview(sessionKey: string, id: string): Promise<CheckpointPreview> {
    const p = await this.d.store.preview(sessionKey, id);
    const files = p.changes.filter((c) => (c.to ?? c.from)!.k !== 'd' || (c.from && c.to && c.from.k !== c.to.k));
    const type = (k: string) => (k === 'd' ? 'folder' : k === 'l' ? 'symlink' : 'file') as 'file' | 'folder' | 'symlink';
    return {
      summary: p.summary,
      changes: files.slice(0, 500).map((c) => ({ path: c.path, kind: c.kind, type: type((c.to ?? c.from)!.k) })),
      more: Math.max(0, files.length - 500),
      skipped: p.skipped,
    };
  }

  async diff(sessionKey: string, id: string, rel: string): Promise<CheckpointDiff> {
    const p = await this.d.store.preview(sessionKey, id);
    // Only a path the preview lists is read (`rel` comes from the window): never a path outside the workspace.
    const change = p.changes.find((c) => c.path === rel);
    const cp = this.d.store.checkpoint(sessionKey, id);
    // Read without following a link on the way: a file swapped for a link to ~/.ssh/id_rsa since the preview shows nothing.
    const read = change?.from?.k === 'f' ? readCurrent(cp.root, rel) : null;
    const current = read === 'large' ? Buffer.alloc(DIFF_MAX_BYTES + 1) : read;
    const restored = change?.to?.k === 'f' && change.to.h ? await this.d.store.readObject(change.to.h) : null;
    const binary = [current, restored].some((b) => b !== null && (b.length > DIFF_MAX_BYTES || b.includes(0)));
    if (binary) return { path: rel, current: current && '', restored: restored && '', binary: true };
    const text = (b: Buffer | null, e: { k: string; t?: string } | undefined) => (b ? b.toString('utf8') : e?.k === 'l' ? `→ ${e.t}` : null);
    return { path: rel, current: text(current, change?.from), restored: text(restored, change?.to) };
  }

  /** Holds the session's run lock for `fn`, or refuses when a run holds it. */
  private async whileNoRun<T>(sessionKey: string, fn: () => Promise<T>): Promise<T> {
    let release: () => Promise<void>;
    try {
      release = await sessionRunLock(this.d.sessions.dir)(sessionKey, AbortSignal.timeout(this.d.lockWaitMs ?? 1500));
    } catch {
      // The lock is held by a run or by another restore / undo of the session (this or another process).
      throw new RestoreRefusedError(`A run is active on session "${sessionKey}", or another restore of it: restore when it has finished (or stop the run first).`);
    }
    try {
      return await fn();
    } finally {
      await release();
    }
  }

  restore(sessionKey: string, id: string, mode: RestoreMode): Promise<RestoreResultDto> {
    return this.whileNoRun(sessionKey, async () => {
      const cp = this.d.store.checkpoint(sessionKey, id);
      if (mode !== 'conversation' && !existsSync(cp.root)) throw new RestoreRefusedError(`The folder of checkpoint ${id} (${cp.root}) no longer exists.`);
      let conversation: { from: string; to: string } | undefined;
      let draft: string | undefined;
      if (mode !== 'files') {
        const entry = await this.d.sessions.get(sessionKey);
        if (!entry) throw new RestoreRefusedError(`No session "${sessionKey}": only its files can be restored.`);
        if (!cp.sessionId) throw new RestoreRefusedError(`Checkpoint ${id} is not tied to a message of the conversation: restore its files only.`);
        const messages = await this.d.sessions.loadMessages(cp.sessionId);
        const at = findTurnMessage(messages, { message: cp.message, startedAt: cp.runStartedAt });
        if (at === -1) throw new RestoreRefusedError(`The message of checkpoint ${id} is no longer in the session's history: restore its files only.`);
        const to = await branchTranscript(this.d.sessions, sessionKey, cp.sessionId, at, (this.d.now ?? Date.now)());
        conversation = { from: entry.sessionId, to };
        const m = messages[at]!;
        draft = m.role === 'user' ? m.content : undefined;
      }
      const { record, report } = await this.d.store.restore({ sessionKey, id, files: mode !== 'conversation', ...(conversation ? { conversation } : {}) });
      return { restore: toRestoreDto(record), message: describeRestore(record, cp.label, report), ...(draft !== undefined ? { draft } : {}) };
    });
  }

  undo(sessionKey: string): Promise<RestoreResultDto> {
    return this.whileNoRun(sessionKey, async () => {
      const last = this.d.store.lastRestore(sessionKey);
      if (!last) throw new RestoreRefusedError(`Nothing to undo: session "${sessionKey}" has no restore.`);
      const { record, report } = await this.d.store.restore({
        sessionKey,
        id: last.before,
        files: last.files,
        undoOf: last.id,
        ...(last.conversation ? { conversation: { from: last.conversation.to, to: last.conversation.from } } : {}),
      });
      return { restore: toRestoreDto(record), message: describeRestore(record, '', report) };
    });
  }
}

/** The store's part of switching a conversation (passed to CheckpointStore as `switchConversation`). */
export const conversationSwitcher = (sessions: SessionStore) => (sessionKey: string, sessionId: string) => switchTranscript(sessions, sessionKey, sessionId);
