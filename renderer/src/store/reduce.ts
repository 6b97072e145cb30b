/**
 * Pure state transitions of the chat view: run events → turns, and stored history → turns.
 * No React, no transport: easy to test and cheap to run once per animation frame over a batch.
 */
import type {
  AgentEvent,
  AssistantData,
  CompactionData,
  HistoryEntry,
  LifecycleData,
  QueueData,
  RetryData,
  ThinkingData,
  ToolData,
} from '../../../preload/contract.js';
import { isStopText } from '../lib/errors.js';
import type { AssistantTurn, ToolCallView, Turn, TurnPart } from './types.js';

export function newAssistantTurn(runId: string | undefined, id: string): AssistantTurn {
  return { kind: 'assistant', id, runId, parts: [], status: 'running', demo: false, lastSeq: -1, callTurn: 0 };
}

/** Returns turns with an assistant turn for `runId` (appended if missing). */
export function ensureRunTurn(turns: Turn[], runId: string): Turn[] {
  if (turns.some((t) => t.kind === 'assistant' && t.runId === runId)) return turns;
  return [...turns, newAssistantTurn(runId, `run-${runId}`)];
}

type StreamKind = 'text' | 'thinking';

/** Appends a delta to the last row when it is of the same kind and model call, else starts a new row. */
function appendStream(parts: TurnPart[], kind: StreamKind, delta: string, turn: number): TurnPart[] {
  if (delta === '') return parts;
  const last = parts[parts.length - 1];
  if (last?.kind === kind && last.turn === turn) return [...parts.slice(0, -1), { kind, text: last.text + delta, turn }];
  return [...parts, { kind, text: delta, turn }];
}

/** Length of everything already shown for one model call's stream (to recover from a gap in the events). */
function streamedLength(parts: TurnPart[], kind: StreamKind, turn: number): number {
  let n = 0;
  for (const p of parts) if (p.kind === kind && p.turn === turn) n += p.text.length;
  return n;
}

function applyStream(turn: AssistantTurn, kind: StreamKind, data: AssistantData | ThinkingData, gap: boolean): AssistantTurn {
  const callTurn = data.turn ?? turn.callTurn;
  let delta = data.delta;
  if (gap && typeof data.text === 'string') {
    // Events were missed (a reconnect): the full text so far says what is missing.
    const have = streamedLength(turn.parts, kind, callTurn);
    delta = data.text.length > have ? data.text.slice(have) : '';
  }
  return { ...turn, callTurn, parts: appendStream(turn.parts, kind, delta, callTurn) };
}

function updateTool(parts: TurnPart[], id: string, patch: (t: ToolCallView) => ToolCallView): TurnPart[] {
  return parts.map((p) => (p.kind === 'tool' && p.tool.id === id ? { ...p, tool: patch(p.tool) } : p));
}

function applyTool(turn: AssistantTurn, data: ToolData): AssistantTurn {
  switch (data.phase) {
    case 'start':
      if (turn.parts.some((p) => p.kind === 'tool' && p.tool.id === data.toolCallId)) return turn;
      return {
        ...turn,
        parts: [
          ...turn.parts,
          { kind: 'tool', turn: turn.callTurn, tool: { id: data.toolCallId, name: data.name, args: data.args, status: 'running', partial: '' } },
        ],
      };
    case 'update':
      return { ...turn, parts: updateTool(turn.parts, data.toolCallId, (t) => ({ ...t, partial: t.partial + data.partial })) };
    case 'end':
      return {
        ...turn,
        parts: updateTool(turn.parts, data.toolCallId, (t) => ({
          ...t,
          status: data.isError ? 'error' : 'ok',
          result: data.result,
          durationMs: data.durationMs,
        })),
      };
  }
}

