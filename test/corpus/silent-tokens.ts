/**
 * OpenClaw src/auto-reply/tokens.test.ts (the NO_REPLY silent token), as data. Each row names OpenClaw's function;
 * the suite runs ours (main/engine/stream/silent.ts):
 *   isSilentReplyText       → isSilentReply(visible text of stripThinkTags(input))
 *   stripSilentToken        → stripSilentToken
 *   stripLeadingSilentToken → stripLeadingSilentToken
 *   startsWithSilentToken   → startsWithSilentToken
 *   isSilentReplyPrefixText → couldBeSilentReply (the stream holds the text back while true)
 */
export type SilentFn = 'isSilentReplyText' | 'stripSilentToken' | 'stripLeadingSilentToken' | 'startsWithSilentToken' | 'isSilentReplyPrefixText';

export interface SilentCase {
  fn: SilentFn;
  input: string;
  expected: boolean | string;
  ours?: { value: boolean | string; why: string };
  na?: string;
}

export const SILENT_TOKENS_SRC = 'src/auto-reply/tokens.test.ts';

const HEARTBEAT = 'the HEARTBEAT_OK token of OpenClaw’s heartbeat runs; we have one silent token';
const HOLD = (why: string) => ({ value: true, why: `held back until the next delta: ${why}` });

const silent = (input: string, expected: boolean, extra: Partial<SilentCase> = {}): SilentCase => ({ fn: 'isSilentReplyText', input, expected, ...extra });
const strip = (input: string, expected: string, extra: Partial<SilentCase> = {}): SilentCase => ({ fn: 'stripSilentToken', input, expected, ...extra });
const prefix = (input: string, expected: boolean, extra: Partial<SilentCase> = {}): SilentCase => ({ fn: 'isSilentReplyPrefixText', input, expected, ...extra });

export const SILENT_TOKEN_CASES: readonly SilentCase[] = [
  silent('NO_REPLY', true),
  silent('  NO_REPLY  ', true),
  silent('\nNO_REPLY\n', true),
  silent('no_reply', true),
  silent('  No_RePlY  ', true),
  silent('', false, { na: 'undefined input: our function is typed to take a string' }),
  silent('', false),
  silent('Here is a helpful response.\n\nNO_REPLY', false),
  silent('NO_REPLY but here is more content', false),
  silent('Please NO_REPLY to this', false),
  silent('HEARTBEAT_OK', true, { na: HEARTBEAT }),
  silent('Checked inbox. HEARTBEAT_OK', false, { na: HEARTBEAT }),
  // reasoning-wrapped silent replies (#66701)
  silent('think\nCav is talking about a follow-up conversation with someone else.\nI will stay quiet here.NO_REPLY', true),
  silent('<think>Internal reasoning here.</think>\nNO_REPLY', true),
  silent('<think type="internal">Reasoning</think> NO_REPLY', true),
  silent('think\nReasoning lines.\nFinal thought.NO_REPLY', true),
  silent('I think this is a helpful response.\n\nNO_REPLY', false),
  silent('thinking about it. NO_REPLY', false),
  silent('<think>Reasoning</think> HEARTBEAT_OK', true, { na: HEARTBEAT }),
  silent('<think>Internal reasoning here.</think>\nHere is the answer you should send to the user.\nNO_REPLY', false),
  silent('think\nReasoning about the request.\n\nHi there, here is what I found.\nNO_REPLY', false),
  silent('<think>Just thinking, nothing to say.</think>\nNO_REPLY', true),
  // stripSilentToken
  strip('Done.\n\nNO_REPLY', 'Done.'),
  strip('NO_REPLY 👍', 'NO_REPLY 👍'),
  strip('😄 NO_REPLY', '😄'),
  strip('interject.NO_REPLY', 'interject.NO_REPLY'),
  strip('NO_REPLY ok NO_REPLY', 'NO_REPLY ok'),
  strip('NO_REPLY', ''),
  strip('  NO_REPLY  ', ''),
  strip('**NO_REPLY', ''),
  strip('some text **NO_REPLY', 'some text'),
  strip('reasoning**NO_REPLY', 'reasoning'),
  strip('done HEARTBEAT_OK', 'done', { na: HEARTBEAT }),
  // stripLeadingSilentToken / startsWithSilentToken
  { fn: 'stripLeadingSilentToken', input: 'NO_REPLYThe user is saying', expected: 'The user is saying' },
  { fn: 'startsWithSilentToken', input: 'NO_REPLYThe user is saying', expected: true },
  { fn: 'startsWithSilentToken', input: 'No_RePlYThe user is saying', expected: true },
  { fn: 'startsWithSilentToken', input: 'no_replyThe user is saying', expected: true },
  { fn: 'startsWithSilentToken', input: 'NO_REPLY -- nope', expected: false },
  { fn: 'startsWithSilentToken', input: 'NO_REPLY: explanation', expected: false },
  { fn: 'startsWithSilentToken', input: 'NO_REPLY—note', expected: false },
  { fn: 'startsWithSilentToken', input: 'NO_REPLY', expected: false },
  { fn: 'startsWithSilentToken', input: '  NO_REPLY  ', expected: false },
  // isSilentReplyPrefixText (what a stream holds back)
  prefix('NO', true),
  prefix('NO_', true),
  prefix('NO_RE', true),
  prefix('NO_REPLY', true),
  prefix('  HEARTBEAT_', true, { na: HEARTBEAT }),
  prefix('N', false, { ours: HOLD('any case, so a mixed-case "No_Reply" never streams out before it is complete') }),
  prefix('No', false, { ours: HOLD('any case, so a mixed-case "No_Reply" never streams out before it is complete') }),
  prefix('no', false, { ours: HOLD('any case, so a mixed-case "No_Reply" never streams out before it is complete') }),
  prefix('Hello', false),
  prefix('HE', false, { na: HEARTBEAT }),
  prefix('HEART', false, { na: HEARTBEAT }),
  prefix('HEARTBEAT', false, { na: HEARTBEAT }),
  prefix('HEARTBEAT_', true, { na: HEARTBEAT }),
  prefix('NO_X', false),
  prefix('NO_REPLY more', false),
  prefix('NO-', false),
];
