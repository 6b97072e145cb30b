/**
 * Pure state transitions of the chat view: run events → turns, and stored history → turns.
 * No React, no transport: easy to test and cheap to run once per animation frame over a batch.
 */
import type {
  AgentEvent,
  AssistantData,
  HistoryEntry,
  LifecycleData,
  ThinkingData,
  ToolData,
} from '../../../preload/contract.js';
import type { AssistantTurn, ToolCallView, Turn, TurnPart } from './types.js';

export function newAssistantTurn(runId: string | undefined, id: string): AssistantTurn {
  return { kind: 'assistant', id, runId, parts: [], thinking: '', status: 'running', demo: false, lastSeq: -1 };
}

/** Returns turns with an assistant turn for `runId` (appended if missing). */
export function ensureRunTurn(turns: Turn[], runId: string): Turn[] {
  if (turns.some((t) => t.kind === 'assistant' && t.runId === runId)) return turns;
  return [...turns, newAssistantTurn(runId, `run-${runId}`)];
}

function appendText(parts: TurnPart[], delta: string): TurnPart[] {
  if (delta === '') return parts;
  const last = parts[parts.length - 1];
  if (last?.kind === 'text') return [...parts.slice(0, -1), { kind: 'text', text: last.text + delta }];
  return [...parts, { kind: 'text', text: delta }];
}

function updateTool(parts: TurnPart[], id: string, patch: (t: ToolCallView) => ToolCallView): TurnPart[] {
  return parts.map((p) => (p.kind === 'tool' && p.tool.id === id ? { kind: 'tool', tool: patch(p.tool) } : p));
}

function applyTool(turn: AssistantTurn, data: ToolData): AssistantTurn {
  switch (data.phase) {
    case 'start':
      if (turn.parts.some((p) => p.kind === 'tool' && p.tool.id === data.toolCallId)) return turn;
      return {
        ...turn,
        parts: [
          ...turn.parts,
          { kind: 'tool', tool: { id: data.toolCallId, name: data.name, args: data.args, status: 'running', partial: '' } },
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
      return { ...turn, status: 'running', startedAt: data.startedAt, model: `${data.provider}/${data.model}`, demo: data.demo === true };
    case 'end':
      return { ...turn, status: 'done', endedAt: data.endedAt };
    case 'error':
      return { ...turn, status: 'error', endedAt: data.endedAt, error: data.error };
  }
}

/** Applies one event to its run's turn. */
export function applyEventToTurn(turn: AssistantTurn, event: AgentEvent): AssistantTurn {
  if (event.seq <= turn.lastSeq) return turn; // duplicate or replay
  const next = { ...turn, lastSeq: event.seq };
  switch (event.stream) {
    case 'lifecycle':
      return applyLifecycle(next, event.data as LifecycleData);
    case 'assistant':
      return { ...next, parts: appendText(next.parts, (event.data as AssistantData).delta) };
    case 'thinking':
      return { ...next, thinking: next.thinking + (event.data as ThinkingData).delta };
    case 'tool':
      return applyTool(next, event.data as ToolData);
    default:
      return next; // compaction notices come in a later issue
  }
}

/** Applies a batch of events (in arrival order) for one session. */
export function applyEvents(turns: Turn[], events: AgentEvent[], sessionKey: string): Turn[] {
  let out = turns;
  for (const event of events) {
    if (event.sessionKey !== sessionKey) continue;
    out = ensureRunTurn(out, event.runId);
    const index = out.findLastIndex((t) => t.kind === 'assistant' && t.runId === event.runId);
    const turn = out[index] as AssistantTurn;
    const updated = applyEventToTurn(turn, event);
    if (updated !== turn) out = out.map((t, i) => (i === index ? updated : t));
  }
  return out;
}

/** Stored transcript → turns: consecutive assistant/toolResult entries after a user message form one turn. */
export function historyToTurns(entries: HistoryEntry[]): Turn[] {
  const turns: Turn[] = [];
  let current: AssistantTurn | undefined;
  entries.forEach((entry, i) => {
    if (entry.role === 'user') {
      current = undefined;
      turns.push({ kind: 'user', id: `h${i}`, text: entry.text, ts: entry.timestamp });
      return;
    }
    if (!current) {
      current = { ...newAssistantTurn(undefined, `h${i}`), status: 'done' };
      turns.push(current);
    }
    const turn: AssistantTurn = current;
    if (entry.role === 'assistant') {
      if (entry.thinking) turn.thinking += (turn.thinking ? '\n\n' : '') + entry.thinking;
      const joiner = turn.parts.at(-1)?.kind === 'text' ? '\n\n' : '';
      if (entry.text) turn.parts = appendText(turn.parts, joiner + entry.text);
      for (const call of entry.toolCalls) {
        turn.parts = [...turn.parts, { kind: 'tool', tool: { id: call.id, name: call.name, args: call.arguments, status: 'ok', partial: '' } }];
      }
      if (entry.stopReason === 'error' || entry.errorMessage) {
        turn.status = 'error';
        turn.error = entry.errorMessage ?? 'The run ended with an error.';
      }
      if (entry.stopReason === 'aborted') {
        turn.status = 'error';
        turn.error = entry.errorMessage ?? 'Stopped.';
      }
    } else {
      turn.parts = updateTool(turn.parts, entry.toolCallId, (t) => ({
        ...t,
        status: entry.isError ? 'error' : 'ok',
        result: entry.content,
      }));
    }
  });
  return turns;
}
