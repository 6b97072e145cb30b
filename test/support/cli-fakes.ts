/**
 * The set-up the CLI integration tests share: the built bin, one fake Anthropic and one fake OpenAI server per test
 * file (both speak the real wire formats on 127.0.0.1) and one workspace folder, plus the usual config.json that
 * points the `fakeant` and `fakeoai` providers at them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, toolLoopScenario, type FakeProvider } from '../fake/index.js';
import { ensureBuilt, tempDir, writeConfig } from './cli.js';

export interface CliFakes {
  /** Set in beforeAll: use them inside tests and hooks, not at module level. */
  readonly anthropic: FakeProvider;
  readonly openai: FakeProvider;
  readonly workspace: string;
}

/** Registers the file's beforeAll (build, start both fakes, make the workspace with `files`) and afterAll (close). */
export function useCliFakes(opts: { workspacePrefix?: string; files?: Record<string, string> } = {}): CliFakes {
  const fakes = {} as { anthropic: FakeProvider; openai: FakeProvider; workspace: string };
  beforeAll(async () => {
    await ensureBuilt();
    [fakes.anthropic, fakes.openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
    fakes.workspace = await tempDir(opts.workspacePrefix ?? 'ws');
    for (const [name, text] of Object.entries(opts.files ?? {})) await writeFile(join(fakes.workspace, name), text);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([fakes.anthropic?.close(), fakes.openai?.close()]);
  });
  return fakes;
}

type ModelEntry = { id: string; contextWindow?: number; maxTokens?: number; reasoning?: boolean; cost?: { input: number; output: number; cacheRead?: number; cacheWrite?: number } };

/**
 * config.json for the two fakes: provider `fakeant` (Anthropic API, model `claude-fake`) and `fakeoai` (OpenAI Chat,
 * `gpt-fake`), each with a `:test` profile whose key comes from FAKE_ANT_KEY / FAKE_OAI_KEY. `models` replaces a
 * provider's model list, `authProfiles` the profiles; `extra` adds top-level keys (agent, …).
 */
export function fakeProvidersConfig(
  fakes: CliFakes,
  opts: { models?: { fakeant?: ModelEntry[]; fakeoai?: ModelEntry[] }; authProfiles?: unknown[]; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    providers: {
      fakeant: {
        api: 'anthropic',
        baseUrl: fakes.anthropic.baseUrl,
        models: opts.models?.fakeant ?? [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096 }],
      },
      fakeoai: {
        api: 'openai-chat',
        baseUrl: fakes.openai.baseUrl,
        models: opts.models?.fakeoai ?? [{ id: 'gpt-fake', contextWindow: 128000, maxTokens: 4096 }],
      },
    },
    authProfiles: opts.authProfiles ?? [
      { id: 'fakeant:test', provider: 'fakeant', apiKeyEnv: 'FAKE_ANT_KEY' },
      { id: 'fakeoai:test', provider: 'fakeoai', apiKeyEnv: 'FAKE_OAI_KEY' },
    ],
    ...opts.extra,
  };
}

/** A fresh home folder holding `config`. */
export async function homeWith(config: unknown, prefix = 'home'): Promise<string> {
  const home = await tempDir(prefix);
  await writeConfig(home, config);
  return home;
}

/** A workspace file to read, and the scenario of a model that reads it and answers with its first line. */
export const NOTES_FILES = { 'notes.txt': 'Buy milk.\nCall Bob.\n' };
export const readNotesScenario = () =>
  toolLoopScenario({
    toolName: 'read',
    args: { path: 'notes.txt' },
    thinking: 'I should read the notes.',
    finalText: (toolResult) => `The notes say: ${toolResult.split('\n')[0]}`,
  });
