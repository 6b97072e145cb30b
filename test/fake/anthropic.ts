/**
 * Anthropic Messages wire format: named SSE events, `request-id` header,
 * `{"type":"error","error":{…}}` bodies. Accepts `Authorization: Bearer` (SDK 1.x) and `x-api-key` (0.x).
 */
import { anthropicHttpError, anthropicPlainError } from './errors.js';
import { chunkText, sseFrame } from './sse.js';
import { argsObject, argsText, headerOf, jsonReply, modelOf, outputTokens, promptTokens, stopOf } from './turn.js';
import type { ApiAdapter, FakeFault, FakeTurn, RecordedRequest, TurnIds } from './types.js';

const STOP: Record<NonNullable<FakeTurn['stopReason']>, string> = {
  stop: 'end_turn',
  toolUse: 'tool_use',
  length: 'max_tokens',
};

/** A fake but stable-looking thinking signature. */
const signatureFor = (thinking: string): string =>
  'EqQBCkgIARABGAIiQ' + Buffer.from(thinking.slice(0, 24)).toString('base64') + '==';

function usageStart(turn: FakeTurn, req: RecordedRequest) {
  return {
    input_tokens: turn.usage?.input ?? promptTokens(req),
    cache_creation_input_tokens: turn.usage?.cacheWrite ?? 0,
    cache_read_input_tokens: turn.usage?.cacheRead ?? 0,
    output_tokens: 1,
  };
}

function streamFrames(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): string[] {
  const size = turn.chunkSize ?? 12;
  const f: string[] = [];
  const ev = (type: string, data: Record<string, unknown>) => f.push(sseFrame(type, { type, ...data }));
  ev('message_start', {
    message: {
      id: ids.messageId,
      type: 'message',
      role: 'assistant',
      model: modelOf(req, 'claude-fake'),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageStart(turn, req),
    },
  });
  ev('ping', {});
  let index = 0;
  if (turn.thinking !== undefined) {
    ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const piece of chunkText(turn.thinking, size)) {
      ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
    }
    ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: signatureFor(turn.thinking) } });
    ev('content_block_stop', { index });
    index++;
  }
  if (turn.text !== undefined) {
    ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of chunkText(turn.text, size)) {
      ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    }
    ev('content_block_stop', { index });
    index++;
  }
  (turn.toolCalls ?? []).forEach((call, i) => {
    const id = call.id ?? ids.toolCallId(i);
    ev('content_block_start', { index, content_block: { type: 'tool_use', id, name: call.name, input: {} } });
    ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    const raw = argsText(call);
    if (raw.length > 0) {
      for (const piece of chunkText(raw, size)) {
        ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    }
    ev('content_block_stop', { index });
    index++;
  });
  ev('message_delta', {
    delta: { stop_reason: STOP[stopOf(turn)], stop_sequence: null },
    usage: { output_tokens: turn.usage?.output ?? outputTokens(turn) },
  });
  ev('message_stop', {});
  return f;
}

function jsonBody(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): unknown {
  const content: unknown[] = [];
  if (turn.thinking !== undefined) {
    content.push({ type: 'thinking', thinking: turn.thinking, signature: signatureFor(turn.thinking) });
  }
  if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
  (turn.toolCalls ?? []).forEach((call, i) => {
    content.push({ type: 'tool_use', id: call.id ?? ids.toolCallId(i), name: call.name, input: argsObject(call) });
  });
  return {
    id: ids.messageId,
    type: 'message',
    role: 'assistant',
    model: modelOf(req, 'claude-fake'),
    content,
    stop_reason: STOP[stopOf(turn)],
    stop_sequence: null,
    usage: { ...usageStart(turn, req), output_tokens: turn.usage?.output ?? outputTokens(turn) },
  };
}

export const anthropicAdapter: ApiAdapter = {
  api: 'anthropic',
  basePath: '',
  requestIdHeader: 'request-id',
  isModelCall: (method, path) => method === 'POST' && path === '/v1/messages',
  sideEndpoint(method, path, req) {
    if (method === 'POST' && path === '/v1/messages/count_tokens') {
      return jsonReply({ input_tokens: promptTokens(req) });
    }
    if (method === 'GET' && path === '/v1/models') {
      const data = [{ type: 'model', id: 'claude-fake', display_name: 'Claude Fake', created_at: '2026-01-01T00:00:00Z' }];
      return jsonReply({ data, has_more: false, first_id: 'claude-fake', last_id: 'claude-fake' });
    }
    return null;
  },
  apiKey(req) {
    const auth = headerOf(req, 'authorization');
    const bearer = auth?.match(/^Bearer\s+(.+)$/i)?.[1];
    return bearer ?? headerOf(req, 'x-api-key') ?? null;
  },
  streamFrames,
  jsonBody,
  streamErrorFrame(fault: Extract<FakeFault, { kind: 'stream_error' }>) {
    const error = { type: fault.errorType ?? 'overloaded_error', message: fault.message ?? 'Overloaded' };
    return sseFrame('error', { type: 'error', error });
  },
  httpError: (fault, req, ids) => anthropicHttpError(fault, req, ids.requestId),
  plainError: (status, type, message, ids) => anthropicPlainError(status, type, message, ids.requestId),
  overflowReply: (tokens, window, ids) =>
    anthropicPlainError(400, 'invalid_request_error', `prompt is too long: ${tokens} tokens > ${window} maximum`, ids.requestId),
};