function applyLifecycle(turn: AssistantTurn, data: LifecycleData): AssistantTurn {
  switch (data.phase) {
    case 'start':
      return {
        ...turn,
        status: 'running',
        queue: undefined,
        startedAt: data.startedAt,
        model: `${data.provider}/${data.model}`,
        demo: data.demo === true,
        ...(data.warning ? { warning: data.warning } : {}),
      };
    case 'end':
    case 'error': {
      // a removed or merged queued message ends its run record too: it stays shown as what happened to it
      if (turn.status === 'removed' || turn.status === 'merged') return { ...turn, endedAt: data.endedAt };
      const meta = data.result?.meta;
      const ended = {
        ...turn,
        endedAt: data.endedAt,
        queue: undefined,
        ...(data.result?.usage ? { usage: data.result.usage } : {}),
        ...(meta?.usage?.cost !== undefined ? { cost: meta.usage.cost } : {}),
        ...(meta?.provider && meta.model ? { answeredBy: `${meta.provider}/${meta.model}` } : {}),
        parts: turn.parts.map((p) =>
          // a tool that never reported its end did not finish
          p.kind === 'tool' && p.tool.status === 'running' ? { ...p, tool: { ...p.tool, status: 'error' as const } } : p,
        ),
      };
      if (data.phase === 'end') return { ...ended, status: 'done' };
      return { ...ended, status: isStopText(data.error) ? 'stopped' : 'error', error: data.error };
    }
  }
}

/** E7: a failed attempt's partial text, thinking and unfinished tool rows go; the retry line stays. */
export function applyRetry(turn: AssistantTurn, data: RetryData): AssistantTurn {
  const keep = (p: TurnPart): boolean => {
    if (data.discardTurn === undefined) return true;
    if (p.kind === 'text' || p.kind === 'thinking') return p.turn !== data.discardTurn;
    if (p.kind === 'tool') return p.turn !== data.discardTurn || p.tool.status !== 'running';
    return true;
  };
  const next = data.next.action === 'fallback' ? { model: `${data.next.provider}/${data.next.model}` } : {};
  return { ...turn, ...next, parts: [...turn.parts.filter(keep), { kind: 'retry', retry: data }] };
}

function applyCompaction(turn: AssistantTurn, data: CompactionData): AssistantTurn {
  if (data.phase === 'start') return { ...turn, parts: [...turn.parts, { kind: 'compaction', phase: 'start' }] };
  const index = turn.parts.findLastIndex((p) => p.kind === 'compaction' && p.phase === 'start');
  const error = (data as { error?: string }).error;
  const done: TurnPart = {
    kind: 'compaction',
    phase: 'end',
    tokensBefore: data.tokensBefore,
    tokensAfter: data.tokensAfter,
    ...(error ? { error } : {}),
  };
  if (index < 0) return { ...turn, parts: [...turn.parts, done] };
  return { ...turn, parts: turn.parts.map((p, i) => (i === index ? done : p)) };
}

function applyQueue(turn: AssistantTurn, data: QueueData): AssistantTurn {
  switch (data.phase) {
    case 'queued':
      return turn.status === 'running' && turn.startedAt === undefined
        ? { ...turn, status: 'queued', queue: { mode: data.mode, position: data.position } }
        : turn;
    case 'waiting':
      return { ...turn, waitedMs: data.waitedMs };
    case 'started':
      return { ...turn, status: turn.status === 'queued' ? 'running' : turn.status, queue: undefined };
    case 'removed':
      return { ...turn, status: 'removed', queue: undefined };
    case 'merged':
    case 'steered':
      return { ...turn, status: 'merged', queue: undefined };
  }
}

/** Applies one event to its run's turn. */
export function applyEventToTurn(turn: AssistantTurn, event: AgentEvent): AssistantTurn {
  if (event.seq <= turn.lastSeq) return turn; // duplicate or replay
  const gap = event.seq > turn.lastSeq + 1;
  const next = { ...turn, lastSeq: event.seq };
  switch (event.stream) {
    case 'lifecycle':
      return applyLifecycle(next, event.data as LifecycleData);
    case 'assistant':
      return applyStream(next, 'text', event.data as AssistantData, gap);
    case 'thinking':
      return applyStream(next, 'thinking', event.data as ThinkingData, gap);
    case 'tool':
      return applyTool(next, event.data as ToolData);
    case 'retry':
      return applyRetry(next, event.data as RetryData);
    case 'compaction':
      return applyCompaction(next, event.data as CompactionData);
    case 'queue':
      return applyQueue(next, event.data as QueueData);
    default:
      return next; // approvals are rendered by the tool approval card
  }
}

