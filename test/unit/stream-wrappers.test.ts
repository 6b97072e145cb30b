import { describe, expect, it } from 'vitest';
import type { AssistantBlock, AssistantMessage } from '../../main/engine/messages.js';
import type { ProviderEvent, StreamFn, StreamRequest } from '../../main/providers/types.js';
import { composeLayers, defaultLayers, streamMapper, type StreamLayer } from '../../main/engine/stream/wrappers/index.js';

/** The default layers composed as StreamFns: the oracle the attempt's one-mapper form must agree with. */
const wrapStreamFn = (base: Parameters<typeof composeLayers>[0], opts: Parameters<typeof defaultLayers>[0]) => composeLayers(base, defaultLayers(opts));
import { eventLayer } from '../../main/engine/stream/wrappers/layer.js';
import { judgeToolCall, sanitizeToolCallsLayer } from '../../main/engine/stream/wrappers/sanitize-tool-calls.js';
import {
  couldBeTextToolCall,
  parseStandaloneToolCall,
  promoteTextToolCallsLayer,
} from '../../main/engine/stream/wrappers/promote-text-tool-calls.js';
import { normaliseToolName, trimToolNamesLayer } from '../../main/engine/stream/wrappers/trim-tool-names.js';
import { stripControlChars, textTransformsLayer } from '../../main/engine/stream/wrappers/text-transforms.js';
import { INVALID_TOOL_NAME } from '../../main/engine/stream/wrappers/types.js';

const allowed = ['read', 'write', 'exec', 'list'];
const ids = () => {
  let n = 0;
  return () => `gen_${++n}`;
};

function message(content: AssistantBlock[], stopReason: AssistantMessage['stopReason'] = 'stop'): AssistantMessage {
  return { role: 'assistant', content, provider: 'p', model: 'm', api: 'openai-chat', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason, timestamp: 1 };
}

const source = (events: ProviderEvent[]): StreamFn =>
  async function* () {
    yield* events;
  };

async function collect(fn: StreamFn): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of fn({} as StreamRequest)) out.push(e);
  return out;
}

/** A whole text message as a provider streams it. */
function textMessage(chunks: string[]): ProviderEvent[] {
  return [
    { type: 'message_start' },
    ...chunks.map((delta): ProviderEvent => ({ type: 'text_delta', index: 0, delta })),
    { type: 'done', stopReason: 'stop', message: message([{ type: 'text', text: chunks.join('') }]) },
  ];
}

function toolMessage(calls: { id: string; name: string; args?: Record<string, unknown> }[], text?: string): ProviderEvent[] {
  const offset = text === undefined ? 0 : 1;
  const events: ProviderEvent[] = [{ type: 'message_start' }];
  if (text !== undefined) events.push({ type: 'text_delta', index: 0, delta: text });
  calls.forEach((c, i) => {
    events.push({ type: 'toolcall_start', index: i + offset, id: c.id, name: c.name });
    events.push({ type: 'toolcall_end', index: i + offset, id: c.id, name: c.name, arguments: c.args ?? {} });
  });
  const content: AssistantBlock[] = [
    ...(text === undefined ? [] : [{ type: 'text' as const, text }]),
    ...calls.map((c) => ({ type: 'toolCall' as const, id: c.id, name: c.name, arguments: c.args ?? {} })),
  ];
  events.push({ type: 'done', stopReason: 'toolUse', message: message(content, 'toolUse') });
  return events;
}

const done = (events: ProviderEvent[]) => events.find((e) => e.type === 'done') as Extract<ProviderEvent, { type: 'done' }>;
const ends = (events: ProviderEvent[]) => events.filter((e) => e.type === 'toolcall_end') as Extract<ProviderEvent, { type: 'toolcall_end' }>[];

