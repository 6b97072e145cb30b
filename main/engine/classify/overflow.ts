/**
 * E8/E18: "the prompt does not fit the model's context window" in the wording of every provider we may reach —
 * the signal for compaction. False positives are costly too (a rate limit or a billing problem compacted away), so
 * the exclusions come first.
 */
import { matches, type Phrases } from './wording.js';

/** "Limit N, [Used U,] Requested M": a request-size ceiling when M > N (can never fit), else a rate limit. */
const LIMIT_REQUESTED = /limit:?\s*([\d,]+)\s*,\s*(?:used:?\s*([\d,]+)\s*,\s*)?requested:?\s*([\d,]+)/i;

const NOT_OVERFLOW: Phrases = [
  // rate limits and quotas (a per-minute token budget is not the context window)
  /\b(?:tpm|rpm|tpd)\b|tokens per (?:min|day)|requests per (?:min|day)|per minute/i,
  /rate[ _]?limit|too many requests|throttl|resource[_ ]?exhausted|quota/i,
  // billing
  /insufficient[_ ]quota|credit balance|billing|payment required|insufficient (?:credits|balance|funds)|out of credits/i,
  // reasoning settings, a window too small to start with, an upload cap
  /budget_tokens|thinking\.budget|reasoning[_ ]effort|max_tokens must be (?:greater|larger)/i,
  /reasoning is mandatory|requires reasoning/i,
  /context window (?:is )?too small|minimum context (?:window|length)/i,
  /upload limit/i,
  /prompt template/i, // LM Studio: "override the prompt template"
];

const OVERFLOW: Phrases = [
  // Anthropic, OpenAI, and the codes some servers put in the text
  /prompt (?:is )?too (?:long|large)/i,
  /request_too_large|request entity too large|payload too large/i,
  /(?:model_)?context_(?:length|window)_exceeded|exceed_context_size_error/i,
  /context (?:length|window|size) (?:has been )?exceeded/i,
  /maximum context length|input token count exceeds the maximum/i,
  /exceeds? (?:the )?(?:model'?s? )?(?:maximum |available )?context (?:window|limit|length|size|budget)/i,
  /input length and `?max_tokens`? exceed context limit/i,
  /reduce the length of the (?:messages|prompt|input)/i,
  // Bedrock, Vertex, Mistral, Cohere, Kimi, TGI, llama.cpp, LM Studio, Codex
  /(?:input|prompt) is too long for (?:the |this )?(?:requested )?model/i,
  /input exceeds the maximum number of tokens/i,
  /tokens? exceeds? the model'?s? (?:maximum )?limit/i,
  /exceeded model token limit/i,
  /request exceeds the maximum size/i,
  /prompt has \d+ tokens, but the configured context size/i,
  /`?inputs`? tokens \+ `?max_new_tokens`? must be|`?inputs`? must have less than \d+ tokens/i,
  /context length of only \d+|when context the overflows/i,
  /ran out of room in the model'?s context window/i,
  /context window is \S+ tokens, you requested/i,
  /^\s*context overflow:/im, // only as an error's own prefix, never in prose about one
  /上下文过长|上下文超出|上下文长度超|超出最大上下文|压缩上下文/, // context too long / exceeded, compress the context
];

const num = (s: string | undefined): number => Number((s ?? '').replace(/,/g, ''));

export function isContextOverflowText(text: string): boolean {
  if (!text) return false;
  const ceiling = LIMIT_REQUESTED.exec(text);
  if (ceiling) return num(ceiling[3]) > num(ceiling[1]);
  if (matches(NOT_OVERFLOW, text)) return false;
  return matches(OVERFLOW, text);
}
