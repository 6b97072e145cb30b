/** X3 pure parts and the store: type sniffing, @-completion ranking, quoting, image tokens, provider image shapes,
 * the send-time resolver (vision and text-only), the store (content-addressed, crash-safe) and the transcript shape. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageMime, isText } from '../../main/sessions/media-type.js';
import { rankCompletions } from '../../main/gateway/methods/path-rank.js';
import { AttachmentResolver, quoteFile, withAttachments } from '../../main/sessions/attachment-send.js';
import { imageTokens } from '../../main/engine/attempt/tokens.js';
import { toAnthropicMessages } from '../../main/providers/anthropic-convert.js';
import { toOpenAIMessages } from '../../main/providers/openai-convert.js';
import { toResponsesInput } from '../../main/providers/openai-responses-convert.js';
import { AttachmentStore } from '../../main/sessions/attachments.js';
import { SessionStore } from '../../main/sessions/store.js';
import type { Message } from '../../main/engine/messages.js';
import type { ModelDef, ProviderEvent, StreamRequest } from '../../main/providers/types.js';
import { fitImage, IMAGE_LIMITS } from '../../main/sessions/image-fit.js';
import { flatImage, noisePng } from '../support/images.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentdesk-attach-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bytes = (...b: number[]) => new Uint8Array(b);

describe('imageMime / isText', () => {
  it.each([
    ['PNG', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0), 'image/png'],
    ['JPEG', bytes(0xff, 0xd8, 0xff, 0xe0), 'image/jpeg'],
    ['GIF', new TextEncoder().encode('GIF89a'), 'image/gif'],
    ['WebP', new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '), 'image/webp'],
    ['a RIFF that is not WebP', new TextEncoder().encode('RIFF\0\0\0\0WAVEfmt '), null],
    ['text', new TextEncoder().encode('hello'), null],
    ['too short', bytes(0x89, 0x50), null],
  ])('%s', (_l, head, want) => expect(imageMime(head)).toBe(want));

  it.each([
    ['ASCII', new TextEncoder().encode('a\nb'), true],
    ['UTF-8 with a BOM', new TextEncoder().encode('\uFEFFgrüß'), true],
    ['a NUL byte', bytes(0x61, 0, 0x62), false],
    ['invalid UTF-8', bytes(0xc3, 0x28), false],
  ])('isText: %s', (_l, b, want) => expect(isText(b)).toBe(want));
});

describe('rankCompletions (@ paths)', () => {
  const paths = ['README.md', 'src/', 'src/app.ts', 'src/main/', 'src/main/app.tsx', 'test/app.test.ts', 'docs/cli.md'];
  it.each([
    ['a path prefix first', 'src/m', ['src/main/', 'src/main/app.tsx']],
    ['a file-name prefix next', 'app', ['src/app.ts', 'src/main/app.tsx', 'test/app.test.ts']],
    ['case-insensitive', 'readme', ['README.md']],
    ['in-order letters (fuzzy)', 'sma', ['src/main/', 'src/main/app.tsx']],
    ['nothing that does not match', 'zzz', []],
  ])('%s', (_l, query, want) => expect(rankCompletions(paths, query, 20).map((c) => c.path).slice(0, want.length)).toEqual(want));

  it('marks folders and honours the limit', () => {
    const r = rankCompletions(paths, '', 3);
    expect(r).toHaveLength(3);
    expect(r.every((c) => (c.path.endsWith('/') ? c.kind === 'dir' : c.kind === 'file'))).toBe(true);
  });
});

describe('quoteFile, imageTokens', () => {
  it('quotes a file with its name and cuts a long one with a note', () => {
    expect(quoteFile({ name: 'a.txt', mimeType: 'text/plain' }, 'hi')).toBe('<attached_file name="a.txt" type="text/plain">\nhi\n</attached_file>');
    expect(quoteFile({ name: 'src/', mimeType: 'text/plain', mention: 'folder' }, 'a.ts')).toBe('<folder_listing name="src/" type="text/plain">\na.ts\n</folder_listing>');
    expect(quoteFile({ name: 'b.txt', mimeType: 'text/plain' }, 'abcdef', 3)).toBe(
      '<attached_file name="b.txt" type="text/plain">\nabc\n[… cut: the file has 6 characters, the first 3 are shown]\n</attached_file>',
    );
  });

  it.each([
    [1000, 1000, 1334],
    [3136, 3136, 1534], // scaled to 1568² and then to 1.15 megapixels
    [100, 50, 7],
    [undefined, undefined, 1534],
  ])('imageTokens(%s, %s) = %s', (w, h, want) => expect(imageTokens(w, h)).toBe(want));
});

const img = { type: 'image' as const, mimeType: 'image/png', data: 'QUJD' };
const withImages: Message[] = [
  { role: 'user', content: 'look', timestamp: 1, attachments: [img] },
  { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.png' } }], provider: 'p', model: 'm', api: 'anthropic', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: 'toolUse', timestamp: 2 },
  { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: 'a.png', isError: false, timestamp: 3, images: [img] },
];

describe('fitImage: the longest side and the bytes of a provider', () => {
  it.each([
    // [what, image, limits, expected type, expected longest side (at most), changed]
    ['fits: the original, untouched', () => flatImage(800, 600, 'png'), IMAGE_LIMITS.anthropic, 'image/png', 800, false],
    ['too wide: scaled to 1568 px in its own format', () => flatImage(3000, 1000, 'png'), IMAGE_LIMITS.anthropic, 'image/png', 1568, true],
    ['OpenAI allows 2048 px', () => flatImage(3000, 1000, 'webp'), IMAGE_LIMITS['openai-chat'], 'image/webp', 2048, true],
    ['too many bytes at a fine size: a JPEG within the cap', () => noisePng(1200, 1200, 3), IMAGE_LIMITS.anthropic, 'image/jpeg', 1200, true],
    ['a tight cap: smaller again until it fits', () => noisePng(400, 400, 5), { maxSide: 1000, maxBytes: 20_000 }, 'image/jpeg', 300, true],
  ] as const)('%s', async (_what, make, limits, mimeType, side, changed) => {
    const original = await make();
    const { format } = await (await import('sharp')).default(original).metadata();
    const fitted = await fitImage(original, `image/${format}`, limits);
    expect(fitted.changed).toBe(changed);
    expect(fitted.mimeType).toBe(mimeType);
    expect(fitted.bytes.length).toBeLessThanOrEqual(limits.maxBytes);
    expect(Math.max(fitted.width, fitted.height)).toBeLessThanOrEqual(side);
    if (!changed) expect(fitted.bytes.equals(original)).toBe(true);
    if (changed && side >= 1000) expect(Math.max(fitted.width, fitted.height)).toBe(side);
  });
});

describe('image shapes per provider', () => {
  it('Anthropic: image blocks before the text; tool_result content with an image block', () => {
    const out = toAnthropicMessages(withImages);
    expect(out[0]!.content).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJD' } }, { type: 'text', text: 'look' }]);
    expect((out[2]!.content as { content: unknown[] }[])[0]!.content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJD' } });
  });

  it('OpenAI Chat: image_url parts; tool images as one user message after the tool messages', () => {
    const out = toOpenAIMessages('', withImages);
    expect(out[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,QUJD' } }] });
    expect(out[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'a.png' });
    expect(out[3]).toEqual({ role: 'user', content: [{ type: 'text', text: 'The images the tool results above returned:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,QUJD' } }] });
  });

  it('Responses: input_image in the user message and in the function_call_output list', () => {
    const out = toResponsesInput(withImages, { provider: 'p', id: 'm', api: 'openai-responses', contextWindow: 1, maxTokens: 1, reasoning: false });
    expect(out[0]).toEqual({ role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'data:image/png;base64,QUJD', detail: 'auto' }] });
    expect(out[2]).toEqual({ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'a.png' }, { type: 'input_image', image_url: 'data:image/png;base64,QUJD', detail: 'auto' }] });
  });

  it('an image without bytes (not resolved) is never sent', () => {
    const ref: Message = { role: 'user', content: 'x', timestamp: 1, attachments: [{ type: 'image', mimeType: 'image/png', sha256: 'a'.repeat(64) }] };
    expect(toAnthropicMessages([ref])[0]!.content).toEqual([{ type: 'text', text: 'x' }]);
  });
});

const model = (input?: ('text' | 'image')[]): ModelDef => ({ provider: 'p', id: 'm', api: 'anthropic', contextWindow: 100000, maxTokens: 1000, reasoning: false, ...(input ? { input } : {}) });

describe('the store and the resolver', () => {
  it('stores bytes once by sha256, crash-safe (no temporary files left), and describes them again', async () => {
    const store = new AttachmentStore(join(dir, 'store1'));
    const png = await flatImage(30, 20);
    const a = await store.add('shot.png', png);
    const b = await store.add('again.png', png);
    expect(a).toMatchObject({ type: 'image', mimeType: 'image/png', name: 'shot.png', bytes: png.length, width: 30, height: 20 });
    expect(b.sha256).toBe(a.sha256);
    const sub = (await readdir(join(dir, 'store1')))[0]!;
    expect(await readdir(join(dir, 'store1', sub))).toEqual([a.sha256]);
    expect(await store.describe(a.sha256!, 'x.png')).toMatchObject({ name: 'x.png', width: 30 });
    await expect(store.add('empty.txt', new Uint8Array())).rejects.toThrow('empty.txt is empty.');
    await expect(store.add('../../etc/x.txt', new TextEncoder().encode('hi'))).resolves.toMatchObject({ name: 'x.txt' });
  });

  it('gives a vision model the bytes, a text-only model a note; files as quoted text', async () => {
    const store = new AttachmentStore(join(dir, 'store2'));
    const png = await flatImage(30, 20);
    const image = await store.add('shot.png', png);
    const file = await store.add('n.txt', new TextEncoder().encode('note'));
    const messages: Message[] = [{ role: 'user', content: 'see', timestamp: 1, attachments: [image, file] }];
    const resolver = new AttachmentResolver(store);
    const vision = (await resolver.forModel(messages, model(['text', 'image'])))[0]!;
    expect(vision).toMatchObject({ role: 'user', content: '<attached_file name="n.txt" type="text/plain">\nnote\n</attached_file>\n\nsee' });
    expect(vision.role === 'user' && vision.attachments?.[0]).toMatchObject({ type: 'image', data: png.toString('base64') });
    const text = (await resolver.forModel(messages, model()))[0]!;
    expect(text.role === 'user' && text.attachments).toBeUndefined();
    expect(text.role === 'user' && text.content).toMatch(/see\n\n\[image shot\.png \(image\/png, .*, 30×20\) not shown: p\/m does not take images\]$/);
  });

  it('a missing attachment ends the call with one error event (the StreamFn contract), never a request', async () => {
    const store = new AttachmentStore(join(dir, 'store3'));
    let called = false;
    const inner = async function* (): AsyncIterable<ProviderEvent> {
      called = true;
    };
    const fn = withAttachments(inner, new AttachmentResolver(store));
    const req = { model: model(['text', 'image']), messages: [{ role: 'user', content: 'x', timestamp: 1, attachments: [{ type: 'file', name: 'a', mimeType: 'text/plain', sha256: 'b'.repeat(64), bytes: 1 }] }] } as unknown as StreamRequest;
    const events: ProviderEvent[] = [];
    for await (const e of fn(req)) events.push(e);
    expect(called).toBe(false);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', message: { stopReason: 'error' } });
  });

  it('the transcript names a tool image by sha256 instead of carrying its bytes', async () => {
    const attachments = new AttachmentStore(join(dir, 'store4'));
    const store = new SessionStore(join(dir, 'sessions4'), { attachments });
    const s = await store.resolve('k');
    const png = await flatImage(30, 20);
    await store.append(s.sessionId, { role: 'toolResult', toolCallId: 'c', toolName: 'read', content: 'shot', isError: false, timestamp: 1, images: [{ type: 'image', mimeType: 'image/png', data: png.toString('base64') }] });
    const line = (await readFile(store.transcriptPath(s.sessionId), 'utf8')).trim().split('\n').at(-1)!;
    expect(line).not.toContain(png.toString('base64').slice(0, 40));
    const [loaded] = await store.loadMessages(s.sessionId);
    expect(loaded).toMatchObject({ images: [{ type: 'image', mimeType: 'image/png', bytes: png.length }] });
    const sha = (loaded as { images: { sha256: string }[] }).images[0]!.sha256;
    expect((await attachments.read(sha)).equals(png)).toBe(true);
  });
});

describe('renderer: the @ being typed, and a budget stop as actions', async () => {
  const { mentionAt } = await import('../../renderer/src/attachments/attach-store.js');
  const { describeError } = await import('../../renderer/src/lib/errors.js');
  it.each([
    ['@', 1, { start: 0, query: '' }],
    ['see @src/ma', 11, { start: 4, query: 'src/ma' }],
    ['mail me@home', 12, undefined], // an address, not a mention
    ['@a b', 4, undefined], // the caret is past the mention
    ['x @a @b', 5, undefined],
  ])('mentionAt(%j, %i)', (text, caret, want) => expect(mentionAt(text, caret)).toEqual(want));

  it('a budget line offers the budget actions', () => {
    expect(describeError('Budget reached: agent.budget.perDayUsd is $1.00 and today has spent $1.20; the model was not called.')).toMatchObject({
      kind: 'budget',
      budget: 'perDayUsd',
      actions: ['budget'],
    });
  });
});
