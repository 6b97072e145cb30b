/**
 * Pure conversion of a StreamRequest into OpenAI Chat Completions parameters, and the small mappers for what
 * comes back (finish reason, usage). Works for OpenAI and OpenAI-compatible servers (Ollama, LM Studio, vLLM…).
 */
import type OpenAI from 'openai';
import type { Attachment, Message, StopReason, Usage } from '../engine/messages.js';
import { dataUrl, sendableImages } from './images.js';
import { openAIEffort } from './thinking.js';
import type { StreamRequest, ToolSpec } from './types.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type StreamingParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

export function toOpenAITools(tools: ToolSpec[]): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/**
 * Message[] → chat messages. Thinking is not sent back (servers differ on whether they accept it); an assistant
 * turn with neither text nor tool calls is left out; tool results become `role: "tool"` messages.
 */
export function toOpenAIMessages(systemPrompt: string, messages: Message[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (systemPrompt.trim() !== '') out.push({ role: 'system', content: systemPrompt });
  // A `tool` message carries text only: the images of a run of tool results follow it as one user message (X3).
  let toolImages: ChatImage[] = [];
  const flushToolImages = () => {
    if (toolImages.length === 0) return;
    out.push({ role: 'user', content: [{ type: 'text', text: 'The images the tool results above returned:' }, ...toolImages] });
    toolImages = [];
  };
  for (const m of messages) {
    if (m.role !== 'toolResult') flushToolImages();
    if (m.role === 'user') {
      const images = imageParts(m.attachments);
      out.push({ role: 'user', content: images.length ? [{ type: 'text', text: m.content }, ...images] : m.content });
    } else if (m.role === 'toolResult') {
      out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
      if (!m.isError) toolImages.push(...imageParts(m.images));
    } else {
      const text = m.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
      const calls = m.content.flatMap((b) =>
        b.type === 'toolCall'
          ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.arguments) } }]
          : [],
      );
      if (text.trim() === '' && calls.length === 0) continue;
      const msg: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: text.trim() === '' ? null : text,
      };
      if (calls.length > 0) msg.tool_calls = calls;
      out.push(msg);
    }
  }
  flushToolImages();
  return out;
}

type ChatImage = OpenAI.Chat.Completions.ChatCompletionContentPartImage;

/** X3: images as OpenAI Chat `image_url` parts (base64 data URLs). */
const imageParts = (images: readonly Attachment[] | undefined): ChatImage[] =>
  sendableImages(images).map((img) => ({ type: 'image_url', image_url: { url: dataUrl(img) } }));

export function toOpenAIParams(req: StreamRequest): StreamingParams {
  const params: StreamingParams = {
    model: req.model.id,
    messages: toOpenAIMessages(req.systemPrompt, req.messages),
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: req.model.maxTokens,
  };
  if (req.tools.length > 0) {
    params.tools = toOpenAITools(req.tools);
    params.tool_choice = 'auto'; // only with tools: some compatible servers reject tool_choice alone
  }
  // E21: reasoning effort, only for models that reason, mapped per model.
  const effort = openAIEffort(req.model, req.thinking);
  if (effort) params.reasoning_effort = effort;
  return params;
}

export function mapOpenAIFinishReason(reason: string | null | undefined): Exclude<StopReason, 'error' | 'aborted'> {
  switch (reason) {
    case 'length':
    case 'max_tokens':
    case 'model_length': // Mistral: the context window ended the output
      return 'length';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'toolUse';
    default:
      // stop, content_filter (the answer as far as it was let through), and the other servers' names for a stop.
      return 'stop';
  }
}

/** finish_reason values that end a completed answer. Anything else ends a completion the provider failed. */
const ANSWER_FINISH = new Set([
  'stop',
  'length',
  'tool_calls',
  'function_call',
  'content_filter',
  'max_tokens',
  'model_length',
  'tool_use',
  'end_turn',
  'stop_sequence',
  'end',
  'eos',
]);

/**
 * A completion the provider ended with a failure — finish_reason "error" (OpenRouter, Gemini), "network_error",
 * "abort" (vLLM), "malformed_response", DeepSeek's "insufficient_system_resource", or anything unknown — is not
 * an answer: the text for the error the stream ends with (classified, retried and failed over like any provider
 * error: "error" → server_error, "network_error" → timeout). Undefined for an answer.
 */
export function openAIFinishFailure(reason: string | null | undefined): string | undefined {
  if (reason === null || reason === undefined || ANSWER_FINISH.has(reason)) return undefined;
  return `Provider finish_reason: ${reason}`;
}

export interface OpenAIUsageFields {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

export function mapOpenAIUsage(u: OpenAIUsageFields): Usage {
  const prompt = u.prompt_tokens ?? 0;
  const cacheRead = Math.min(u.prompt_tokens_details?.cached_tokens ?? 0, prompt);
  const input = prompt - cacheRead;
  const output = u.completion_tokens ?? 0;
  return { input, output, cacheRead, cacheWrite: 0, total: input + cacheRead + output };
}
