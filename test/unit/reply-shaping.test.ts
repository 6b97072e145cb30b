import { describe, expect, it } from 'vitest';
import { couldBeSilentReply, isSilentReply, silentTailLength, stripSilentToken } from '../../main/engine/stream/silent.js';
import {
  MessagingLedger,
  couldBeMessagingDuplicate,
  isMessagingDuplicate,
  normalizeForComparison,
} from '../../main/engine/stream/messaging-dedupe.js';
import { ReplyGate } from '../../main/engine/stream/reply-gate.js';
import { buildPayloads, TOOL_ERROR_FALLBACK, toolSummary, type Payload, type PayloadInput, type ReplyPart } from '../../main/engine/stream/payloads.js';
import { cpuMs } from '../support/cpu-time.js';

describe('silent token (inventory §13, §21 item 9)', () => {
  it.each([
    ['NO_REPLY', true],
    ['  no_reply  ', true],
    ['"NO_REPLY"', true],
    ['**NO_REPLY**', true],
    ['{"action":"NO_REPLY"}', true],
    ['{ "action" : "no_reply" }\n', true],
    ['Here is a helpful response.\n\nNO_REPLY', false],
    ['No reply needed', false],
    ['{"action":"reply"}', false],
    ['NO', false],
    ['', false],
  ])('isSilentReply(%j) = %s', (text, expected) => {
    expect(isSilentReply(text)).toBe(expected);
  });

  it.each([
    ['', true],
    ['N', true],
    ['NO', true],
    ['NO_REP', true],
    ['no_', true],
    ['  "NO', true],
    ['{"act', true],
    ['{ "action": "NO_R', true],
    ['No', true], // held one delta: a mixed-case "No_Reply" is silent too (issue 21)
    ['No_Re', true],
    ['NO-', false],
    ['NOT', false],
    ['Hello', false],
    ['{"name"', false],
  ])('couldBeSilentReply(%j) = %s', (text, expected) => {
    expect(couldBeSilentReply(text)).toBe(expected);
  });

  it.each([
    ['😄 NO_REPLY', '😄'],
    ['Done.\n\nNO_REPLY', 'Done.'],
    ['Done. **NO_REPLY**', 'Done.'],
    ['interject.NO_REPLY', 'interject.NO_REPLY'],
    ['nothing to strip', 'nothing to strip'],
  ])('stripSilentToken(%j) = %j', (text, expected) => {
    expect(stripSilentToken(text)).toBe(expected);
  });

  it.each([
    ['Done. NO', 2],
    ['Done. NO_REP', 6],
    ['Done. NO_REPLY', 8],
    ['Done. N', 0],
    ['Done. NOTE', 0],
    ['Done. no', 0],
    ['Done.NO', 0],
  ])('silentTailLength(%j) = %d', (text, expected) => {
    expect(silentTailLength(text)).toBe(expected);
  });
});

describe('messaging dedupe (inventory §14, §21 item 16)', () => {
  it.each([
    ['Please ❤️ confirm delivery.', 'Please confirm delivery.', true],
    ['I posted the summary above.', 'The summary: build is green, two tests fixed.', false],
    ['build is green, two tests fixed', 'The summary: build is green, two tests fixed.', true],
    ['green', 'The build is green.', false], // under 10 characters
    ['The summary: build is green', 'The summary: build is green, two tests fixed, and the docs were updated today.', false], // under half
    ['  THE  Build\nis green.  ', 'the build is green.', true],
  ])('%j vs sent %j → %s', (reply, sent, expected) => {
    expect(isMessagingDuplicate(reply, [normalizeForComparison(sent)])).toBe(expected);
  });

  it('couldBeMessagingDuplicate holds prefixes only', () => {
    const sent = [normalizeForComparison('The build is green.')];
    expect(couldBeMessagingDuplicate('The bu', sent)).toBe(true);
    expect(couldBeMessagingDuplicate('The cat', sent)).toBe(false);
    expect(couldBeMessagingDuplicate('  ', sent)).toBe(false);
  });

  it('two-phase: pending at start, committed only when the tool succeeded', () => {
    const ledger = new MessagingLedger();
    ledger.begin('a', 'First message here.');
    ledger.begin('b', 'Second message here.');
    expect(ledger.sentNormalized()).toEqual([]);
    ledger.end('a', false);
    ledger.end('b', true);
    expect(ledger.sentNormalized()).toEqual(['second message here.']);
  });
});

