import { mkdir, mkdtemp, readFile, realpath, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ModelDef } from '../../main/providers/types.js';
import { BOOTSTRAP_MAX_CHARS, buildSystemPrompt, capText, readConfined } from '../../main/engine/attempt/system-prompt.js';
import { SkillCatalog, parseSkillHeader, skillsSection } from '../../main/engine/attempt/skills.js';
import { shapeSystemPrompt, withTurnContext } from '../../main/engine/attempt/prompt-build.js';
import { HookRunner } from '../../main/engine/attempt/hook-runner.js';

const model: ModelDef = { provider: 'p', id: 'm', api: 'anthropic', contextWindow: 100_000, maxTokens: 1000, reasoning: false };
let ws: string;
let outside: string;
let home: string;

beforeEach(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-prompt-ws-')));
  outside = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-prompt-out-')));
  home = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-prompt-home-')));
  await writeFile(join(outside, 'secret.md'), 'TOP SECRET host notes');
});

const prompt = (extra: Partial<Parameters<typeof buildSystemPrompt>[0]> = {}) =>
  buildSystemPrompt({ workspace: ws, model, tools: [{ name: 'read', description: '', parameters: {} }], now: 0, ...extra });

describe('bootstrap files through the workspace confinement (E9)', () => {
  it('includes AGENTS.md from the workspace', async () => {
    await writeFile(join(ws, 'AGENTS.md'), 'Use tabs.');
    expect(await prompt()).toContain('## Project instructions (AGENTS.md)\nUse tabs.');
  });

  it('leaves out an AGENTS.md symlinked to a file outside the workspace', async () => {
    await symlink(join(outside, 'secret.md'), join(ws, 'AGENTS.md'));
    const p = await prompt();
    expect(p).not.toContain('TOP SECRET');
    expect(p).not.toContain('Project instructions');
  });

  it('leaves out a bootstrap file reached through a symlinked folder', async () => {
    await symlink(outside, join(ws, '.agentdesk'));
    await writeFile(join(outside, 'instructions.md'), 'TOP SECRET too');
    expect(await prompt()).not.toContain('TOP SECRET');
  });

  it('keeps a symlink that stays inside the workspace', async () => {
    await mkdir(join(ws, 'docs'));
    await writeFile(join(ws, 'docs', 'agents.md'), 'Inside link.');
    await symlink(join(ws, 'docs', 'agents.md'), join(ws, 'AGENTS.md'));
    expect(await prompt()).toContain('Inside link.');
  });

  it('caps a long file and says so', async () => {
    await writeFile(join(ws, 'AGENTS.md'), 'x'.repeat(BOOTSTRAP_MAX_CHARS + 500));
    const p = await prompt();
    expect(p).toContain(`longer than ${BOOTSTRAP_MAX_CHARS} characters`);
    expect(p.length).toBeLessThan(BOOTSTRAP_MAX_CHARS + 2000);
  });

  it.each([
    ['short', 10, 'short'],
    ['x'.repeat(12), 10, `${'x'.repeat(10)}\n[… more of F not shown: it is longer than 10 characters]`],
  ])('capText(%j, %d)', (text, max, expected) => {
    expect(capText(text, max, 'F')).toBe(expected);
  });

  it('readConfined reads at most the cap and refuses folders and escapes', async () => {
    await writeFile(join(ws, 'big.md'), 'a'.repeat(100_000));
    expect((await readConfined(ws, 'big.md', 10))!.length).toBeLessThanOrEqual(44);
    await mkdir(join(ws, 'dir.md'));
    expect(await readConfined(ws, 'dir.md', 10)).toBeUndefined();
    expect(await readConfined(ws, '../x', 10)).toBeUndefined();
  });

  it('the agent:bootstrap hook shapes the bootstrap files (before_prompt_build is the run\'s: prompt-build.ts)', async () => {
    await writeFile(join(ws, 'AGENTS.md'), 'Original.');
    const hooks = new HookRunner();
    let promptBuild = 0;
    hooks.register('t', {
      'agent:bootstrap': (e) => ({ files: e.files.map((f) => ({ ...f, content: 'Rewritten.' })) }),
      before_prompt_build: () => void promptBuild++,
    });
    const p = await prompt({ hooks });
    expect(p).toContain('Rewritten.');
    expect(p).not.toContain('Original.');
    expect(promptBuild).toBe(0);
  });
});