describe('judgeToolCall (inventory §21 item 8)', () => {
  it.each<[string, { id: string; name: string }, { id: string; name: string; invalid: RegExp | undefined }]>([
    ['well-formed', { id: 'c1', name: 'read' }, { id: 'c1', name: 'read', invalid: undefined }],
    ['no id → generated', { id: '', name: 'read' }, { id: 'gen_1', name: 'read', invalid: undefined }],
    ['blank id → generated', { id: '  ', name: 'read' }, { id: 'gen_1', name: 'read', invalid: undefined }],
    ['blank name', { id: 'c1', name: '   ' }, { id: 'c1', name: INVALID_TOOL_NAME, invalid: /no tool name/ }],
    ['name over 80 characters', { id: 'c1', name: 'r'.repeat(81) }, { id: 'c1', name: INVALID_TOOL_NAME, invalid: /longer than 80/ }],
    ['name of exactly 80 is judged by the allow-list', { id: 'c1', name: 'r'.repeat(80) }, { id: 'c1', name: 'r'.repeat(80), invalid: /Unknown tool/ }],
    ['characters no provider accepts', { id: 'c1', name: 'read file' }, { id: 'c1', name: INVALID_TOOL_NAME, invalid: /not a valid tool name/ }],
    ['not on the allow-list', { id: 'c1', name: 'delete_everything' }, { id: 'c1', name: 'delete_everything', invalid: /Unknown tool "delete_everything"/ }],
    ['padded name is allowed (trimmed later)', { id: 'c1', name: ' read ' }, { id: 'c1', name: ' read ', invalid: undefined }],
    ['case drift is allowed (normalised later)', { id: 'c1', name: 'Read' }, { id: 'c1', name: 'Read', invalid: undefined }],
  ])('%s', (_name, call, expected) => {
    const v = judgeToolCall(call, { allowed, newId: ids() });
    expect({ id: v.id, name: v.name }).toEqual({ id: expected.id, name: expected.name });
    if (expected.invalid) expect(v.invalid).toMatch(expected.invalid);
    else expect(v.invalid).toBeUndefined();
  });
});

describe('parseStandaloneToolCall', () => {
  it.each<[string, string, { name: string; arguments: Record<string, unknown> } | undefined]>([
    ['plain object', '{"name":"read","arguments":{"path":"a.txt"}}', { name: 'read', arguments: { path: 'a.txt' } }],
    ['json fence', '```json\n{"name":"read","arguments":{"path":"a"}}\n```', { name: 'read', arguments: { path: 'a' } }],
    ['tool_call wrapper', '<tool_call>\n{"name":"list","arguments":{}}\n</tool_call>', { name: 'list', arguments: {} }],
    ['OpenAI function shape with string arguments', '{"type":"function","function":{"name":"read","arguments":"{\\"path\\":\\"b\\"}"}}', { name: 'read', arguments: { path: 'b' } }],
    ['parameters key, case drift', '  {"name":"Read","parameters":{"path":"c"}}  ', { name: 'read', arguments: { path: 'c' } }],
    ['tool not offered', '{"name":"rm","arguments":{}}', undefined],
    ['text around it', 'Sure: {"name":"read","arguments":{}}', undefined],
    ['an answer that is JSON with other keys', '{"name":"Alice","age":3}', undefined],
    ['invalid JSON', '{"name":"read","arguments":{', undefined],
    ['arguments not an object', '{"name":"read","arguments":[1]}', undefined],
  ])('%s', (_name, text, expected) => {
    expect(parseStandaloneToolCall(text, allowed)).toEqual(expected);
  });
});

describe('couldBeTextToolCall', () => {
  it.each([
    ['', true],
    ['  ', true],
    ['{"na', true],
    ['`', true],
    ['``', true],
    ['```json\n{', true],
    ['<tool', true],
    ['Sure', false],
    ['`code` here', false],
    ['<b>', false],
  ])('%j → %s', (text, expected) => {
    expect(couldBeTextToolCall(text)).toBe(expected);
  });
});

describe('normaliseToolName / text transforms', () => {
  it.each([
    [' read ', 'read'],
    ['READ', 'read'],
    ['Exec\n', 'exec'],
    ['unknown', 'unknown'],
  ])('%j → %j', (name, expected) => {
    expect(normaliseToolName(allowed, name)).toBe(expected);
  });
  it.each([
    ['a\u0000b', 'ab'],
    ['tab\tand\nnewline\r\n', 'tab\tand\nnewline\r\n'],
    ['esc\u001b[0m', 'esc[0m'],
  ])('stripControlChars(%j)', (text, expected) => {
    expect(stripControlChars(text)).toBe(expected);
  });
  it('applies a transform to the deltas and the terminal message alike', async () => {
    const out = await collect(textTransformsLayer([stripControlChars])(source(textMessage(['He\u0000l', 'lo']))));
    const deltas = out.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : []));
    expect(deltas.join('')).toBe('Hello');
    expect(done(out).message.content).toEqual([{ type: 'text', text: 'Hello' }]);
  });
});

