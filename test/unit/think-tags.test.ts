import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../support/prng.js';
import { createThinkTagFilter, stripThinkTags, type ThinkSplit } from '../../main/engine/stream/think-tags.js';
import { cpuMs } from '../support/cpu-time.js';

/** Feeds `chunks` through one filter and concatenates every output, flush included. */
function feed(chunks: string[]): ThinkSplit & { parts: ThinkSplit[] } {
  const f = createThinkTagFilter();
  const parts = chunks.map((c) => f.push(c));
  parts.push(f.flush());
  return {
    text: parts.map((p) => p.text).join(''),
    thinking: parts.map((p) => p.thinking).join(''),
    parts,
  };
}

function randomChunks(s: string, random: () => number, maxLen: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const len = 1 + Math.floor(random() * maxLen);
    out.push(s.slice(i, i + len));
    i += len;
  }
  return out;
}

describe('stripThinkTags (one-shot)', () => {
  it.each<[string, string, string, string]>([
    // [name, input, expected text, expected thinking]
    // Inventory §12 observed and §21 item 10:
    ['basic think block', '<think>secret</think>Visible answer.', 'Visible answer.', 'secret'],
    [
      'inline-code tag kept, final tags removed',
      'Here is `<think>` literally and <final>Final text</final>',
      'Here is `<think>` literally and Final text',
      '',
    ],
    ['orphan close moves the leaked preamble', 'Internal reasoning </think> final answer', 'final answer', 'Internal reasoning '],
    ['final tags removed, content kept', 'A<final>1</final>B', 'A1B', ''],
    [
      'fenced think kept',
      '```xml\n<think>x</think>\n```\nafter',
      '```xml\n<think>x</think>\n```\nafter',
      '',
    ],
    // Tag variants:
    ['upper/mixed case', '<THINKING>a</Thinking>b', 'b', 'a'],
    ['antml prefix', '<antml:thinking>a</antml:thinking>b', 'b', 'a'],
    ['mm prefix', '<mm:think>a</mm:think>b', 'b', 'a'],
    ['thought', '<thought>a</thought>b', 'b', 'a'],
    ['antthinking', '<antthinking>a</antthinking>b', 'b', 'a'],
    ['attributes', '<think type="reasoning" n=1>a</think >b', 'b', 'a'],
    ['self-closing removed', 'A<think/>B<think />C<final/>D', 'ABCD', ''],
    ['unclosed think stays thinking', 'Sure.<think>abc', 'Sure.', 'abc'],
    ['unclosed think then <final> (#87712)', '<think>plan<final>Answer</final>', 'Answer', 'plan'],
    ['</final> inside thinking dropped', '<think>a</final>b</think>c', 'c', 'ab'],
    ['interleaved blocks', '<think>a</think>Hello <think>b</think>world', 'Hello world', 'ab'],
    ['nested open ignored', '<think>a<think>b</think>c', 'c', 'ab'],
    ['orphan after a complete block', '<think>a</think>Hi</think>There', 'There', 'aHi'],
    ['leading blank lines after think dropped', '<think>x</think>\n\nAnswer', 'Answer', 'x'],
    ['inner whitespace kept once text started', 'A<think>x</think> B', 'A B', 'x'],
    // Not tags:
    ['longer name', '<thinker>x</thinker>', '<thinker>x</thinker>', ''],
    ['hyphenated name', '<think-tank>', '<think-tank>', ''],
    ['comparison', 'a < b and c > d', 'a < b and c > d', ''],
    ['attribute across newline', '<think\n>a', '<think\n>a', ''],
    ['attribute across another <', '<think a<think>b', '<think a', 'b'],
    ['trailing partial tag released', 'x<thin', 'x<thin', ''],
    ['trailing < released', 'x <', 'x <', ''],
    ['trailing </ released inside thinking', '<think>x</', '', 'x</'],
    // Code awareness:
    ['double-backtick span', '``a ` <think>b</think> ``c', '``a ` <think>b</think> ``c', ''],
    ['inline code ends at newline', '`stray\n<think>x</think>y', '`stray\ny', 'x'],
    [
      'tilde fence',
      '~~~\n<think>x</think>\n~~~\n<think>y</think>z',
      '~~~\n<think>x</think>\n~~~\nz',
      'y',
    ],
    [
      'shorter run does not close a longer fence',
      '````\n```\n<think>x</think>\n````\n<think>y</think>z',
      '````\n```\n<think>x</think>\n````\nz',
      'y',
    ],
    [
      'closing fence with info string does not close',
      '```\n```js\n<think>x</think>\n```\n<think>y</think>z',
      '```\n```js\n<think>x</think>\n```\nz',
      'y',
    ],
    ['fence indented by 3 spaces', '   ```\n<think>x</think>\n   ```\nok', '   ```\n<think>x</think>\n   ```\nok', ''],
    ['4-space indent is not a fence opener', '    ```\n<think>x</think>y', '    ```\ny', 'x'],
    ['a run right after a tag is not at line start', '<think>```\n</think>x', 'x', '```\n'],
    ['tildes mid-line are text', 'a ~~~ <think>x</think>b', 'a ~~~ b', 'x'],
    [
      'fence inside thinking protects its close tag',
      '<think>\n```\n</think>\n```\n</think>done',
      'done',
      '\n```\n</think>\n```\n',
    ],
    ['CRLF fence', '```\r\n<think>x</think>\r\n```\r\n<think>y</think>z', '```\r\n<think>x</think>\r\n```\r\nz', 'y'],
  ])('%s', (_name, input, text, thinking) => {
    expect(stripThinkTags(input)).toEqual({ text, thinking });
  });
});

