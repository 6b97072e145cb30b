/**
 * A provider call that failed, worded for a person (E8): it names the provider as the person configured it
 * ("OpenRouter", "work-proxy" — never the API family underneath) and the key by its label ("key 'work'"), says
 * what happened in words (never the internal category, e.g. "auth:" or "rate_limit:"), then the status and the
 * provider's own detail (keys already redacted by the caller).
 */
import type { FailoverReasonDto } from '../contract.js';

/** How the well-known providers write their names; any other provider is named as configured. */
const KNOWN_NAMES: Readonly<Record<string, string>> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  openrouter: 'OpenRouter',
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  vllm: 'vLLM',
  deepseek: 'DeepSeek',
  groq: 'Groq',
  mistral: 'Mistral',
  xai: 'xAI',
  together: 'Together AI',
  google: 'Google',
  gemini: 'Gemini',
};

/** "anthropic" → "Anthropic"; "fakeant" → "fakeant" (a configured name is kept as the person wrote it). */
export function providerLabel(provider: string): string {
  return KNOWN_NAMES[provider] ?? provider;
}

/** The label of a key profile id ("anthropic:work" → "work"); the id itself when it has no "provider:" part. */
export function keyLabel(profileId: string): string {
  const i = profileId.indexOf(':');
  return i > 0 && i < profileId.length - 1 ? profileId.slice(i + 1) : profileId;
}

/** "Anthropic key 'work'" — how a message names a key. */
export function keyName(provider: string, profileId: string): string {
  return `${providerLabel(provider)} key '${keyLabel(profileId)}'`;
}

export interface ProviderFailure {
  reason: FailoverReasonDto;
  /** The provider as configured ("anthropic", "openrouter"), or a display name the caller already has. */
  provider?: string;
  /** The key profile the call used ("anthropic:work"), when one did. */
  profileId?: string | null;
  /** "(401)" or "(overloaded_error)": the HTTP status or the provider's code; empty when neither is known. */
  tag?: string;
  /** The provider's own text, one line. */
  detail: string;
  /** For a connection failure: the network error code underneath (ENOTFOUND, ECONNREFUSED…). */
  network?: string;
}

/** Why a connection failed, in words, from the network error underneath (specific: the words name the code). */
function connectionWords(network: string | undefined, detail: string): { words: string; specific: boolean } {
  const code = `${network ?? ''} ${detail}`;
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(code)) return { words: 'its server name could not be resolved (check the base URL and the network)', specific: true };
  if (/ECONNREFUSED/.test(code)) return { words: 'nothing answered at its address (connection refused: is the server running, is the base URL right?)', specific: true };
  return { words: 'the connection failed or timed out', specific: false };
}

/** One line for a person; see the file comment. */
export function providerFailureText(f: ProviderFailure): string {
  const p = f.provider ? providerLabel(f.provider) : 'The provider';
  const key = f.profileId && f.provider ? `${keyName(f.provider, f.profileId)}` : undefined;
  const tag = f.tag ?? '';
  const d = f.detail;
  switch (f.reason) {
    case 'auth':
      return key ? `${key} was rejected${tag}: ${d}` : `${p} rejected the API key${tag}: ${d}`;
    case 'billing':
      return key ? `${key} has a billing or quota problem${tag}: ${d}` : `${p} billing or quota problem${tag}: ${d}`;
    case 'rate_limit':
      return key ? `${key} hit a rate limit${tag}: ${d}` : `${p} rate limit reached${tag}: ${d}`;
    case 'overloaded':
      return `${p} is overloaded${tag}: ${d}`;
    case 'timeout': {
      const why = connectionWords(f.network, d);
      return `Could not reach ${f.provider ? p : 'the provider'}: ${why.words}${why.specific ? '' : tag}: ${d}`;
    }
    case 'server_error':
      return `${p} server error${tag}: ${d}`;
    case 'format':
      return `${p} rejected the request${tag}: ${d}`;
    case 'model_not_found':
      return `Model not found at ${f.provider ? p : 'the provider'}${tag}: ${d}`;
    case 'context_overflow':
      return `The conversation is too long for the model's context window${tag}: ${d}`;
    case 'aborted':
      return `Request aborted: ${d}`;
    case 'unknown':
      return `${p} error${tag}: ${d}`;
  }
}

/**
 * Settings › Providers could not fetch the model list: "Could not list the models of URL: 404 (no details)". An
 * empty body ("404 {}") is said in words; the window adds how to type the models instead.
 */
export function modelListFailedText(baseUrl: string, why: string): string {
  const empty = /^(\d{3})\s*(?:\{\s*\}|\[\s*\]|""|null)?\s*$/.exec(why.trim());
  return `Could not list the models of ${baseUrl}: ${empty ? `${empty[1]} (the server sent no details)` : why}`;
}
