/**
 * Error classes the providers end a stream with when the SDK itself would not fail (or fails unhelpfully).
 * The engine classifies them by `name` (failover reason "timeout" for the first and last, "aborted" for AbortError).
 */

/** No bytes from the provider for `idleMs` (the SDKs never time out a response body). */
export class IdleTimeoutError extends Error {
  override readonly name = 'IdleTimeoutError';
  constructor(readonly idleMs: number) {
    super(`No data from the provider for ${formatSeconds(idleMs)}`);
  }
}

/** The caller's AbortSignal fired: the engine's one AbortError (`cause` is the signal's reason). */
export { AbortError } from '../engine/abort.js';

/** The HTTP body ended cleanly but without the protocol's terminal event (a silent truncation otherwise). */
export class StreamTruncatedError extends Error {
  override readonly name = 'StreamTruncatedError';
}

/** The provider ended a completion with a failure finish reason (openai-convert.ts `openAIFinishFailure`). */
export class ProviderFinishError extends Error {
  override readonly name = 'ProviderFinishError';
}

export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? `${s}s` : `${s.toFixed(1)}s`;
}

/** A short human-readable description of anything thrown. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const api = apiErrorText(err);
    if (api) return api;
    const msg = err.message || err.name;
    const status = (err as { status?: unknown }).status;
    if (/<html|<!doctype/i.test(msg)) {
      return `${typeof status === 'number' ? `${status} ` : ''}The provider answered with an HTML error page`;
    }
    // undici's "terminated" says nothing to a person reading the chat.
    if (err instanceof TypeError && msg === 'terminated') return 'Connection to the provider was lost (terminated)';
    return msg;
  }
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * Anthropic SDK errors carry the whole JSON body in their message; prefer "<status> <api message> (<type>)".
 * (OpenAI SDK messages are already "<status> <api message>".)
 */
function apiErrorText(err: Error): string | undefined {
  const e = err as Error & { status?: unknown; apiMessage?: unknown; type?: unknown; error?: unknown };
  let msg = typeof e.apiMessage === 'string' && e.apiMessage !== '' ? e.apiMessage : undefined;
  if (msg === undefined && isRecord(e.error) && isRecord(e.error.error) && typeof e.error.error.message === 'string') {
    msg = e.error.error.message;
  }
  if (msg === undefined) return undefined;
  const type = typeof e.type === 'string' && e.type !== '' ? ` (${e.type})` : '';
  return `${typeof e.status === 'number' ? `${e.status} ` : ''}${msg}${type}`;
}
