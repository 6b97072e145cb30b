/**
 * Issue 18 item 9: the catalogue of user-facing messages (preload/messages/). Every situation's line, table by
 * table: what it says, that it names the provider as configured and the key by its label, that no internal
 * category ("auth:", "rate_limit:", "bad_request:") or stack trace leaks, and that the window puts each line in
 * the kind of problem it is (its actions follow from that).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FailoverReasonDto, RetryData } from '../../preload/contract.js';
import { keyLabel, keyName, modelListFailedText, providerFailureText, providerLabel } from '../../preload/messages/providers.js';
import { allKeysCoolingText, noKeyText } from '../../preload/messages/keys.js';
import { errorKind, type ErrorKind } from '../../preload/messages/kinds.js';
import { retryLine, RETRY_REASON, TRIED_REASON } from '../../preload/messages/retry.js';
import { requestErrorText, RequestError } from '../../preload/messages/requests.js';
import { cliRefusedLine, deniedByPersonText, NO_TTY_REASON, refusedByPolicyText, refusedUnaskedText, unansweredText } from '../../preload/messages/approvals.js';
import { formatWait } from '../../preload/messages/format.js';
import { keychainFix, noKeychainText, REASON_NO_DBUS } from '../../preload/messages/keychain.js';
import { classifyError } from '../../main/engine/classify.js';

const REASONS: FailoverReasonDto[] = ['rate_limit', 'overloaded', 'billing', 'auth', 'timeout', 'context_overflow', 'format', 'model_not_found', 'server_error', 'aborted', 'unknown'];
/** Internal words a person must never read as a prefix. */
const INTERNAL_PREFIX = /(^|[\s(])(auth|rate_limit|billing|timeout|internal|bad_request|not_found|unknown_method|server_error|model_not_found|context_overflow|format|overloaded|unknown):/;
const STACK = /\n\s+at |\bat \S+ \([^)]*:\d+:\d+\)/;

describe('names', () => {
  it.each([
    ['anthropic', 'Anthropic'],
    ['openai', 'OpenAI'],
    ['openrouter', 'OpenRouter'],
    ['lmstudio', 'LM Studio'],
    ['my-proxy', 'my-proxy'],
  ])('provider %s reads %s', (id, label) => expect(providerLabel(id)).toBe(label));

  it.each([
    ['anthropic:work', 'work'],
    ['openrouter:team:2', 'team:2'],
    ['plain', 'plain'],
  ])('key profile %s is called %s', (id, label) => expect(keyLabel(id)).toBe(label));

  it('a key is named by its provider and label', () => expect(keyName('anthropic', 'anthropic:work')).toBe("Anthropic key 'work'"));
});

