/**
 * Pure conversion of a StreamRequest into Anthropic Messages API parameters, and the small mappers for what comes
 * back (stop reason, usage).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Attachment, Message, StopReason, Usage } from '../engine/messages.js';
import { sendableImages } from './images.js';
import type { ModelDef, StreamRequest, ThinkingLevel, ToolSpec } from './types.js';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type StreamingParams = Anthropic.Messages.MessageCreateParamsStreaming;

/** E21: thinking budget per level (Anthropic requires ≥ 1024 and < max_tokens). */
export const ANTHROPIC_THINKING_BUDGET: Record<Exclude<ThinkingLevel, 'off'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/** Output room kept above the thinking budget when max_tokens has to be raised. */
const ANSWER_ROOM = 4096;

/** An image as an Anthropic `image` block (X3; only images whose bytes were put back for the request). */
const imageBlocks = (images: readonly Attachment[] | undefined): Anthropic.Messages.ImageBlockParam[] =>
  sendableImages(images).map((img) => ({ type: 'image', source: { type: 'base64', media_type: img.mimeType as 'image/png', data: img.data } }));

/** A tool result's content: its text, and (X1 MCP results, the read tool) its images as image blocks after the text. */
function toolResultContent(m: Extract<Message, { role: 'toolResult' }>): string | Anthropic.Messages.ToolResultBlockParam['content'] {
  const text = m.content === '' ? '(no output)' : m.content;
  const images = m.isError ? [] : imageBlocks(m.images);
  if (images.length === 0) return text;
  return [{ type: 'text', text }, ...images];
}

/** Anthropic tool_use ids must match ^[a-zA-Z0-9_-]+$; ids from other providers may not. */
export const sanitizeToolId = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';

export function thinkingParams(
  model: ModelDef,
  level: ThinkingLevel,
): { max_tokens: number; thinking?: Anthropic.Messages.ThinkingConfigEnabled } {
  if (level === 'off' || !model.reasoning) return { max_tokens: model.maxTokens };
  const budget = ANTHROPIC_THINKING_BUDGET[level];
  const max_tokens = model.maxTokens > budget ? model.maxTokens : budget + ANSWER_ROOM;
  return { max_tokens, thinking: { type: 'enabled', budget_tokens: budget } };
}

export function toAnthropicTools(tools: ToolSpec[]): Anthropic.Messages.Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Messages.Tool.InputSchema,
  }));
}

/**
 * Message[] → Anthropic messages. Consecutive tool results (and any user text after them) merge into one user
 * message; thinking goes back with its signature unmodified; thinking without a signature (another provider's,
 * or cut off before its signature) cannot be replayed and is dropped; empty text is skipped.
 */
export function toAnthropicMessages(messages: Message[]): MessageParam[] {
  const out: MessageParam[] = [];
  const pushBlocks = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) {
      (last.content as ContentBlockParam[]).push(...blocks);
    } else {
      out.push({ role, content: blocks });
    }
  };

  for (const m of messages) {
    if (m.role === 'user') {
      // X3: attached images first, then the text (the order Anthropic recommends).
      pushBlocks('user', [...imageBlocks(m.attachments), ...(m.content.trim() !== '' ? [{ type: 'text' as const, text: m.content }] : [])]);
    } else if (m.role === 'toolResult') {
      pushBlocks('user', [
        {
          type: 'tool_result',
          tool_use_id: sanitizeToolId(m.toolCallId),
          content: toolResultContent(m),
          is_error: m.isError,
        },
      ]);
    } else {
      const blocks: ContentBlockParam[] = [];
      for (const b of m.content) {
        if (b.type === 'text') {
          if (b.text.trim() !== '') blocks.push({ type: 'text', text: b.text });
        } else if (b.type === 'thinking') {
          if (b.redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: b.redacted });
          else if (b.signature) blocks.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
        } else {
          blocks.push({ type: 'tool_use', id: sanitizeToolId(b.id), name: b.name, input: b.arguments });
        }
      }
      pushBlocks('assistant', blocks);
    }
  }
  return out;
}

export function toAnthropicParams(req: StreamRequest): StreamingParams {
  const params: StreamingParams = {
    model: req.model.id,
    messages: toAnthropicMessages(req.messages),
    stream: true,
    ...thinkingParams(req.model, req.thinking),
  };
  if (req.systemPrompt.trim() !== '') {
    params.system = [{ type: 'text', text: req.systemPrompt, cache_control: { type: 'ephemeral' } }];
  }
  if (req.tools.length > 0) params.tools = toAnthropicTools(req.tools);
  return params;
}

export function mapAnthropicStopReason(reason: string | null | undefined): Exclude<StopReason, 'error' | 'aborted'> {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'toolUse';
    default:
      // end_turn, stop_sequence, pause_turn, refusal, and anything new.
      return 'stop';
  }
}

export interface AnthropicUsageFields {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Merges a usage report into the running usage. message_delta usage is cumulative: output always overwrites, the
 * other counters only when present (as the SDK does).
 */
export function mergeAnthropicUsage(prev: Usage, u: AnthropicUsageFields): Usage {
  const input = u.input_tokens ?? prev.input;
  const cacheRead = u.cache_read_input_tokens ?? prev.cacheRead;
  const cacheWrite = u.cache_creation_input_tokens ?? prev.cacheWrite;
  const output = u.output_tokens ?? prev.output;
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}
