/**
 * The in-process gateway as the gateway integration tests drive it: the fake Anthropic server (and the fake OpenAI
 * one when asked) started once per test file, gateways started per test on fresh home and workspace folders and
 * closed after the test, and the fakes' recorded requests and default reply reset between tests.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import { createAppGateway, type AppGateway, type GatewayOptions } from '../../main/gateway/create.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeProvider } from '../fake/index.js';
import { DEFAULT_TURN } from '../fake/server.js';
import { tempDir, writeConfig } from './cli.js';

export interface OpenedGateway {
  gw: AppGateway;
  home: string;
  workspace: string;
  /** Every event the gateway has emitted since it started. */
  events: AgentEvent[];
}

export interface GatewayHarness {
  /** Set in beforeAll: use them inside tests and hooks. `openai` only with `{ openai: true }`. */
  readonly fakes: { readonly anthropic: FakeProvider; readonly openai: FakeProvider };
  /** createAppGateway (demo replies without delays unless `options` says otherwise), closed after the test. */
  start(options: GatewayOptions): Promise<AppGateway>;
  /** A new home holding `configJson` (its config.json), a new workspace holding `files`, and a gateway started there. */
  open(
    opts: { prefix: string; configJson: unknown; files?: Record<string, string> } & Omit<GatewayOptions, 'home' | 'workspace' | 'config'>,
  ): Promise<OpenedGateway>;
  /** Closes a gateway the test is done with (a test that checks what closing does). */
  close(gw: AppGateway): Promise<void>;
}

export function useGatewayHarness(opts: { openai?: boolean } = {}): GatewayHarness {
  const fakes = {} as { anthropic: FakeProvider; openai: FakeProvider };
  const running = new Set<AppGateway>();
  beforeAll(async () => {
    [fakes.anthropic, fakes.openai] = await Promise.all([startFakeAnthropic(), ...(opts.openai ? [startFakeOpenAI()] : [])]);
  });
  afterAll(async () => {
    await Promise.all([fakes.anthropic?.close(), fakes.openai?.close()]);
  });
  afterEach(async () => {
    await Promise.all([...running].map((gw) => gw.close()));
    running.clear();
    for (const fake of [fakes.anthropic, fakes.openai]) {
      if (!fake) continue;
      fake.requests.length = 0;
      fake.setDefault(DEFAULT_TURN);
    }
  });

  const start = async (options: GatewayOptions): Promise<AppGateway> => {
    const gw = await createAppGateway({ demoChunkDelayMs: 0, ...options });
    running.add(gw);
    return gw;
  };
  return {
    fakes,
    start,
    async open({ prefix, configJson, files = {}, ...options }) {
      const home = await tempDir(`${prefix}-home`);
      const workspace = await tempDir(`${prefix}-ws`);
      for (const [name, text] of Object.entries(files)) await writeFile(join(workspace, name), text);
      await writeConfig(home, configJson);
      const gw = await start({ ...options, home, workspace });
      const events: AgentEvent[] = [];
      gw.onEvent((e) => events.push(e));
      return { gw, home, workspace, events };
    },
    async close(gw) {
      running.delete(gw);
      await gw.close();
    },
  };
}