describe('a failed provider call', () => {
  const base = { provider: 'anthropic', profileId: 'anthropic:work', tag: ' (401)', detail: 'invalid x-api-key' };
  it.each<[FailoverReasonDto, string, string, ErrorKind]>([
    ['auth', ' (401)', "Anthropic key 'work' was rejected (401): d", 'key'],
    ['billing', ' (402)', "Anthropic key 'work' has a billing or quota problem (402): d", 'key'],
    ['rate_limit', ' (429)', "Anthropic key 'work' hit a rate limit (429): d", 'rate'],
    ['overloaded', ' (529)', 'Anthropic is overloaded (529): d', 'rate'],
    ['server_error', ' (500)', 'Anthropic server error (500): d', 'rate'],
    ['timeout', ' (UND_ERR_SOCKET)', 'Could not reach Anthropic: the connection failed or timed out (UND_ERR_SOCKET): d', 'network'],
    ['format', ' (400)', 'Anthropic rejected the request (400): d', 'other'],
    ['model_not_found', ' (404)', 'Model not found at Anthropic (404): d', 'model'],
    ['context_overflow', ' (400)', "The conversation is too long for the model's context window (400): d", 'context'],
    ['aborted', '', 'Request aborted: d', 'other'],
    ['unknown', ' (teapot)', 'Anthropic error (teapot): d', 'other'],
  ])('%s reads the same everywhere', (reason, tag, text, kind) => {
    const line = providerFailureText({ ...base, reason, tag, detail: 'd' });
    expect(line).toBe(text);
    expect(errorKind(line)).toBe(kind);
  });

  it('names the provider as configured, never the API family underneath', () => {
    expect(providerFailureText({ ...base, reason: 'auth', provider: 'work-proxy', profileId: 'work-proxy:main' })).toBe("work-proxy key 'main' was rejected (401): invalid x-api-key");
  });

  it('without a key profile (a keyless local server) the provider is named alone', () => {
    expect(providerFailureText({ reason: 'auth', provider: 'ollama', tag: ' (401)', detail: 'x' })).toBe('Ollama rejected the API key (401): x');
    expect(providerFailureText({ reason: 'rate_limit', tag: ' (429)', detail: 'x' })).toBe('The provider rate limit reached (429): x');
  });

  it.each([
    ['getaddrinfo ENOTFOUND api.example', 'its server name could not be resolved'],
    ['ECONNREFUSED 127.0.0.1:9', 'nothing answered at its address (connection refused'],
    ['UND_ERR_SOCKET', 'the connection failed or timed out'],
  ])('a connection failure says why in words (%s)', (network, words) => {
    const line = providerFailureText({ reason: 'timeout', provider: 'ollama', tag: '', detail: 'fetch failed', network });
    expect(line).toContain(`Could not reach Ollama: ${words}`);
    expect(errorKind(line)).toBe('network');
  });

  it.each(REASONS)('%s: no internal category, no stack, one line', (reason) => {
    const line = providerFailureText({ ...base, reason });
    expect(line).not.toMatch(INTERNAL_PREFIX);
    expect(line).not.toMatch(STACK);
    expect(line).not.toContain('\n');
  });

  it('classifyError words a real SDK-shaped error with the catalogue, naming the provider and key given', () => {
    const err = Object.assign(new Error('401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'), {
      status: 401,
      apiMessage: 'invalid x-api-key',
      type: 'authentication_error',
    });
    expect(classifyError(err, 0, 'openrouter', 'openrouter:team').message).toBe("OpenRouter key 'team' was rejected (401): invalid x-api-key");
    const dns = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('getaddrinfo ENOTFOUND api.nowhere.example'), { code: 'ENOTFOUND' }) });
    const c = classifyError(dns, 0, 'my-proxy');
    expect(c.message).toMatch(/^Could not reach my-proxy: its server name could not be resolved/);
    expect(c.message).not.toMatch(INTERNAL_PREFIX);
  });
});

describe('the model list of a provider', () => {
  it.each([
    ['404 {}', 'Could not list the models of http://h/v1: 404 (the server sent no details)'],
    ['404', 'Could not list the models of http://h/v1: 404 (the server sent no details)'],
    ['401 Incorrect API key provided: sk-***', 'Could not list the models of http://h/v1: 401 Incorrect API key provided: sk-***'],
  ])('%s', (why, text) => expect(modelListFailedText('http://h/v1', why)).toBe(text));
});

describe('keys', () => {
  it('no key: the environment variable and auth add (and the app)', () => {
    const line = noKeyText({ provider: 'anthropic', envHint: 'ANTHROPIC_API_KEY' });
    expect(line).toBe('No API key for provider "anthropic": set ANTHROPIC_API_KEY, or add one with: agentdesk auth add --provider anthropic --label default (or in the app: Settings › Keys).');
    expect(errorKind(line)).toBe('key');
  });

  it('no key and no keychain: only the environment variable is offered (auth add could not store a key)', () => {
    const line = noKeyText({ provider: 'anthropic', envHint: 'ANTHROPIC_API_KEY', keychainProblem: REASON_NO_DBUS });
    expect(line).toBe(`No API key for provider "anthropic": set ANTHROPIC_API_KEY. (No OS keychain is available: ${REASON_NO_DBUS}; keys cannot be stored until it is.)`);
    expect(line).not.toContain('auth add');
    expect(noKeyText({ provider: 'x', keychainProblem: noKeychainText(REASON_NO_DBUS) })).not.toContain('available: No OS keychain');
  });

  it.each<[FailoverReasonDto[], string, ErrorKind]>([
    [['rate_limit', 'rate_limit'], "Every key of Anthropic is cooling down after errors ('work': rate limit, 'home': rate limit); the first is ready again in 4 min. Wait, add another key in Settings › Keys (or agentdesk auth add), or pick another model.", 'rate'],
    [['auth', 'rate_limit'], "Every key of Anthropic is cooling down after errors ('work': key rejected, 'home': rate limit); the first is ready again in 4 min. Fix or replace the key in Settings › Keys (or agentdesk auth add), or pick another model.", 'key'],
  ])('every key cooling (%j): which, why, when, what to do', (reasons, text, kind) => {
    const line = allKeysCoolingText({ provider: 'anthropic', keys: [{ profileId: 'anthropic:work', reason: reasons[0]! }, { profileId: 'anthropic:home', reason: reasons[1]! }], readyInMs: 240_000 });
    expect(line).toBe(text);
    expect(line).not.toMatch(INTERNAL_PREFIX);
    expect(errorKind(line)).toBe(kind);
  });

  it('no keychain: the reason and a fix that works', () => {
    expect(noKeychainText(REASON_NO_DBUS)).toBe(`No OS keychain is available: ${REASON_NO_DBUS}`);
    expect(keychainFix(REASON_NO_DBUS, 'linux', 'npx agentdesk …')).toContain('gnome-keyring-daemon --unlock');
    expect(errorKind(noKeychainText(REASON_NO_DBUS))).toBe('key');
  });
});