/** Streams `chunks` through a gate: what was shown along the way, and the end decision. */
function gate(chunks: string[], sent: string[] = []) {
  const g = new ReplyGate(() => sent.map(normalizeForComparison));
  const shown = chunks.map((c) => g.push(c));
  const end = g.end();
  return { shown, end, all: shown.join('') + end.release };
}

describe('ReplyGate', () => {
  it.each<[string, string[], string[], string, string | undefined]>([
    // [name, chunks, shown per push, total shown, suppressed]
    ['silent token split across chunks is never shown', ['N', 'O_RE', 'PLY'], ['', '', ''], '', 'silent'],
    ['JSON action form is never shown', ['{"action":', '"NO_REPLY"}'], ['', ''], '', 'silent'],
    ['a reply starting like the token is released once it diverges', ['NO', 'W I see.'], ['', 'NOW I see.'], 'NOW I see.', undefined],
    ['ordinary text streams at once', ['Hello', ' world'], ['Hello', ' world'], 'Hello world', undefined],
    ['a trailing token after real text is held, then stripped', ['Done. ', 'NO_', 'REPLY'], ['Done. ', '', ''], 'Done. ', undefined],
    ['a held upper-case tail is released when it becomes a word', ['Say ', 'NO', ' more'], ['Say ', '', 'NO more'], 'Say NO more', undefined],
    // issue 21
    ['a mixed-case token never streams out', ['No', '_Re', 'ply'], ['', '', ''], '', 'silent'],
    ['an ordinary "No, …" waits one delta', ['No', ', not yet.'], ['', 'No, not yet.'], 'No, not yet.', undefined],
    ['a token glued to the first word is dropped', ['NO_REPLY', 'The user is saying hi.'], ['', 'The user is saying hi.'], 'The user is saying hi.', undefined],
    ['a glued token in one whole delta is dropped', ['NO_REPLYThe'], ['The'], 'The', undefined],
    ['a bare think preamble ending in the token is silent', ['think\n', 'The user talks to someone else.', '\nStay quiet.NO_REPLY'], ['', '', ''], '', 'silent'],
    ['a bare think preamble followed by an answer is shown', ['think\nplan', '\n\nHere it is.'], ['', 'think\nplan\n\nHere it is.'], 'think\nplan\n\nHere it is.', undefined],
  ])('%s', (_name, chunks, shown, all, suppressed) => {
    const r = gate(chunks);
    expect(r.shown).toEqual(shown);
    expect(r.all).toBe(all);
    expect(r.end.suppressed).toBe(suppressed);
  });

  it('a reply repeating a posted message is held and then suppressed', () => {
    const r = gate(['The build ', 'is green.'], ['The build is green.']);
    expect(r.all).toBe('');
    expect(r.end.suppressed).toBe('duplicate');
  });

  it('a reply that diverges from a posted message is shown', () => {
    const r = gate(['The build ', 'failed twice.'], ['The build is green.']);
    expect(r.all).toBe('The build failed twice.');
  });
});

