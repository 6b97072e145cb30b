/**
 * Pure conversion of a StreamRequest into OpenAI Responses API parameters (`POST /responses`, stream, store:false),
 * and the small mappers for what comes back (usage, stop reason).
 *
 * - Reasoning is carried between turns statelessly: a thinking block this API produced (same provider) goes back
 *   as its `reasoning` item with the unmodified `encrypted_content` (requested via `include`), followed by the
 *   items it came with (message, function_call) under their original ids.
 * - Every function_call is answered: a call without a function_call_output gets the placeholder output "aborted"
 *   (what this API expects; inventory §11), and an output answering no call is dropped — the API rejects both.
 */
import type OpenAI from 'openai';
import type { AssistantMessage, Attachment, Message, StopReason, Usage } from '../engine/messages.js';
import { dataUrl, sendableImages } from './images.js';
import { mapOpenAIUsage } from './openai-convert.js';
import { openAIEffort } from './thinking.js';
import type { ModelDef, StreamRequest, ToolSpec } from './types.js';

type InputItem = OpenAI.Responses.ResponseInputItem;
type StreamingParams = OpenAI.Responses.ResponseCreateParamsStreaming;

/** Output of a function_call that has no result in the history. */
export const RESPONSES_MISSING_OUTPUT = 'aborted';

export function toResponsesTools(tools: ToolSpec[]): OpenAI.Responses.FunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false, // our schemas are not strict-mode schemas (optional properties)
  }));
}

/** Reasoning items can only be replayed to the provider (and API) that encrypted them. */
const ownReasoning = (m: AssistantMessage, model: ModelDef): boolean =>
  m.api === 'openai-responses' && m.provider === model.provider;

function assistantItems(m: AssistantMessage, model: ModelDef): InputItem[] {
  const own = ownReasoning(m, model);
  const out: InputItem[] = [];
  for (const b of m.content) {
    if (b.type === 'thinking') {
      // Without its encrypted content a reasoning item cannot be sent back (store:false); other thinking is dropped.
      if (!own || b.itemId === undefined || b.encrypted === undefined) continue;
      out.push({
        type: 'reasoning',
        id: b.itemId,
        summary: b.thinking === '' ? [] : [{ type: 'summary_text', text: b.thinking }],
        encrypted_content: b.encrypted,
      });
    } else if (b.type === 'text') {
      if (b.text.trim() === '') continue;
      if (own && b.itemId !== undefined) {
        out.push({
          type: 'message',
          id: b.itemId,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: b.text, annotations: [] }],
        });
      } else {
        out.push({ role: 'assistant', content: b.text });
      }
    } else {
      out.push({
        type: 'function_call',
        call_id: b.id,
        name: b.name,
        arguments: JSON.stringify(b.arguments),
        ...(own && b.itemId !== undefined ? { id: b.itemId } : {}),
      });
    }
  }
  return out;
}

/**
 * Message[] → Responses input items. Failed (error/aborted) assistant turns are expected to be left out by the
 * caller (attempt.ts buildContext), which also moves results right after their calls. Pairing is enforced here
 * again because this API rejects any gap: each assistant turn's calls get exactly one output before the next
 * user or assistant message — a missing one gets RESPONSES_MISSING_OUTPUT, an output answering no open call of
 * the latest turn (orphan, duplicate) is dropped.
 */
export function toResponsesInput(messages: Message[], model: ModelDef): InputItem[] {
  const items: InputItem[] = [];
  let open: string[] = [];
  const closeTurn = () => {
    for (const id of open) items.push({ type: 'function_call_output', call_id: id, output: RESPONSES_MISSING_OUTPUT });
    open = [];
  };
  for (const m of messages) {
    if (m.role === 'toolResult') {
      const i = open.indexOf(m.toolCallId);
      if (i < 0) continue;
      open.splice(i, 1);
      const text = m.content === '' ? '(no output)' : m.content;
      const images = m.isError ? [] : inputImages(m.images);
      // X3: a result with images is a list of parts (input_text, then input_image).
      items.push({ type: 'function_call_output', call_id: m.toolCallId, output: images.length ? [{ type: 'input_text', text }, ...images] : text });
      continue;
    }
    closeTurn();
    if (m.role === 'user') {
      const images = inputImages(m.attachments);
      if (images.length) items.push({ role: 'user', content: [{ type: 'input_text', text: m.content }, ...images] });
      else if (m.content.trim() !== '') items.push({ role: 'user', content: m.content });
      continue;
    }
    for (const it of assistantItems(m, model)) {
      if (it.type === 'function_call') {
        if (open.includes(it.call_id)) continue; // a repeated call id within one turn
        open.push(it.call_id);
      }
      items.push(it);
    }
  }
  closeTurn();
  return items;
}

/** X3: images as Responses `input_image` parts (base64 data URLs). */
const inputImages = (images: readonly Attachment[] | undefined): Array<{ type: 'input_image'; image_url: string; detail: 'auto' }> =>
  sendableImages(images).map((img) => ({ type: 'input_image', image_url: dataUrl(img), detail: 'auto' }));

export function toResponsesParams(req: StreamRequest): StreamingParams {
  const params: StreamingParams = {
    model: req.model.id,
    input: toResponsesInput(req.messages, req.model),
    stream: true,
    store: false,
    max_output_tokens: req.model.maxTokens,
  };
  if (req.systemPrompt.trim() !== '') params.instructions = req.systemPrompt;
  if (req.tools.length > 0) {
    params.tools = toResponsesTools(req.tools);
    params.tool_choice = 'auto';
  }
  const effort = openAIEffort(req.model, req.thinking);
  if (effort) {
    params.reasoning = { effort, summary: 'auto' };
    params.include = ['reasoning.encrypted_content'];
  }
  return params;
}

export interface ResponsesUsageFields {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
}

/** Same accounting as Chat Completions (input_tokens includes the cached ones), under other names. */
export function mapResponsesUsage(u: ResponsesUsageFields): Usage {
  return mapOpenAIUsage({
    prompt_tokens: u.input_tokens,
    completion_tokens: u.output_tokens,
    prompt_tokens_details: u.input_tokens_details,
  });
}

/**
 * The stop reason of a finished response: `incomplete` for max_output_tokens is `length`; a response that made
 * function calls is `toolUse`; anything else (`completed`, content_filter) is `stop`.
 */
export function mapResponsesStop(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  madeToolCalls: boolean,
): Exclude<StopReason, 'error' | 'aborted'> {
  if (status === 'incomplete' && incompleteReason === 'max_output_tokens') return 'length';
  return madeToolCalls ? 'toolUse' : 'stop';
}