/** Inputs without an orphan close: every chunking must give the one-shot result. */
const SPLIT_CASES = [
  '<think>secret</think>Visible answer.',
  'Here is `<think>` literally and <final>Final text</final>',
  'A<final>1</final>B',
  '<think type="r">plan <b>bold</b></think>\n\nAnswer with `</think>` inside.',
  'Intro\n```ts\nconst a = "<think>";\n```\n<thinking>x</thinking>Done.<think/>',
  '````\n```\n<think>x</think>\n````\n<thinking>y</thinking>z ``a`b`` end',
  '~~~\n</think>\n~~~\n<think>plan<final>Answer</final> a < b </fina',
  'a <thinker> <think\n> <THINK >x</Think> ` <think>` tail\n<final/>',
];

describe('think-tag filter: chunking does not change the result', () => {
  it.each(SPLIT_CASES.map((s, i) => [i, s] as const))('case %i char by char and at every split', (_i, s) => {
    const whole = feed([s]);
    expect(feed([...s])).toEqual({ ...whole, parts: expect.any(Array) });
    for (let k = 0; k <= s.length; k++) {
      const r = feed([s.slice(0, k), s.slice(k)]);
      expect({ text: r.text, thinking: r.thinking }, `split at ${k}`).toEqual({
        text: whole.text,
        thinking: whole.thinking,
      });
    }
  });

  it.each(SPLIT_CASES.map((s, i) => [i, s] as const))('case %i in 200 random chunkings', (i, s) => {
    const whole = stripThinkTags(s);
    const random = mulberry32(1000 + i);
    for (let round = 0; round < 200; round++) {
      const chunks = randomChunks(s, random, 1 + (round % 9));
      const r = feed(chunks);
      expect({ text: r.text, thinking: r.thinking }, JSON.stringify(chunks)).toEqual(whole);
    }
  });

  it('the one-shot results of the split cases are what we expect (guards against a filter that strips nothing)', () => {
    expect(SPLIT_CASES.map((s) => stripThinkTags(s))).toEqual([
      { text: 'Visible answer.', thinking: 'secret' },
      { text: 'Here is `<think>` literally and Final text', thinking: '' },
      { text: 'A1B', thinking: '' },
      { text: 'Answer with `</think>` inside.', thinking: 'plan <b>bold</b>' },
      { text: 'Intro\n```ts\nconst a = "<think>";\n```\nDone.', thinking: 'x' },
      { text: '````\n```\n<think>x</think>\n````\nz ``a`b`` end', thinking: 'y' },
      { text: '~~~\n</think>\n~~~\nAnswer a < b </fina', thinking: 'plan' },
      { text: 'a <thinker> <think\n>  ` <think>` tail\n', thinking: 'x' },
    ]);
  });
});