describe('buildPayloads', () => {
  const replies = (...texts: string[]): ReplyPart[] => texts.map((text) => ({ kind: 'reply', text }));
  it.each<[string, PayloadInput, Payload[]]>([
    ['silent replies dropped, text trimmed', { parts: replies('a', ' NO_REPLY ', 'b '), toolErrors: 0 }, [{ text: 'a' }, { text: 'b' }]],
    ['a glued leading silent token (NO_REPLYThe…) stripped', { parts: replies('NO_REPLYThe user is saying hi.'), toolErrors: 0 }, [{ text: 'The user is saying hi.' }]],
    ['a trailing silent token stripped', { parts: replies('Answer.\n\nNO_REPLY'), toolErrors: 0 }, [{ text: 'Answer.' }]],
    ['a JSON silent reply', { parts: replies('{"action":"NO_REPLY"}'), toolErrors: 0 }, []],
    ['the error text last', { parts: replies('a'), errorText: 'boom', toolErrors: 0 }, [{ text: 'a' }, { text: 'boom', isError: true }]],
    ['nothing visible after a tool failure: the fallback', { parts: [], toolErrors: 1 }, [{ text: TOOL_ERROR_FALLBACK, isError: true }]],
    ['only a silent reply after a tool failure: the fallback', { parts: replies('NO_REPLY'), toolErrors: 1 }, [{ text: TOOL_ERROR_FALLBACK, isError: true }]],
    ['a visible reply after a tool failure: no fallback', { parts: replies('ok'), toolErrors: 1 }, [{ text: 'ok' }]],
    ['reasoning only when verbose', { parts: replies('ok'), toolErrors: 0, reasoning: ['plan', ' '] }, [{ text: 'ok' }]],
    ['verbose: reasoning first', { parts: replies('ok'), toolErrors: 0, reasoning: ['plan', ' '], verbose: true }, [{ text: 'Reasoning:\nplan' }, { text: 'ok' }]],
    [
      'verbose: inline tool summaries in their place',
      { parts: [{ kind: 'reply', text: 'Looking.' }, { kind: 'tool', text: '🔧 read notes.txt' }, { kind: 'reply', text: 'Done.' }], toolErrors: 0, verbose: true },
      [{ text: 'Looking.' }, { text: '🔧 read notes.txt' }, { text: 'Done.' }],
    ],
    ['not verbose: no tool summaries', { parts: [{ kind: 'tool', text: '🔧 read notes.txt' }, { kind: 'reply', text: 'Done.' }], toolErrors: 0 }, [{ text: 'Done.' }]],
    [
      'verbose summaries are not a visible reply: a tool failure with no reply still gets the fallback',
      { parts: [{ kind: 'tool', text: '🔧 exec make — failed: exit 2' }], toolErrors: 1, verbose: true },
      [{ text: '🔧 exec make — failed: exit 2' }, { text: TOOL_ERROR_FALLBACK, isError: true }],
    ],
    [
      'the containment rule on the final list: a reply repeating a committed post is dropped, the post stays',
      {
        parts: [{ kind: 'message', text: 'Deploy finished: 3 services are up.' }, { kind: 'reply', text: '✅ Deploy finished:  3 services are UP. All good.' }],
        toolErrors: 0,
        sentNormalized: [normalizeForComparison('Deploy finished: 3 services are up.')],
      },
      [{ text: 'Deploy finished: 3 services are up.' }],
    ],
    [
      'a reply that streamed before the post committed is dropped at the end too',
      { parts: [{ kind: 'reply', text: 'The report is ready in out/report.md' }, { kind: 'message', text: 'The report is ready in out/report.md' }], toolErrors: 0, sentNormalized: ['the report is ready in out/report.md'] },
      [{ text: 'The report is ready in out/report.md' }],
    ],
    ['a reply that only shares words with a post stays', { parts: replies('The build failed twice, see above.'), toolErrors: 0, sentNormalized: ['the build is green and deployed to staging now'] }, [{ text: 'The build failed twice, see above.' }]],
  ])('%s', (_name, input, expected) => {
    expect(buildPayloads(input)).toEqual(expected);
  });

  it.each([
    ['read', { path: 'notes.txt' }, 'x', false, '🔧 read notes.txt'],
    ['exec', { command: 'make test', timeoutSeconds: 30 }, 'exit 2\nmake: *** [test] Error 2', true, '🔧 exec make test 30 — failed: exit 2'],
    ['list', {}, '', false, '🔧 list'],
  ])('toolSummary(%s)', (name, args, result, isError, expected) => {
    expect(toolSummary(name, args, result, isError)).toBe(expected);
  });
});

describe('ReplyGate cost', () => {
  it('is linear: 50 000 deltas far under the tens of seconds the whole-text version took', () => {
    const g = new ReplyGate();
    let shown = 0;
    const { ms } = cpuMs(() => {
      for (let i = 0; i < 50_000; i++) shown += g.push(i % 7 === 0 ? 'NO ' : 'word more ').length;
      shown += g.end().release.length;
    });
    // ~0.1 s of CPU; the whole-text version took tens of seconds
    expect(ms).toBeLessThan(2000);
    expect(shown).toBeGreaterThan(400_000);
  });
});
