/**
 * OpenAI Chat Completions wire format: data-only SSE chunks, role on the first
 * delta, id/type/name on the first tool-call delta, a `choices:[]` usage chunk when
 * `stream_options.include_usage`, `[DONE]`, `x-request-id`, `{"error":{…}}` bodies.
 * The same server answers the Responses API at `/v1/responses` (openai-responses.ts).
 */
import { openaiHttpError, openaiPlainError } from './errors.js';
import { RESPONSES_PATH, responsesJsonBody, responsesStreamErrorFrame, responsesStreamFrames } from './openai-responses.js';
import { chunkText, sseFrame } from './sse.js';
import { argsText, headerOf, jsonReply, modelOf, outputTokens, promptTokens, stopOf } from './turn.js';
import type { ApiAdapter, FakeFault, FakeTurn, RecordedRequest, TurnIds } from './types.js';

const FINISH: Record<NonNullable<FakeTurn['stopReason']>, string> = {
  stop: 'stop',
  toolUse: 'tool_calls',
  length: 'length',
};

const CREATED = 1764450000;

function usageOf(turn: FakeTurn, req: RecordedRequest) {
  const cached = turn.usage?.cacheRead ?? 0;
  // OpenAI's prompt_tokens includes cached tokens; there is no cache-write counter.
  const prompt = (turn.usage?.input ?? promptTokens(req)) + cached;
  const completion = turn.usage?.output ?? outputTokens(turn);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function streamFrames(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): string[] {
  if (req.path === RESPONSES_PATH) return responsesStreamFrames(turn, req, ids);
  const size = turn.chunkSize ?? 12;
  const includeUsage = req.body?.stream_options?.include_usage === true;
  const base = {
    id: ids.messageId,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: modelOf(req, 'gpt-fake'),
    system_fingerprint: 'fp_fake',
  };
  const f: string[] = [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    f.push(
      sseFrame(null, {
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(includeUsage ? { usage: null } : {}),
      }),
    );
  chunk({ role: 'assistant', content: '', refusal: null });
  if (turn.thinking !== undefined) {
    for (const piece of chunkText(turn.thinking, size)) chunk({ reasoning_content: piece });
  }
  if (turn.text !== undefined) {
    for (const piece of chunkText(turn.text, size)) chunk({ content: piece });
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    const id = call.id ?? ids.toolCallId(index);
    chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] });
    const raw = argsText(call);
    if (raw.length > 0) {
      for (const piece of chunkText(raw, size)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  chunk({}, turn.finishReason ?? FINISH[stopOf(turn)]);
  if (includeUsage) f.push(sseFrame(null, { ...base, choices: [], usage: usageOf(turn, req) }));
  f.push(sseFrame(null, '[DONE]'));
  return f;
}

function jsonBody(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): unknown {
  if (req.path === RESPONSES_PATH) return responsesJsonBody(turn, req, ids);
  const calls = (turn.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? ids.toolCallId(index),
    type: 'function',
    function: { name: call.name, arguments: argsText(call) },
  }));
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: turn.text ?? null,
    refusal: null,
    annotations: [],
  };
  if (turn.thinking !== undefined) message.reasoning_content = turn.thinking;
  if (calls.length > 0) message.tool_calls = calls;
  return {
    id: ids.messageId,
    object: 'chat.completion',
    created: CREATED,
    model: modelOf(req, 'gpt-fake'),
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, message, logprobs: null, finish_reason: turn.finishReason ?? FINISH[stopOf(turn)] }],
    usage: usageOf(turn, req),
  };
}

export const openaiAdapter: ApiAdapter = {
  api: 'openai',
  basePath: '/v1',
  requestIdHeader: 'x-request-id',
  isModelCall: (method, path) => method === 'POST' && (path === '/v1/chat/completions' || path === RESPONSES_PATH),
  sideEndpoint(method, path) {
    if (method === 'GET' && path === '/v1/models') {
      return jsonReply({ object: 'list', data: [{ id: 'gpt-fake', object: 'model', created: CREATED, owned_by: 'fake' }] });
    }
    return null;
  },
  apiKey(req) {
    return headerOf(req, 'authorization')?.match(/^Bearer\s+(.+)$/i)?.[1] ?? null;
  },
  streamFrames,
  jsonBody,
  streamErrorFrame(fault: Extract<FakeFault, { kind: 'stream_error' }>, req?: RecordedRequest) {
    if (req?.path === RESPONSES_PATH) return responsesStreamErrorFrame(fault);
    const error = {
      message: fault.message ?? 'The server had an error while processing your request. Sorry about that!',
      type: fault.errorType ?? 'server_error',
      param: null,
      code: null,
    };
    return sseFrame(null, { error });
  },
  httpError: (fault, req) => openaiHttpError(fault, req, req ? openaiAdapter.apiKey(req) : null),
  plainError: (status, type, message) => openaiPlainError(status, type, message),
  overflowReply: (tokens, window) => ({
    status: 400,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      error: {
        message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    }),
  }),
};
