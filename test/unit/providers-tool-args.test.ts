import { describe, expect, it } from 'vitest';
import { parseToolArgs, repairJsonEnd } from '../../main/providers/tool-args.js';

describe('parseToolArgs', () => {
  it.each([
    ['valid object', '{"path":"src/a.ts"}', { path: 'src/a.ts' }],
    ['empty string (no-argument tool)', '', {}],
    ['whitespace only', '  \n', {}],
    ['nested values', '{"a":{"b":[1,2,{"c":null}]},"d":true}', { a: { b: [1, 2, { c: null }] }, d: true }],
    ['double-encoded object', JSON.stringify('{"path":"x"}'), { path: 'x' }],
  ])('parses %s without repair', (_name, raw, expected) => {
    const r = parseToolArgs(raw);
    expect(r).toEqual({ arguments: expected });
  });

  it.each([
    ['trailing garbage', '{"path":"a"}}', { path: 'a' }],
    ['trailing text after the object', '{"path":"a"} and then some words', { path: 'a' }],
    ['two objects glued together', '{"path":"a"}{"path":"b"}', { path: 'a' }],
    ['missing closing brace (a slip: the last value is complete)', '{"path":"a"', { path: 'a' }],
    ['missing closing brackets after a complete array', '{"a":{"b":[1,2]', { a: { b: [1, 2] } }],
    ['trailing comma before the brace', '{"a":1,}', { a: 1 }],
    ['trailing comma in an array', '{"a":[1,2,]}', { a: [1, 2] }],
    ['leading prose before the object', 'Sure: {"path":"a"}', { path: 'a' }],
    ['braces inside strings do not count', '{"a":"}{"', { a: '}{' }],
  ])('repairs %s', (_name, raw, expected) => {
    const r = parseToolArgs(raw);
    expect(r.parseError).toBeUndefined();
    expect(r.repaired).toBe(true);
    expect(r.arguments).toEqual(expected);
  });

  // Issue 21: arguments that stop part-way are never completed into a call that runs.
  it.each([
    ['inside a string', '{"path":"/tmp', { path: '/tmp' }],
    ['inside the content of a write', '{"path":"a.txt","content":"line 1\\nline', { path: 'a.txt', content: 'line 1\nline' }],
    ['inside an array', '{"a":{"b":[1,2', { a: { b: [1, 2] } }],
    ['after a number that may go on', '{"offset":12', { offset: 12 }],
    ['after a comma', '{"a":1,', { a: 1 }],
    ['after a colon', '{"a":1,"b":', { a: 1, b: null }],
    ['inside an escape', '{"a":"x\\', { a: 'x' }],
  ])('marks arguments cut off %s: not run, best-effort arguments for display', (_name, raw, shown) => {
    const r = parseToolArgs(raw);
    expect(r.cutOff).toBe(true);
    expect(r.parseError).toMatch(/^its arguments were cut off before they ended \(/);
    expect(r.arguments).toEqual(shown);
  });

  it.each([
    ['no object at all', 'not json'],
    ['an array', '[1,2]'],
    ['a number', '42'],
    ['a truncated literal', '{"a":tru'],
    ['mismatched brackets', '{"a":[1}'],
    ['a truncated key', '{"a":1,"b'],
  ])('gives {} and a parseError for %s', (_name, raw) => {
    const r = parseToolArgs(raw);
    expect(r.arguments).toEqual({});
    expect(r.parseError).toMatch(/^its arguments are not (?:valid JSON|a JSON object)/);
    expect(r.parseError).toContain(raw.slice(0, 5));
  });

  it('clips a huge raw text in the parse error', () => {
    const r = parseToolArgs(`[${'1,'.repeat(1000)}`);
    expect(r.parseError!.length).toBeLessThan(400);
  });
});

describe('repairJsonEnd: the repaired text', () => {
  it.each([
    ['{"a":1', '{"a":1}'],
    ['{"a":[{"b":"c', '{"a":[{"b":"c"}]}'],
    ['{"a":1} trailing', '{"a":1}'],
    ['no braces', undefined],
  ])('%s → %s', (raw, expected) => {
    expect(repairJsonEnd(raw)?.text).toBe(expected);
  });
});
