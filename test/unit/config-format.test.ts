import { describe, expect, it } from 'vitest';
import { formatPath, formatValue, suggest } from '../../main/engine/config/format-issue.js';
import { findJsonSyntaxError, lineAndColumn } from '../../main/engine/config/json-error.js';

describe('findJsonSyntaxError', () => {
  it.each([
    ['{}'],
    ['[]'],
    ['  {"a": [1, -2.5e+3, 0, true, false, null, "x\\u00e9\\n"]} \n'],
    ['"just a string"'],
    ['0'],
  ])('accepts valid JSON %j (agrees with JSON.parse)', (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(findJsonSyntaxError(text)).toBeUndefined();
  });

  it.each([
    ['', 'Unexpected end of input', 1, 1],
    ['{"a":1,}', "Unexpected token '}'", 1, 8],
    ['{"a":01}', "Unexpected token '1'", 1, 7],
    ['{"a":-}', "Unexpected token '}'", 1, 7],
    ['{"a":1.}', "Unexpected token '}'", 1, 8],
    ['{"a":"\\x"}', 'Bad escape in string', 1, 7],
    ['{"a":"\\u12G4"}', "Unexpected token 'G'", 1, 11],
    ['{"a":"line\nbreak"}', 'Bad control character in string', 1, 11],
    ['{\n\n  "a" 1}', "Unexpected token '1'", 3, 7],
    ['[1 2]', "Unexpected token '2'", 1, 4],
    ['{"a":nul}', "Unexpected token '}'", 1, 9],
    ['{"a":1}\u0000', 'Unexpected U+0000 after the end of the JSON value', 1, 8],
    ['{"é":"✓", x}', "Unexpected token 'x'", 1, 11],
  ])('%j → %s at %i:%i (and JSON.parse agrees it is invalid)', (text, message, line, column) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(findJsonSyntaxError(text)).toMatchObject({ message, line, column });
  });

  it('never throws on absurd nesting (the caller falls back to the native message)', () => {
    const deep = '['.repeat(200_000);
    expect(() => findJsonSyntaxError(deep)).not.toThrow();
  });

  it.each([
    ['abc', 0, 1, 1],
    ['ab\ncd', 3, 2, 1],
    ['ab\r\ncd', 5, 2, 2],
  ])('lineAndColumn(%j, %i) = %i:%i', (text, offset, line, column) => {
    expect(lineAndColumn(text, offset)).toEqual({ line, column });
  });
});

describe('issue formatting helpers', () => {
  it.each<[PropertyKey[], string]>([
    [[], ''],
    [['agent', 'maxConcurrent'], 'agent.maxConcurrent'],
    [['authProfiles', 0, 'provider'], 'authProfiles[0].provider'],
    [['providers', 'my-local', 'models', 2, 'id'], 'providers.my-local.models[2].id'],
    [['providers', 'a.b'], 'providers["a.b"]'],
  ])('formatPath(%j) = %j', (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });

  it.each<[unknown, string]>([
    ['four', '"four"'],
    [4, '4'],
    [false, 'false'],
    [null, 'null'],
    [undefined, 'nothing'],
    [[1], 'an array'],
    [{ a: 1 }, 'an object'],
    ['x'.repeat(50), `"${'x'.repeat(39)}…"`],
  ])('formatValue(%j) = %s', (v, expected) => {
    expect(formatValue(v)).toBe(expected);
  });

  it.each<[string, string[], string | undefined]>([
    ['provider', ['providers', 'authProfiles', 'agent'], 'providers'],
    ['aip', ['api', 'baseUrl'], 'api'],
    ['Sandbox', ['sandbox', 'model'], 'sandbox'],
    ['maxConcurency', ['maxConcurrent', 'model'], 'maxConcurrent'],
    ['colour', ['model', 'thinking', 'sandbox'], undefined],
    ['x', ['id'], undefined],
  ])('suggest(%j) = %j', (key, allowed, expected) => {
    expect(suggest(key, allowed)).toBe(expected);
  });
});
