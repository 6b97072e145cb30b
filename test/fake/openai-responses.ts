/**
 * OpenAI Responses wire format, served by the fake OpenAI server at `POST /v1/responses`:
 * named SSE events (`event:` equal to `data.type`) with a `sequence_number`; response.created → in_progress →
 * a reasoning item (summary deltas, encrypted_content when `include` asks for it) → a message item (output_text
 * deltas) → function_call items (argument deltas) → response.completed (or response.incomplete for `length`)
 * with usage. The in-stream error is the nested `error` event the real API sends.
 */
import { chunkText, estimateTokens, sseFrame } from './sse.js';
import { argsText, modelOf, outputTokens, stopOf } from './turn.js';
import type { FakeFault, FakeTurn, RecordedRequest, TurnIds } from './types.js';

const CREATED = 1764450000;

/** The path of the Responses endpoint (relative to the server root). */
export const RESPONSES_PATH = '/v1/responses';

/** A stable fake encrypted_content for a reasoning item; tests check it comes back unmodified. */
export const encryptedFor = (itemId: string): string => `gAAAAB-fake-${Buffer.from(itemId).toString('base64')}`;

/** Default prompt size: instructions, input and tools at chars/4. */
export function responsesPromptTokens(req: RecordedRequest): number {
  const b = req.body ?? {};
  return estimateTokens(JSON.stringify([b.instructions ?? '', b.input ?? [], b.tools ?? []]));
}

function usageOf(turn: FakeTurn, req: RecordedRequest) {
  const cached = turn.usage?.cacheRead ?? 0;
  const input = (turn.usage?.input ?? responsesPromptTokens(req)) + cached;
  const output = turn.usage?.output ?? outputTokens(turn);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: turn.thinking ? estimateTokens(turn.thinking) : 0 },
    total_tokens: input + output,
  };
}

const tagOf = (ids: TurnIds) => ids.seq.toString(36).padStart(4, '0');

/** The output items of a finished turn, as `response.completed` lists them. */
function outputItems(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): Record<string, unknown>[] {
  const tag = tagOf(ids);
  const wantsEncrypted = Array.isArray(req.body?.include) && req.body.include.includes('reasoning.encrypted_content');
  const items: Record<string, unknown>[] = [];
  if (turn.thinking !== undefined) {
    const id = `rs_fake${tag}`;
    items.push({
      id,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: turn.thinking }],
      ...(wantsEncrypted ? { encrypted_content: encryptedFor(id) } : {}),
    });
  }
  if (turn.text !== undefined) {
    items.push({
      id: `msg_fake${tag}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [], logprobs: [] }],
    });
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    items.push({
      id: `fc_fake${tag}_${index}`,
      type: 'function_call',
      status: 'completed',
      name: call.name,
      call_id: call.id ?? ids.toolCallId(index),
      arguments: argsText(call),
    });
  });
  return items;
}

function responseObject(turn: FakeTurn, req: RecordedRequest, ids: TurnIds, status: string, output: unknown[], usage: unknown) {
  return {
    id: `resp_fake${tagOf(ids)}`,
    object: 'response',
    created_at: CREATED,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: req.body?.instructions ?? null,
    max_output_tokens: req.body?.max_output_tokens ?? null,
    model: modelOf(req, 'gpt-fake'),
    output,
    parallel_tool_calls: true,
    reasoning: req.body?.reasoning ?? { effort: null, summary: null },
    store: req.body?.store ?? true,
    tool_choice: req.body?.tool_choice ?? 'auto',
    tools: req.body?.tools ?? [],
    usage,
  };
}

export function responsesStreamFrames(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): string[] {
  const size = turn.chunkSize ?? 12;
  const frames: string[] = [];
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => frames.push(sseFrame(type, { type, sequence_number: seq++, ...data }));
  const items = outputItems(turn, req, ids);
  const final = stopOf(turn) === 'length' ? 'incomplete' : 'completed';

  ev('response.created', { response: responseObject(turn, req, ids, 'in_progress', [], null) });
  ev('response.in_progress', { response: responseObject(turn, req, ids, 'in_progress', [], null) });
  items.forEach((item, output_index) => {
    const item_id = item.id as string;
    if (item.type === 'reasoning') {
      const text = turn.thinking ?? '';
      ev('response.output_item.added', { output_index, item: { id: item_id, type: 'reasoning', summary: [] } });
      ev('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } });
      for (const delta of chunkText(text, size)) {
        ev('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta });
      }
      ev('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text });
      ev('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text } });
    } else if (item.type === 'message') {
      const text = turn.text ?? '';
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of chunkText(text, size)) {
        ev('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
      }
      ev('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] });
      ev('response.content_part.done', { item_id, output_index, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
    } else {
      const args = item.arguments as string;
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      if (args.length > 0) {
        for (const delta of chunkText(args, size)) ev('response.function_call_arguments.delta', { item_id, output_index, delta });
      }
      ev('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: args });
    }
    ev('response.output_item.done', { output_index, item });
  });
  ev(`response.${final}`, { response: responseObject(turn, req, ids, final, items, usageOf(turn, req)) });
  return frames;
}

export function responsesJsonBody(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): unknown {
  const final = stopOf(turn) === 'length' ? 'incomplete' : 'completed';
  return responseObject(turn, req, ids, final, outputItems(turn, req, ids), usageOf(turn, req));
}

/**
 * The in-stream failure: the nested `error` event the real API sends (the SDK throws APIError on it), the flat
 * `error` event of the SDK's types (openai 6.49 yields it as a normal event), or `response.failed` (resolves).
 */
export function responsesStreamErrorFrame(fault: Extract<FakeFault, { kind: 'stream_error' }>): string {
  const code = fault.errorType ?? 'server_error';
  const message = fault.message ?? 'The server had an error while processing your request. Sorry about that!';
  if (fault.shape === 'flat') return sseFrame('error', { type: 'error', sequence_number: 999, code, message, param: null });
  if (fault.shape === 'failed') {
    const response = { id: 'resp_failed', object: 'response', status: 'failed', error: { code, message }, output: [], usage: null };
    return sseFrame('response.failed', { type: 'response.failed', sequence_number: 999, response });
  }
  return sseFrame('error', { type: 'error', sequence_number: 999, error: { type: code, code, message, param: null } });
}

/** Function-call outputs at the end of a Responses `input` (the tool results a scenario answers), or null. */
export function trailingFunctionOutputs(req: RecordedRequest): string | null {
  const input: unknown = req.body?.input;
  if (!Array.isArray(input) || input.length === 0) return null;
  const texts: string[] = [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { type?: unknown; output?: unknown };
    if (item?.type !== 'function_call_output') break;
    texts.unshift(typeof item.output === 'string' ? item.output : JSON.stringify(item.output));
  }
  return texts.length > 0 ? texts.join('\n') : null;
}
