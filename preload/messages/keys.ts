/**
 * E6/D5 the keys of a provider: none configured, or every one cooling down after errors. Each says what
 * happened and what to do about it.
 */
import type { FailoverReasonDto } from '../contract.js';
import { formatWait } from './format.js';
import { keyLabel, providerLabel } from './providers.js';
import { TRIED_REASON } from './retry.js';

export interface NoKey {
  /** The provider as configured. */
  provider: string;
  /** The environment variable that would hold its key (ANTHROPIC_API_KEY, a profile's apiKeyEnv), if any. */
  envHint?: string;
  /** Why the OS keychain cannot be read, when it cannot: then `auth add` could not store a key either. */
  keychainProblem?: string;
}

/**
 * `No API key for provider "anthropic": set ANTHROPIC_API_KEY, or add one with: agentdesk auth add --provider
 * anthropic --label default.` — without a keychain only the environment variable is offered.
 */
export function noKeyText(k: NoKey): string {
  const add = `add one with: agentdesk auth add --provider ${k.provider} --label default (or in the app: Settings › Keys)`;
  if (k.keychainProblem) {
    const how = k.envHint ? `set ${k.envHint}` : `give the provider an "apiKeyEnv" in config.json and set that variable`;
    const why = k.keychainProblem.replace(/^No OS keychain is available: /, '');
    return `No API key for provider "${k.provider}": ${how}. (No OS keychain is available: ${why}; keys cannot be stored until it is.)`;
  }
  return `No API key for provider "${k.provider}": ${[k.envHint ? `set ${k.envHint}` : undefined, add].filter(Boolean).join(', or ')}.`;
}

export interface AllCooling {
  provider: string;
  keys: { profileId: string; reason: FailoverReasonDto }[];
  /** Milliseconds until the first key is ready again. */
  readyInMs: number;
}

/**
 * "Every key of Anthropic is cooling down after errors (work: key rejected, home: rate limit); the first is ready
 * again in 4 min. Wait, fix or add a key in Settings › Keys (agentdesk auth add), or pick another model."
 */
export function allKeysCoolingText(c: AllCooling): string {
  const list = c.keys.map((k) => `'${keyLabel(k.profileId)}': ${TRIED_REASON[k.reason] ?? 'error'}`).join(', ');
  const fix = c.keys.some((k) => k.reason === 'auth' || k.reason === 'billing')
    ? 'Fix or replace the key in Settings › Keys (or agentdesk auth add), or pick another model.'
    : 'Wait, add another key in Settings › Keys (or agentdesk auth add), or pick another model.';
  return `Every key of ${providerLabel(c.provider)} is cooling down after errors (${list}); the first is ready again in ${formatWait(c.readyInMs)}. ${fix}`;
}