describe('retry notices: the same line on the CLI and in the window', () => {
  const base: Omit<RetryData, 'next'> = { attempt: 1, reason: 'rate_limit', message: 'x', provider: 'anthropic', model: 'claude', profileId: 'anthropic:work' };
  it.each<[RetryData['next'], string]>([
    [{ action: 'rotate', profileId: 'anthropic:personal' }, 'rate-limited on anthropic:work, switching to anthropic:personal'],
    [{ action: 'backoff', waitMs: 500 }, 'rate-limited on anthropic:work, retrying in 500 ms'],
    [{ action: 'backoff', waitMs: 2500, profileId: 'anthropic:home' }, 'rate-limited on anthropic:work, retrying in 2.5 s on anthropic:home'],
    [{ action: 'wait', waitMs: 30_000 }, 'rate-limited on anthropic:work, waiting 30 s as the provider asked'],
    [{ action: 'fallback', provider: 'openai', model: 'gpt-5' }, 'rate-limited on anthropic:work, falling back to openai/gpt-5'],
    [{ action: 'compact' }, 'rate-limited on anthropic:work, compacting the conversation and retrying'],
    [{ action: 'give_up' }, 'rate-limited on anthropic:work, no other key or model to try'],
  ])('%j', (next, line) => expect(retryLine({ ...base, next })).toBe(line));

  it.each(REASONS)('%s has words in both tables, none of them the internal name', (reason) => {
    expect(RETRY_REASON[reason]).toBeTruthy();
    expect(TRIED_REASON[reason]).toBeTruthy();
    expect(RETRY_REASON[reason]).not.toContain('_');
    expect(TRIED_REASON[reason]).not.toContain('_');
  });
});

describe('approvals: worded by who decided', () => {
  it('the person denied it (and only then "the person")', () => {
    expect(deniedByPersonText('exec', 'not now')).toBe('The person denied this exec call: not now. It did not run; do not retry it unchanged.');
  });

  it.each([
    refusedUnaskedText('exec', NO_TTY_REASON),
    refusedByPolicyText('approvals are set to deny: exec calls are refused without asking'),
    unansweredText('write', 300_000),
    cliRefusedLine('exec: $ ls (sandboxed)', NO_TTY_REASON),
  ])('nobody was asked / nobody answered: %s', (line) => {
    expect(line).not.toMatch(/person denied|you denied|denied by the person/i);
    expect(line).not.toMatch(INTERNAL_PREFIX);
  });

  it('no terminal: says so and what to do', () => {
    expect(refusedUnaskedText('exec', NO_TTY_REASON)).toBe(
      'This exec call needs approval and nobody could be asked (no terminal to ask on: run with --approve auto to allow such calls, or run it in a terminal to be asked), so it did not run. Do not retry it now; say in your reply what you wanted to do, so the person can allow it.',
    );
    expect(cliRefusedLine('exec: $ ls (sandboxed)', NO_TTY_REASON)).toBe(`agentdesk: not run, nobody was asked: exec: $ ls (sandboxed): ${NO_TTY_REASON}`);
    expect(unansweredText('write', 300_000)).toMatch(/^Nobody answered the request to approve this write call within 5 min, so it did not run\./);
  });
});

