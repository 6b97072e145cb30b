/**
 * OpenClaw's own tests, run against our pure functions: its golden failover corpus and classifier tests, its
 * reasoning-tag, silent-token and tool-argument tests (data in this folder, sources and rules in README.md).
 * Every applicable case must give OpenClaw's answer translated to ours, or — a documented design difference —
 * the answer its row gives, with the reason in one line. The counts are checked against both READMEs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../main/engine/classify.js';
import { parseToolArgs } from '../../main/providers/tool-args.js';
import {
  couldBeSilentReply,
  isSilentReply,
  stripLeadingSilentToken,
  stripSilentToken,
} from '../../main/engine/stream/silent.js';
import { createThinkTagFilter, stripThinkTags } from '../../main/engine/stream/think-tags.js';
import { FAILOVER_CASES, inputOf, outcomeOf, type FailoverCase } from './failover/index.js';
import { REASONING_TAG_CASES, type TagCase } from './reasoning-tags.js';
import { SILENT_TOKEN_CASES, type SilentCase } from './silent-tokens.js';
import { TOOL_ARGUMENT_CASES, type ArgsCase } from './tool-arguments.js';

interface Counted {
  na?: string;
  differs: boolean;
}

const counted = {
  failover: FAILOVER_CASES.map((c): Counted => ({ na: c.note && 'na' in c.note ? c.note.na : undefined, differs: !!c.note && 'why' in c.note })),
  reasoningTags: REASONING_TAG_CASES.map((c): Counted => ({ na: c.na, differs: !!c.ours })),
  silentTokens: SILENT_TOKEN_CASES.map((c): Counted => ({ na: c.na, differs: !!c.ours })),
  toolArguments: TOOL_ARGUMENT_CASES.map((c): Counted => ({ na: c.na, differs: !!c.ours })),
};

const applicable = <T extends { na?: unknown }>(cases: readonly T[]): T[] => cases.filter((c) => !c.na);

describe('failover classification (OpenClaw golden corpus + classifier tests)', () => {
  const cases = FAILOVER_CASES.filter((c): c is FailoverCase & { expected: NonNullable<FailoverCase['expected']> } => !!c.expected);
  it.each(cases.map((c) => [`${c.id} (${c.file})`, c] as const))('%s', (_name, c) => {
    const got = classifyError(inputOf(c.signal), 0).reason;
    expect(outcomeOf(got), `classified ${got}; OpenClaw ${String(c.oc)}`).toBe(outcomeOf(c.expected));
  });

  it('has unique ids per source file', () => {
    const ids = FAILOVER_CASES.map((c) => `${c.file}:${c.id}`);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('reasoning tags (stripReasoningTagsFromText → stripThinkTags)', () => {
  const want = (c: TagCase): string => (c.ours ? c.ours.text : (c.expected ?? c.input));
  it.each(applicable(REASONING_TAG_CASES).map((c) => [c.id, c] as const))('%s', (_id, c) => {
    expect(stripThinkTags(c.input).text.trim()).toBe(want(c).trim());
  });

  // The streaming filter on the same inputs, one character per push: what a reply shows while it streams.
  const streamed = applicable(REASONING_TAG_CASES).filter((c) => !c.streamDiffers);
  it.each(streamed.map((c) => [c.id, c] as const))('%s, streamed a character at a time', (_id, c) => {
    const filter = createThinkTagFilter({ holdStart: true });
    let text = '';
    for (const ch of c.input) text += filter.push(ch).text;
    text += filter.flush().text;
    expect(text.trim()).toBe(want(c).trim());
  });
});

describe('silent token (tokens.test.ts → silent.ts)', () => {
  const run = (c: SilentCase): boolean | string => {
    switch (c.fn) {
      case 'isSilentReplyText':
        return isSilentReply(stripThinkTags(c.input).text);
      case 'stripSilentToken':
        return stripSilentToken(c.input);
      case 'stripLeadingSilentToken':
        return stripLeadingSilentToken(c.input);
      case 'startsWithSilentToken':
        // OpenClaw's predicate, as our product uses it: the glued token is what stripLeadingSilentToken takes off
        return stripLeadingSilentToken(c.input) !== c.input;
      case 'isSilentReplyPrefixText':
        return couldBeSilentReply(c.input);
    }
  };
  it.each(applicable(SILENT_TOKEN_CASES).map((c) => [`${c.fn}(${JSON.stringify(c.input)})`, c] as const))('%s', (_name, c) => {
    expect(run(c)).toBe(c.ours ? c.ours.value : c.expected);
  });
});

describe('tool-call arguments (attempt.tool-call-argument-repair.test.ts → parseToolArgs)', () => {
  const want = (c: ArgsCase) => (c.ours ? c.ours.args : c.expected);
  it.each(applicable(TOOL_ARGUMENT_CASES).map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const parsed = parseToolArgs(c.raw);
    const expected = want(c);
    if (expected === null) {
      expect(parsed.parseError, 'the call must not run').toBeDefined();
    } else {
      expect(parsed.parseError).toBeUndefined();
      expect(parsed.arguments).toEqual(expected);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

interface Tally {
  total: number;
  notApplicable: number;
  applicable: number;
  agree: number;
  differ: number;
}

function tally(rows: readonly Counted[]): Tally {
  const na = rows.filter((r) => r.na).length;
  const differ = rows.filter((r) => !r.na && r.differs).length;
  return { total: rows.length, notApplicable: na, applicable: rows.length - na, agree: rows.length - na - differ, differ };
}

const TALLIES: Array<[label: string, t: Tally]> = [
  ['failover classification', tally(counted.failover)],
  ['reasoning tags', tally(counted.reasoningTags)],
  ['silent token', tally(counted.silentTokens)],
  ['tool-call arguments', tally(counted.toolArguments)],
];
const ALL = tally(Object.values(counted).flat());

const row = (label: string, t: Tally) => `| ${label} | ${t.total} | ${t.notApplicable} | ${t.applicable} | ${t.agree} | ${t.differ} |`;

describe('corpus counts', () => {
  it('every not-applicable row and every difference says why', () => {
    for (const c of FAILOVER_CASES) {
      if (c.note && 'na' in c.note) expect(c.note.na.length, c.id).toBeGreaterThan(10);
      if (c.note && 'why' in c.note) expect(c.note.why.length, c.id).toBeGreaterThan(10);
      if (!c.note) expect(c.oc, `${c.id}: session_expired needs a note`).not.toBe('session_expired');
    }
  });

  it('test/corpus/README.md holds the table of counts', () => {
    const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
    for (const [label, t] of TALLIES) expect(readme).toContain(row(label, t));
    expect(readme).toContain(row('**all**', ALL).replace(/\| (\d+) /g, '| **$1** '));
  });

  it("the README's failover section names the count", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(
      `${ALL.total} cases from OpenClaw's own tests (${ALL.applicable} apply to AgentDesk): all ${ALL.applicable} pass, ${ALL.agree} with OpenClaw's answer and ${ALL.differ} with a documented design difference`,
    );
  });
});
