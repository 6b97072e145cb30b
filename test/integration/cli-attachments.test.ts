/**
 * X3 attachments end to end through the built CLI, the real SDKs and the fake providers (issue 19 "Done when"):
 * `--attach pic.png` reaches Anthropic as an `image` block, OpenAI Chat as an `image_url` part and the Responses API
 * as `input_image`; a text file arrives as quoted text with its name; an image for a text-only model is refused
 * before any request (one line, exit 2); the read tool gives an image to a vision model and a note to a text-only
 * one; a large picture is downscaled to the provider's limit while the original is kept; and the transcript of a
 * chat with a 1 MB image stays small after 5 more turns (the image is stored once and referenced).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolLoopScenario, type RecordedRequest } from '../fake/index.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';
import { flatImage, noisePng, sizeOfBase64 } from '../support/images.js';

const fakes = useCliFakes({ workspacePrefix: 'attach-ws', files: { 'notes.txt': 'Buy milk.\nCall Bob.\n' } });
const ENV = cleanEnv({ FAKE_ANT_KEY: 'sk-ant-attach-0019', FAKE_OAI_KEY: 'sk-oai-attach-0019' });
const VISION = ['text', 'image'];
let home: string;
let pic: string;
let picBytes: Buffer;

beforeAll(async () => {
  const cfg = fakeProvidersConfig(fakes, {
    models: {
      fakeant: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096, input: VISION } as never],
      fakeoai: [{ id: 'gpt-fake', contextWindow: 128000, maxTokens: 4096, input: VISION } as never, { id: 'gpt-text', contextWindow: 128000, maxTokens: 4096 }],
    },
    extra: {},
  }) as { providers: Record<string, unknown> };
  cfg.providers.fakeresp = { api: 'openai-responses', baseUrl: fakes.openai.baseUrl, models: [{ id: 'gpt-resp', contextWindow: 128000, maxTokens: 4096, input: VISION }] };
  (cfg as Record<string, unknown>).authProfiles = [
    { id: 'fakeant:test', provider: 'fakeant', apiKeyEnv: 'FAKE_ANT_KEY' },
    { id: 'fakeoai:test', provider: 'fakeoai', apiKeyEnv: 'FAKE_OAI_KEY' },
    { id: 'fakeresp:test', provider: 'fakeresp', apiKeyEnv: 'FAKE_OAI_KEY' },
  ];
  home = await homeWith(cfg, 'attach-home');
  picBytes = await flatImage(320, 200, 'png');
  pic = join(fakes.workspace, 'pic.png');
  await writeFile(pic, picBytes);
});

const agent = (model: string, extra: string[], message = 'What is in the picture?') =>
  runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', model, '--message', message, ...extra], { env: ENV, cwd: fakes.workspace, timeoutMs: 60_000 });

const lastBody = (reqs: RecordedRequest[]) => reqs.at(-1)!.body;

describe('--attach through the real SDKs', () => {
  it('reaches Anthropic as an image block (before the text) with the bytes attached', async () => {
    fakes.anthropic.enqueue({ text: 'A blue rectangle.' });
    const r = await agent('fakeant/claude-fake', ['--attach', 'pic.png']);
    expect(r.exitCode, r.stderr).toBe(0);
    const user = lastBody(fakes.anthropic.requests).messages.at(-1);
    expect(user.role).toBe('user');
    expect(user.content[0]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
    expect(Buffer.from(user.content[0].source.data, 'base64').equals(picBytes)).toBe(true);
    expect(user.content[1]).toEqual({ type: 'text', text: 'What is in the picture?' });
  });

  it('reaches OpenAI Chat as an image_url data URL and the Responses API as input_image', async () => {
    fakes.openai.enqueue({ text: 'Blue.' }, { text: 'Blue again.' });
    const chat = await agent('fakeoai/gpt-fake', ['--attach', pic]);
    expect(chat.exitCode, chat.stderr).toBe(0);
    const chatUser = lastBody(fakes.openai.requests.filter((q) => q.path.endsWith('/chat/completions'))).messages.at(-1);
    expect(chatUser.content[0]).toEqual({ type: 'text', text: 'What is in the picture?' });
    expect(chatUser.content[1].type).toBe('image_url');
    expect(chatUser.content[1].image_url.url).toBe(`data:image/png;base64,${picBytes.toString('base64')}`);

    const resp = await agent('fakeresp/gpt-resp', ['--attach', pic]);
    expect(resp.exitCode, resp.stderr).toBe(0);
    const input = lastBody(fakes.openai.requests.filter((q) => q.path.endsWith('/responses'))).input;
    const user = input.at(-1);
    expect(user.role).toBe('user');
    expect(user.content).toEqual([
      { type: 'input_text', text: 'What is in the picture?' },
      { type: 'input_image', image_url: `data:image/png;base64,${picBytes.toString('base64')}`, detail: 'auto' },
    ]);
  });

  it('sends a text file as quoted text with its name', async () => {
    fakes.anthropic.enqueue({ text: 'Milk and Bob.' });
    const r = await agent('fakeant/claude-fake', ['--attach', 'notes.txt'], 'Summarise.');
    expect(r.exitCode, r.stderr).toBe(0);
    const user = lastBody(fakes.anthropic.requests).messages.at(-1);
    expect(user.content).toHaveLength(1);
    expect(user.content[0].text).toBe('<attached_file name="notes.txt" type="text/plain">\nBuy milk.\nCall Bob.\n\n</attached_file>\n\nSummarise.');
  });

  it('--attach repeats: an image and a text file in one message', async () => {
    fakes.anthropic.enqueue({ text: 'Both.' });
    const r = await agent('fakeant/claude-fake', ['--attach', 'pic.png', '--attach', 'notes.txt'], 'Both?');
    expect(r.exitCode, r.stderr).toBe(0);
    const user = lastBody(fakes.anthropic.requests).messages.at(-1);
    expect(user.content.map((b: { type: string }) => b.type)).toEqual(['image', 'text']);
    expect(user.content[1].text).toBe('<attached_file name="notes.txt" type="text/plain">\nBuy milk.\nCall Bob.\n\n</attached_file>\n\nBoth?');
  });

  it('refuses an image for a text-only model before any request: one line, exit 2', async () => {
    const before = fakes.openai.requests.length;
    const r = await agent('fakeoai/gpt-text', ['--attach', 'pic.png']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/fakeoai\/gpt-text does not take images, so pic\.png was not sent/);
    expect(fakes.openai.requests.length).toBe(before);
  });

  it('refuses a file that is neither an image nor text, and a missing one (exit 2, nothing sent)', async () => {
    await writeFile(join(fakes.workspace, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0, 255]));
    const before = fakes.anthropic.requests.length;
    const bin = await agent('fakeant/claude-fake', ['--attach', 'blob.bin']);
    expect(bin.exitCode).toBe(2);
    expect(bin.stderr).toMatch(/--attach blob\.bin: blob\.bin is neither an image .* nor a text file/);
    const missing = await agent('fakeant/claude-fake', ['--attach', 'nope.png']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--attach nope\.png: no such file/);
    expect(fakes.anthropic.requests.length).toBe(before);
  });

  it('downscales a large picture to the provider limit (1568 px for Anthropic) and keeps the original', async () => {
    const big = await flatImage(3000, 2000, 'png');
    await writeFile(join(fakes.workspace, 'big.png'), big);
    fakes.anthropic.enqueue({ text: 'Big.' });
    const r = await agent('fakeant/claude-fake', ['--attach', 'big.png']);
    expect(r.exitCode, r.stderr).toBe(0);
    const sent = lastBody(fakes.anthropic.requests).messages.at(-1).content[0].source.data;
    expect(await sizeOfBase64(sent)).toMatchObject({ width: 1568, height: 1045 });
    // The original, byte for byte, is in the data folder's store.
    const { createHash } = await import('node:crypto');
    const sha = createHash('sha256').update(big).digest('hex');
    expect((await readFile(join(home, 'attachments', sha.slice(0, 2), sha))).equals(big)).toBe(true);
  });
});

describe('the read tool and images', () => {
  it('gives an image block to a vision model and a text note to a text-only one', async () => {
    fakes.anthropic.enqueue(toolLoopScenario({ toolName: 'read', args: { path: 'pic.png' }, finalText: 'I see it.' }), toolLoopScenario({ toolName: 'read', args: { path: 'pic.png' }, finalText: 'I see it.' }));
    const v = await agent('fakeant/claude-fake', [], 'Look at pic.png');
    expect(v.exitCode, v.stderr).toBe(0);
    const results = lastBody(fakes.anthropic.requests).messages.at(-1).content;
    expect(results[0].type).toBe('tool_result');
    expect(results[0].content[0]).toEqual({ type: 'text', text: 'pic.png: PNG image, 0.x KB, 320×200 px (the image follows)'.replace('0.x KB', results[0].content[0].text.match(/PNG image, ([^,]+),/)[1]) });
    expect(results[0].content[1]).toMatchObject({ type: 'image', source: { media_type: 'image/png' } });
    expect(Buffer.from(results[0].content[1].source.data, 'base64').equals(picBytes)).toBe(true);

    const chatReqs = () => fakes.openai.requests.filter((q) => q.path.endsWith('/chat/completions'));
    fakes.openai.enqueue(toolLoopScenario({ toolName: 'read', args: { path: 'pic.png' }, finalText: 'A note only.' }), toolLoopScenario({ toolName: 'read', args: { path: 'pic.png' }, finalText: 'A note only.' }));
    const t = await agent('fakeoai/gpt-text', [], 'Look at pic.png');
    expect(t.exitCode, t.stderr).toBe(0);
    const messages = lastBody(chatReqs()).messages;
    const tool = messages.at(-1);
    expect(tool.role).toBe('tool');
    expect(tool.content).toMatch(/^pic\.png: PNG image, [\d.]+ (KB|bytes), 320×200 px \(the image follows\)\n\[image pic\.png \(image\/png, .*\) not shown: fakeoai\/gpt-text does not take images\]$/);
    expect(JSON.stringify(messages)).not.toContain('base64');
  });

  it('OpenAI Chat (vision): the images of tool results follow the tool messages as one user message', async () => {
    fakes.openai.enqueue(toolLoopScenario({ toolName: 'read', args: { path: 'pic.png' }, finalText: 'Seen.' }), toolLoopScenario({ toolName: 'read', args: { path: 'pic.png' }, finalText: 'Seen.' }));
    const r = await agent('fakeoai/gpt-fake', [], 'Look at pic.png');
    expect(r.exitCode, r.stderr).toBe(0);
    const messages = lastBody(fakes.openai.requests.filter((q) => q.path.endsWith('/chat/completions'))).messages;
    expect(messages.at(-2).role).toBe('tool');
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text' }, { type: 'image_url' }] });
  });
});

describe('the transcript', () => {
  it('stays small with a 1 MB image and 5 more turns; every request still carries the image', async () => {
    const mb = await noisePng(600, 600, 7); // ≈ 1 MB of incompressible pixels
    expect(mb.length).toBeGreaterThan(1_000_000);
    await writeFile(join(fakes.workspace, 'photo.png'), mb);
    const session = `attach-small-${Date.now()}`;
    const turn = async (extra: string[], message: string) => {
      fakes.anthropic.enqueue({ text: `Reply to ${message}.` });
      const r = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeant/claude-fake', '--session', session, '--message', message, ...extra], { env: ENV, cwd: fakes.workspace, timeoutMs: 60_000 });
      expect(r.exitCode, r.stderr).toBe(0);
    };
    await turn(['--attach', 'photo.png'], 'Here is a photo');
    for (let i = 1; i <= 5; i++) await turn([], `follow-up ${i}`);
    const sessions = join(home, 'sessions');
    const index = JSON.parse(await readFile(join(sessions, 'sessions.json'), 'utf8')) as { sessions: Record<string, { sessionId: string }> };
    const id = index.sessions[session]!.sessionId;
    const size = (await stat(join(sessions, `${id}.jsonl`))).size;
    expect(size).toBeLessThan(20_000);
    console.log(`transcript after 6 turns with a ${mb.length}-byte image: ${size} bytes`);
    // The 6th request still shows the model the photo (fitted: 600 px is within Anthropic's limit, so unchanged).
    const first = lastBody(fakes.anthropic.requests).messages[0];
    expect(first.content[0].type).toBe('image');
    expect(Buffer.from(first.content[0].source.data, 'base64').equals(mb)).toBe(true);
  }, 90_000); // six CLI processes one after another: 2–4 s each on a loaded 2-core machine
});
