import { describe, expect, it } from 'vitest';
import { isScrubbedName, scrubEnv } from '../../main/tools/env.js';
import { createWorkspaceTools, toolSpecsOf } from '../../main/tools/index.js';
import { HeadTailCollector, headTail, humanSize } from '../../main/tools/text.js';

describe('headTail', () => {
  it.each([
    ['fits', 'abcdef', 6, 'abcdef'],
    ['empty', '', 4, ''],
    ['one over', 'abcdefg', 6, 'abc\n[… 1 chars omitted …]\nefg'],
    ['odd cap', '0123456789', 5, '012\n[… 5 chars omitted …]\n89'],
    ['zero cap', 'abc', 0, '\n[… 3 chars omitted …]\n'],
  ])('%s', (_label, text, cap, expected) => {
    expect(headTail(text, cap)).toBe(expected);
  });

  it.each([[[1]], [[3, 3, 3]], [[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]], [[7, 13]]])(
    'gives the same result whatever the chunking (%j)',
    (sizes) => {
      const text = 'abcdefghijklmnopqrst';
      const c = new HeadTailCollector(8);
      let at = 0;
      for (const size of sizes) {
        c.push(text.slice(at, at + size));
        at += size;
      }
      c.push(text.slice(at));
      expect(c.text()).toBe('abcd\n[… 12 chars omitted …]\nqrst');
      expect(c.length).toBe(20);
      expect(c.truncated).toBe(true);
    },
  );
});

describe('humanSize', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KB'],
    [1536, '1.5 KB'],
    [5_000_000, '4.8 MB'],
    [200 * 1024 * 1024, '200 MB'],
    [3 * 1024 ** 4, '3.0 TB'],
  ])('%i → %s', (bytes, text) => {
    expect(humanSize(bytes)).toBe(text);
  });
});

describe('env scrubbing', () => {
  it.each([
    ['FOO_API_KEY', true],
    ['GITHUB_TOKEN', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['DB_PASSWORD', true],
    ['MYSQL_PWD_PASSWD', true],
    ['GOOGLE_APPLICATION_CREDENTIALS', true],
    ['ANTHROPIC_BASE_URL', true],
    ['openai_org', true],
    ['PATH', false],
    ['HOME', false],
    ['LANG', false],
    ['GIT_AUTHOR_NAME', false],
    ['MY_OPENAI_NOTES', false],
  ])('%s scrubbed: %s', (name, scrubbed) => {
    expect(isScrubbedName(name)).toBe(scrubbed);
  });

  it('keeps ordinary variables, drops secrets, and disables pagers and prompts', () => {
    expect(scrubEnv({ PATH: '/bin', HOME: '/h', NPM_TOKEN: 't', UNSET: undefined, PAGER: 'less' })).toEqual({
      PATH: '/bin',
      HOME: '/h',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
    });
  });
});

describe('createWorkspaceTools', () => {
  const tools = createWorkspaceTools();

  it('returns list, read, write, exec in that order', () => {
    expect(tools.map((t) => t.name)).toEqual(['list', 'read', 'write', 'edit', 'apply_patch', 'find', 'grep', 'exec', 'process']);
  });

  it('gives specs with closed JSON-Schema objects whose required keys are declared', () => {
    const specs = toolSpecsOf(tools);
    expect(specs.map((s) => Object.keys(s).sort())).toEqual(specs.map(() => ['description', 'name', 'parameters']));
    for (const spec of specs) {
      const p = spec.parameters as { type: string; properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
      expect(p.type).toBe('object');
      expect(p.additionalProperties).toBe(false);
      for (const key of p.required) expect(Object.keys(p.properties)).toContain(key);
      expect(spec.description.length).toBeGreaterThan(20);
    }
    expect(specs.map((s) => (s.parameters as { required: string[] }).required)).toEqual([
      [],
      ['path'],
      ['path', 'content'],
      ['path', 'edits'],
      ['patch'],
      ['pattern'],
      ['pattern'],
      ['command'],
      ['action'],
    ]);
  });

  it('passes the exec timeout into the description', () => {
    const exec = createWorkspaceTools({ execTimeoutMs: 5000 }).find((t) => t.name === 'exec');
    expect(exec?.description).toContain('Default timeout 5s');
  });
});
