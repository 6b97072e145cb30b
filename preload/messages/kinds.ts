/**
 * Which kind of problem a run's error line is, from its text alone — so a live error and the same line read back
 * from a transcript get the same actions in the window (renderer/src/lib/errors.ts). Each pattern is the wording
 * of providers.ts / keys.ts (and the older wording stored transcripts still hold); test/unit/messages.test.ts checks
 * every catalogue line lands in its kind.
 */

export type ErrorKind = 'key' | 'rate' | 'network' | 'context' | 'model' | 'budget' | 'other';

const RULES: ReadonlyArray<[RegExp, ErrorKind]> = [
  [/^Budget reached: /, 'budget'],
  [/ key '[^']*' was rejected|rejected the API key|key rejected|No API key|billing or quota|keychain/i, 'key'],
  [/rate limit|cooling down|overloaded|server error/i, 'rate'],
  [/Could not reach|connection failed|timed out|network|ECONN|socket/i, 'network'],
  [/context window|too long/i, 'context'],
  [/model not found|unknown model/i, 'model'],
];

export function errorKind(text: string): ErrorKind {
  for (const [re, kind] of RULES) if (re.test(text)) return kind;
  return 'other';
}