/** Applies a batch of events (in arrival order) for one session. */
export function applyEvents(turns: Turn[], events: AgentEvent[], sessionKey: string): Turn[] {
  let out = turns;
  let copied = false; // one copy per batch, not one per event: histories hold thousands of turns
  for (const event of events) {
    if (event.sessionKey !== sessionKey) continue;
    let index = out.findLastIndex((t) => t.kind === 'assistant' && t.runId === event.runId);
    if (index < 0) {
      out = ensureRunTurn(out, event.runId);
      copied = true;
      index = out.length - 1;
    }
    const turn = out[index] as AssistantTurn;
    const updated = applyEventToTurn(turn, event);
    if (updated === turn) continue;
    if (!copied) {
      out = out.slice();
      copied = true;
    }
    out[index] = updated;
  }
  return out;
}

/** Stored transcript → turns: consecutive assistant/toolResult entries after a user message form one turn. */
export function historyToTurns(entries: HistoryEntry[], idPrefix = 'h'): Turn[] {
  const turns: Turn[] = [];
  let current: AssistantTurn | undefined;
  entries.forEach((entry, i) => {
    if (entry.role === 'compaction') {
      // E10 record: the divider stands where the context was compacted
      const part: TurnPart = { kind: 'compaction', phase: 'end', tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter };
      if (current) current.parts = [...current.parts, part];
      else turns.push({ ...newAssistantTurn(undefined, `${idPrefix}${i}`), status: 'done', callTurn: -1, parts: [part] });
      return;
    }
    if (entry.role === 'user') {
      current = undefined;
      turns.push({ kind: 'user', id: `${idPrefix}${i}`, text: entry.text, ts: entry.timestamp, ...(entry.attachments?.length ? { attachments: entry.attachments } : {}) });
      return;
    }
    if (!current) {
      current = { ...newAssistantTurn(undefined, `${idPrefix}${i}`), status: 'done', callTurn: -1 };
      turns.push(current);
    }
    const turn: AssistantTurn = current;
    if (entry.role === 'assistant') {
      // the retry lines the live run showed before this call (stored on it: a reload reads as the run did)
      for (const retry of entry.retries ?? []) turn.parts = [...turn.parts, { kind: 'retry', retry }];
      // a failed attempt the run recovered from (a key or model switch, a retry) is not how the turn ended
      if (turn.status === 'error' && entry.stopReason !== 'error' && !entry.errorMessage) {
        turn.status = 'done';
        turn.error = undefined;
      }
      // the same figures as a live reply: who answered, the last call's context, the output of every call
      if (entry.model && entry.stopReason !== 'error') {
        turn.model ??= entry.model;
        turn.answeredBy = entry.model;
      }
      if (entry.demo) turn.demo = true;
      if (entry.usage && (entry.usage.input || entry.usage.output || entry.usage.cacheRead || entry.usage.cacheWrite)) {
        const u = entry.usage;
        const first = turn.usage === undefined;
        const output = (turn.usage?.output ?? 0) + u.output;
        turn.usage = { input: u.input, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, output, total: u.input + u.cacheRead + u.cacheWrite + output };
        // billed like the live run's meta.usage.cost: every call's cost summed, unknown once one call is unpriced
        turn.cost = entry.cost === undefined || (!first && turn.cost === undefined) ? undefined : (turn.cost ?? 0) + entry.cost;
      }
      // each stored message is one model call: its own thinking row, then text, then tool rows
      if (entry.thinking) turn.parts = [...turn.parts, { kind: 'thinking', text: entry.thinking, turn: i }];
      if (entry.text) turn.parts = appendStream(turn.parts, 'text', entry.text, i);
      for (const call of entry.toolCalls) {
        turn.parts = [...turn.parts, { kind: 'tool', turn: i, tool: { id: call.id, name: call.name, args: call.arguments, status: 'ok', partial: '' } }];
      }
      if (entry.stopReason === 'aborted' || isStopText(entry.errorMessage)) {
        turn.status = 'stopped';
        turn.error = entry.errorMessage ?? 'The run was stopped.';
      } else if (entry.stopReason === 'error' || entry.errorMessage) {
        turn.status = 'error';
        turn.error = entry.errorMessage ?? 'The run ended with an error.';
      }
    } else if (entry.role === 'toolResult') {
      turn.parts = updateTool(turn.parts, entry.toolCallId, (t) => ({
        ...t,
        status: entry.isError ? 'error' : 'ok',
        result: entry.content,
        ...(entry.durationMs !== undefined ? { durationMs: entry.durationMs } : {}),
      }));
    }
  });
  return turns;
}