describe('think-tag filter: streaming behaviour', () => {
  it('holds a split opening and closing tag until it is complete', () => {
    const f = createThinkTagFilter();
    expect(f.push('Hi <thi')).toEqual({ text: 'Hi ', thinking: '' });
    expect(f.push('nk>abc</thi')).toEqual({ text: '', thinking: 'abc' });
    expect(f.push('nk> done')).toEqual({ text: ' done', thinking: '' });
    expect(f.flush()).toEqual({ text: '', thinking: '' });
  });

  it('releases a held "<" once it cannot be a tag', () => {
    const f = createThinkTagFilter();
    expect(f.push('a <')).toEqual({ text: 'a ', thinking: '' });
    expect(f.push(' b')).toEqual({ text: '< b', thinking: '' });
  });

  it('flush releases a held fragment as-is to the open stream', () => {
    const f = createThinkTagFilter();
    expect(f.push('<think>a</fin')).toEqual({ text: '', thinking: 'a' });
    expect(f.flush()).toEqual({ text: '', thinking: '</fin' });
  });

  it('keeps fence state across chunks, including a fence split as `` + `', () => {
    const f = createThinkTagFilter();
    expect(f.push('``')).toEqual({ text: '``', thinking: '' });
    expect(f.push('`\n<think>x</think>\n``')).toEqual({ text: '`\n<think>x</think>\n``', thinking: '' });
    expect(f.push('`\n<think>y</think>z')).toEqual({ text: '`\nz', thinking: 'y' });
  });

  it('orphan close: text of the same push moves to thinking', () => {
    const f = createThinkTagFilter();
    expect(f.push('Reasoning here</think>Answer')).toEqual({ text: 'Answer', thinking: 'Reasoning here' });
  });

  it('orphan close: text already returned stays text and only the tag is dropped (documented limit)', () => {
    const f = createThinkTagFilter();
    expect(f.push('Internal ')).toEqual({ text: 'Internal ', thinking: '' });
    expect(f.push('reasoning </think> final')).toEqual({ text: 'reasoning  final', thinking: '' });
    // The one-shot pass over the final text gives the authoritative split.
    expect(stripThinkTags('Internal reasoning </think> final')).toEqual({
      text: 'final',
      thinking: 'Internal reasoning ',
    });
  });

  it('flush resets the filter for the next message', () => {
    const f = createThinkTagFilter();
    f.push('```\n<think>');
    f.flush();
    expect(f.push('<think>x</think>y')).toEqual({ text: 'y', thinking: 'x' });
  });

  it('is linear: 1 MB in small chunks well under a second', () => {
    const unit = 'Some prose with `code` and <b>html</b> a < b.\n<think>reason ```x``` </think>Answer ~~ ok\n';
    const big = unit.repeat(Math.ceil(1_000_000 / unit.length));
    const chunks = randomChunks(big, mulberry32(7), 24);
    const { ms, value: r } = cpuMs(() => feed(chunks));
    expect(r.thinking.length).toBeGreaterThan(0);
    expect(r.text).not.toContain('<think>');
    expect(ms).toBeLessThan(1500);
  });

  it('a long run of partial tags does not make it quadratic', () => {
    const s = '<think '.repeat(20_000); // every candidate ends at the next '<'
    const chunks = randomChunks(s, mulberry32(3), 5);
    const { ms, value: r } = cpuMs(() => feed(chunks));
    expect(r.text).toBe(s);
    expect(ms).toBeLessThan(1500);
  });
});

describe('stray backtick inside a think block (E14)', () => {
  it.each<[string, string[], string, string]>([
    ['one chunk', ['<think>a ` b</think>The answer'], 'The answer', 'a ` b'],
    ['split at the backtick', ['<think>a `', ' b</th', 'ink>The answer'], 'The answer', 'a ` b'],
    ['double backtick', ['<think>x `` y</think>', 'Done'], 'Done', 'x `` y'],
    ['code after the block still protects tags', ['<think>a ` b</think>Use `<think>` here'], 'Use `<think>` here', 'a ` b'],
  ])('%s', (_name, chunks, text, thinking) => {
    const r = feed(chunks);
    expect({ text: r.text, thinking: r.thinking }).toEqual({ text, thinking });
  });
});

describe('holdStart: a reply that only closes </think> (DeepSeek-R1 style)', () => {
  function feedHold(chunks: string[], maxHoldChars?: number) {
    const f = createThinkTagFilter({ holdStart: true, maxHoldChars });
    const parts = chunks.map((c) => f.push(c));
    parts.push(f.flush());
    return { text: parts.map((p) => p.text).join(''), thinking: parts.map((p) => p.thinking).join(''), parts };
  }

  it.each<[string, string[], string, string]>([
    ['orphan close split over chunks', ['Let me reason', ' about it.\n</th', 'ink>\n\nThe answer', ' is 4.'], 'The answer is 4.', 'Let me reason about it.\n'],
    ['normal opener', ['<think>plan</think>', 'Answer'], 'Answer', 'plan'],
    ['no tag at all: released at the end', ['Just ', 'an answer.'], 'Just an answer.', ''],
  ])('%s', (_name, chunks, text, thinking) => {
    const r = feedHold(chunks);
    expect({ text: r.text, thinking: r.thinking }).toEqual({ text, thinking });
  });

  it('nothing of the reasoning is ever returned as text before the close tag', () => {
    const r = feedHold(['Reasoning one. ', 'Reasoning two. ', '</think>', 'Reply.']);
    expect(r.parts.slice(0, 2).map((p) => p.text)).toEqual(['', '']);
    expect(r.text).toBe('Reply.');
  });

  it('after a tag was seen, text streams without delay', () => {
    const r = feedHold(['<think>x</think>', 'A', 'B']);
    expect(r.parts.map((p) => p.text)).toEqual(['', 'A', 'B', '']);
  });

  it('releases a held start longer than maxHoldChars', () => {
    const r = feedHold(['aaaa', 'bbbb', 'cc'], 6);
    expect(r.parts.map((p) => p.text)).toEqual(['', 'aaaabbbb', 'cc', '']);
  });
});