describe('refused requests: the gateway sentence, never its code', () => {
  it.each([
    ['bad_request', 'A key named "anthropic:work" exists already.', 'A key named "anthropic:work" exists already.'],
    ['not_found', 'No chat "x".', 'No chat "x".'],
    ['internal', 'EACCES: permission denied', 'Something went wrong in AgentDesk: EACCES: permission denied. Try again; if it keeps happening, restart the app.'],
    ['unknown_method', 'no method "x.y"', 'This window and the app are different versions (no method "x.y"): reload the window.'],
  ])('%s', (code, message, text) => {
    expect(requestErrorText(code, message)).toBe(text);
    const err = new RequestError(code, message);
    expect(err.message).toBe(text);
    expect(err.code).toBe(code);
    expect(err.message).not.toMatch(INTERNAL_PREFIX);
  });
});

describe('durations', () => {
  it.each([
    [250, '250 ms'],
    [1000, '1 s'],
    [2500, '2.5 s'],
    [40_000, '40 s'],
    [240_000, '4 min'],
    [3 * 3600_000, '3 h'],
  ])('%d ms → %s', (ms, text) => expect(formatWait(ms)).toBe(text));
});

describe('docs/messages.md shows what the app really prints', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'messages.md'), 'utf8');
  const retry = (reason: FailoverReasonDto, next: RetryData['next']) => retryLine({ attempt: 1, reason, message: '', provider: 'anthropic', model: 'm', profileId: 'anthropic:work', next });
  it.each([
    providerFailureText({ reason: 'auth', provider: 'anthropic', profileId: 'anthropic:work', tag: ' (401)', detail: 'invalid x-api-key' }),
    providerFailureText({ reason: 'overloaded', provider: 'anthropic', tag: ' (529)', detail: 'Overloaded' }),
    providerFailureText({ reason: 'timeout', provider: 'ollama', tag: ' (ECONNREFUSED)', detail: 'Connection error. (connect ECONNREFUSED 127.0.0.1:11434)', network: 'ECONNREFUSED' }),
    providerFailureText({ reason: 'timeout', provider: 'anthropic', tag: ' (UND_ERR_SOCKET)', detail: 'terminated (other side closed)' }),
    providerFailureText({ reason: 'billing', provider: 'anthropic', profileId: 'anthropic:work', tag: ' (402)', detail: '…' }),
    providerFailureText({ reason: 'rate_limit', provider: 'anthropic', profileId: 'anthropic:work', tag: ' (429)', detail: '…' }),
    providerFailureText({ reason: 'model_not_found', provider: 'anthropic', tag: ' (404)', detail: '…' }),
    providerFailureText({ reason: 'timeout', provider: 'my-proxy', tag: '', detail: '…', network: 'ENOTFOUND' }),
    noKeyText({ provider: 'anthropic', envHint: 'ANTHROPIC_API_KEY' }),
    noKeyText({ provider: 'anthropic', envHint: 'ANTHROPIC_API_KEY', keychainProblem: REASON_NO_DBUS }),
    allKeysCoolingText({ provider: 'anthropic', keys: [{ profileId: 'anthropic:work', reason: 'auth' }, { profileId: 'anthropic:home', reason: 'rate_limit' }], readyInMs: 240_000 }),
    deniedByPersonText('exec', 'not now'),
    refusedByPolicyText('approvals are set to deny: exec calls are refused without asking'),
    refusedUnaskedText('exec', NO_TTY_REASON).split(', so it did not run.')[0]!,
    cliRefusedLine('exec: $ npm test (sandboxed)', 'no terminal to ask on:'),
    unansweredText('exec', 300_000).split(' Do not')[0]!,
    retry('rate_limit', { action: 'rotate', profileId: 'anthropic:personal' }),
    retry('timeout', { action: 'backoff', waitMs: 500 }),
    retry('overloaded', { action: 'fallback', provider: 'openai', model: 'gpt-4.1' }),
  ])('%s', (line) => expect(doc).toContain(line));
});