describe('sanitize layer', () => {
  it('marks malformed calls invalid in events and fixes ids and names in the message', async () => {
    const out = await collect(
      sanitizeToolCallsLayer({ allowed, newId: ids() })(source(toolMessage([{ id: '', name: 'read' }, { id: 'c2', name: '' }, { id: 'c3', name: 'nope' }]))),
    );
    expect(ends(out).map((e) => [e.id, e.name, e.invalid ?? null])).toEqual([
      ['gen_1', 'read', null],
      ['c2', INVALID_TOOL_NAME, expect.stringMatching(/no tool name/)],
      ['c3', 'nope', expect.stringMatching(/Unknown tool/)],
    ]);
    expect(done(out).message.content.map((b) => (b.type === 'toolCall' ? [b.id, b.name] : null))).toEqual([
      ['gen_1', 'read'],
      ['c2', INVALID_TOOL_NAME],
      ['c3', 'nope'],
    ]);
  });
});

describe('promote layer', () => {
  const promote = () => promoteTextToolCallsLayer({ allowed, newId: ids() });
  it('turns a standalone JSON text call into a tool call; the text is never streamed', async () => {
    const out = await collect(promote()(source(textMessage(['{"name":"re', 'ad","arguments":{"path":"x"}}']))));
    expect(out.some((e) => e.type === 'text_delta')).toBe(false);
    expect(ends(out)).toEqual([{ type: 'toolcall_end', index: 0, id: 'gen_1', name: 'read', arguments: { path: 'x' } }]);
    expect(done(out).stopReason).toBe('toolUse');
    expect(done(out).message.content).toEqual([{ type: 'toolCall', id: 'gen_1', name: 'read', arguments: { path: 'x' } }]);
  });
  it('passes ordinary text through at once, and releases held JSON that is not a call', async () => {
    const plain = await collect(promote()(source(textMessage(['Hello', ' world']))));
    expect(plain.filter((e) => e.type === 'text_delta').length).toBe(2);
    const json = await collect(promote()(source(textMessage(['{"name":"Alice",', '"age":3}']))));
    expect(json.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')).toBe('{"name":"Alice","age":3}');
    expect(done(json).message.content).toEqual([{ type: 'text', text: '{"name":"Alice","age":3}' }]);
  });
  it('leaves the text alone when the message has a native call', async () => {
    const out = await collect(promote()(source(toolMessage([{ id: 'c1', name: 'list' }], '{"name":"read","arguments":{}}'))));
    expect(ends(out).map((e) => e.name)).toEqual(['list']);
  });
});

describe('layer order (E9: sanitise → promote → trim)', () => {
  // A local server emits an empty-named tool-call delta next to the call the model wrote as text.
  const scenario = () => {
    const text = '{"name":" Read ","arguments":{"path":"notes.txt"}}';
    const events: ProviderEvent[] = [
      { type: 'message_start' },
      { type: 'text_delta', index: 0, delta: text },
      { type: 'toolcall_start', index: 1, id: 'c1', name: '' },
      { type: 'toolcall_end', index: 1, id: 'c1', name: '', arguments: {} },
      {
        type: 'done',
        stopReason: 'toolUse',
        message: message([{ type: 'text', text }, { type: 'toolCall', id: 'c1', name: '', arguments: {} }], 'toolUse'),
      },
    ];
    return source(events);
  };
  const opts = () => ({ allowed, newId: ids() });

  it('chosen order: the blank call is answered with an error AND the intended text call runs, name normalised', async () => {
    const o = opts();
    const out = await collect(composeLayers(scenario(), [sanitizeToolCallsLayer(o), promoteTextToolCallsLayer(o), trimToolNamesLayer(o)]));
    expect(ends(out).map((e) => [e.name, e.invalid === undefined])).toEqual([
      [INVALID_TOOL_NAME, false],
      ['read', true],
    ]);
    expect(done(out).message.content.map((b) => b.type === 'toolCall' && b.name)).toEqual(['read', INVALID_TOOL_NAME]);
  });

  it('promote before sanitise: promotion sees "a native call exists" and the intended call is lost as text', async () => {
    const o = opts();
    const out = await collect(composeLayers(scenario(), [promoteTextToolCallsLayer(o), sanitizeToolCallsLayer(o), trimToolNamesLayer(o)]));
    expect(ends(out).map((e) => e.name)).toEqual([INVALID_TOOL_NAME]);
    expect(done(out).message.content[0]).toMatchObject({ type: 'text' });
  });

  it('wrapStreamFn is the chosen order', async () => {
    const out = await collect(wrapStreamFn(scenario(), opts()));
    expect(ends(out).map((e) => [e.name, e.invalid === undefined])).toEqual([
      [INVALID_TOOL_NAME, false],
      ['read', true],
    ]);
  });
});

describe('composeLayers: a row of event layers runs fused in one generator', () => {
  const expand = (tag: string): StreamLayer =>
    eventLayer(() => (e) => (e.type === 'text_delta' ? [{ ...e, delta: `${e.delta}${tag}` }, { ...e, delta: tag }] : [e]));
  const drop = eventLayer(() => (e) => (e.type === 'text_delta' && e.delta === 'b' ? [] : [e]));
  /** A plain (non-event) layer in the middle splits the row. */
  const plain: StreamLayer = (next) =>
    async function* (req) {
      for await (const e of next(req)) yield e.type === 'text_delta' ? { ...e, delta: e.delta.toUpperCase() } : e;
    };
  const nested = (base: StreamFn, layers: StreamLayer[]): StreamFn => layers.reduce<StreamFn>((fn, layer) => layer(fn), base);

  it.each([
    ['event layers only', () => [expand('a'), drop, expand('c')]],
    ['a plain layer between event layers', () => [expand('a'), plain, drop, expand('b')]],
    ['the default pipeline', () => [textTransformsLayer([stripControlChars]), expand('x'), trimToolNamesLayer({ allowed })]],
  ])('%s: same events as nesting the layers one by one', async (_name, layers) => {
    const events = textMessage(['one', 'b', 'two\u0007']);
    expect(await collect(composeLayers(source(events), layers()))).toEqual(await collect(nested(source(events), layers())));
  });
});

describe('streamMapper: the attempt maps each provider event synchronously', () => {
  /** What the attempt sees: the base stream iterated, every event mapped into `out`. */
  async function mapped(base: StreamFn, o: { allowed: string[]; newId: () => string }): Promise<ProviderEvent[]> {
    const req = {} as StreamRequest;
    const map = streamMapper(o)(req);
    const out: ProviderEvent[] = [];
    for await (const e of base(req)) map(e, out);
    return out;
  }
  const textCall = '{"name":" Read ","arguments":{"path":"notes.txt"}}';

  it.each<[string, ProviderEvent[]]>([
    ['plain text in chunks', textMessage(['Hel', 'lo\u0000', ' world'])],
    ['a control character alone is dropped', textMessage(['a', '\u0007', 'b'])],
    ['a text tool call held back and promoted', textMessage(['{"name":', '"read","arguments":{}}'])],
    ['text that starts like a call but is not one', textMessage(['{', 'not json'])],
    ['native calls: valid, unknown, blank, padded', toolMessage([{ id: 'c1', name: 'read' }, { id: 'c2', name: 'nope' }, { id: '', name: ' ' }, { id: 'c4', name: ' Exec ' }], 'Let me look.')],
    ['a blank native call next to a text call', [
      { type: 'message_start' },
      { type: 'text_delta', index: 0, delta: textCall },
      { type: 'toolcall_start', index: 1, id: 'c1', name: '' },
      { type: 'toolcall_end', index: 1, id: 'c1', name: '', arguments: {} },
      { type: 'done', stopReason: 'toolUse', message: message([{ type: 'text', text: textCall }, { type: 'toolCall', id: 'c1', name: '', arguments: {} }], 'toolUse') },
    ]],
    ['an error terminal releases held text', [
      { type: 'message_start' },
      { type: 'text_delta', index: 0, delta: '{"na' },
      { type: 'error', error: new Error('drop'), message: message([{ type: 'text', text: '{"na' }], 'error') },
    ]],
  ])('%s: same events as wrapStreamFn', async (_name, events) => {
    expect(await mapped(source(events), { allowed, newId: ids() })).toEqual(await collect(wrapStreamFn(source(events), { allowed, newId: ids() })));
  });
});