describe('before_prompt_build results (prompt-build.ts)', () => {
  it.each([
    ['nothing', {}, 'BASE'],
    ['a replacement', { systemPrompt: 'NEW' }, 'NEW'],
    ['system contexts around it', { prependSystemContext: 'First.', appendSystemContext: 'Last.' }, 'First.\n\nBASE\n\nLast.'],
    ['a replacement framed', { systemPrompt: 'NEW', appendSystemContext: 'Last.' }, 'NEW\n\nLast.'],
    ['blank contexts are ignored', { prependSystemContext: '  ', appendSystemContext: '' }, 'BASE'],
    ['prependContext never enters the system prompt', { prependContext: 'per turn' }, 'BASE'],
  ])('shapeSystemPrompt with %s', (_name, result, expected) => {
    expect(shapeSystemPrompt('BASE', result)).toBe(expected);
  });

  it.each([
    [{ role: 'user', content: 'hi', timestamp: 1 }, 'hi'],
    [{ role: 'user', content: 'hi', timestamp: 1, context: ' Today is Monday. ' }, 'Today is Monday.\n\nhi'],
    [{ role: 'user', content: 'hi', timestamp: 1, context: '   ' }, 'hi'],
  ] as const)('withTurnContext(%j) sends %j', (message, content) => {
    const sent = withTurnContext(message);
    expect(sent.content).toBe(content);
    expect(sent.context).toBeUndefined();
  });
});

describe('skills', () => {
  it.each([
    ['---\nname: deploy\ndescription: Ship it safely\n---\n# Deploy\nSteps…', 'folder', { name: 'deploy', description: 'Ship it safely' }],
    ['# Title\n\nFirst prose line.\nMore.', 'folder', { name: 'folder', description: 'First prose line.' }],
    ['---\ndescription: "quoted"\n---\nbody', 'f', { name: 'f', description: 'quoted' }],
  ])('parseSkillHeader %#', (text, folder, expected) => {
    expect(parseSkillHeader(text, folder)).toMatchObject(expected);
  });

  async function skill(root: string, name: string, text: string) {
    await mkdir(join(root, name), { recursive: true });
    await writeFile(join(root, name, 'SKILL.md'), text);
  }

  it('finds workspace and user skills, lists them, loads a body on demand', async () => {
    await skill(join(ws, '.agentdesk', 'skills'), 'lint', '---\nname: lint\ndescription: Run the linter\n---\nRun npm run lint.');
    await skill(join(ws, 'skills'), 'release', 'Cut a release.\n\nTag, push.');
    await skill(join(home, 'skills'), 'notes', '---\ndescription: Personal notes\n---\nMy notes body.');
    const catalog = SkillCatalog.for({ workspace: ws, home });
    const skills = await catalog.snapshot();
    expect(skills.map((s) => [s.name, s.source])).toEqual([['lint', 'workspace'], ['release', 'workspace'], ['notes', 'user']]);
    const section = skillsSection(skills);
    expect(section).toContain('- lint: Run the linter');
    expect(section).not.toContain('Run npm run lint.');
    const out = await catalog.tool().execute({ name: 'notes' }, { workspace: ws, signal: new AbortController().signal });
    expect(out.content).toBe('My notes body.');
    await expect(catalog.tool().execute({ name: 'nope' }, { workspace: ws, signal: new AbortController().signal })).rejects.toThrow(/No skill named "nope"/);
    expect(await prompt({ skills })).toContain('## Skills');
  });

  it("the README's example skill (docs/examples/skills) is found when copied into a workspace", async () => {
    const example = join(import.meta.dirname, '..', '..', 'docs', 'examples', 'skills', 'release-notes', 'SKILL.md');
    await skill(join(ws, '.agentdesk', 'skills'), 'release-notes', await readFile(example, 'utf8'));
    const [found] = await SkillCatalog.for({ workspace: ws }).snapshot();
    expect(found).toMatchObject({ name: 'release-notes', description: expect.stringMatching(/^Write release notes/) });
  });

  it('ignores a workspace SKILL.md symlinked out of the workspace', async () => {
    await mkdir(join(ws, 'skills', 'evil'), { recursive: true });
    await symlink(join(outside, 'secret.md'), join(ws, 'skills', 'evil', 'SKILL.md'));
    expect(await SkillCatalog.for({ workspace: ws }).snapshot()).toEqual([]);
  });

  it('reuses the snapshot until a file or folder changes (mtime)', async () => {
    await skill(join(ws, 'skills'), 'a', 'Alpha.');
    const catalog = SkillCatalog.for({ workspace: ws });
    const first = await catalog.snapshot();
    expect(await catalog.snapshot()).toBe(first);
    await writeFile(join(ws, 'skills', 'a', 'SKILL.md'), 'Alpha changed.');
    await utimes(join(ws, 'skills', 'a', 'SKILL.md'), new Date(), new Date(Date.now() + 5000));
    const second = await catalog.snapshot();
    expect(second).not.toBe(first);
    expect(second[0]!.description).toBe('Alpha changed.');
    await skill(join(ws, 'skills'), 'b', 'Beta.');
    await utimes(join(ws, 'skills'), new Date(), new Date(Date.now() + 10_000));
    expect((await catalog.snapshot()).map((s) => s.name)).toEqual(['a', 'b']);
  });
});
