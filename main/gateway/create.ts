/**
 * Builds the application gateway (E1, E2): config, sessions, tools, lanes and the run registry behind the
 * transport-agnostic request/event surface used by Electron IPC, the WebSocket transport and the CLI.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AgentAccepted, AgentEvent, MethodName, Methods, RunResult } from '../../preload/contract.js';
import { GatewayError, type GatewayApi } from './types.js';
import { parseParams } from './params.js';
import { toHistory } from './history.js';
import { loadConfig } from '../engine/config/load.js';
import type { AppConfig } from '../engine/config/schema.js';
import { defaultModelRef, effectiveContextTokens, listModels, resolveModel } from '../engine/models.js';
import type { ModelDef, StreamFn } from '../providers/types.js';
import { streamFnFor } from '../providers/registry.js';
import { createDemoStream } from '../providers/demo.js';
import { SessionStore } from '../sessions/store.js';
import { createWorkspaceTools } from '../tools/index.js';
import { realWorkspace } from '../tools/paths.js';
import { Lanes } from '../engine/run/lanes.js';
import { RunRegistry, type RunRecord } from '../engine/run/runs.js';
import { EventHub, createRunEmitter } from '../engine/stream/run-emitter.js';
import { executeRun, nodeTimers, type Timers } from '../engine/run/agent-run.js';
import type { EngineHooks } from '../engine/attempt/hooks.js';
import { openKeychain, type SecretStore } from '../auth/secrets.js';
import { AuthPool } from '../auth/pool.js';
import { AUTH_STATE_FILE, AuthStateStore } from '../auth/state-store.js';
import type { RecoverOverflow } from '../engine/run/overflow.js';
import { authMethods } from './methods/auth.js';

export interface AppGateway extends GatewayApi {
  readonly config: AppConfig;
  readonly workspace: string;
  close(): Promise<void>;
}

export interface GatewayOptions {
  home: string;
  workspace: string;
  env?: NodeJS.ProcessEnv;
  /** Delay between demo-model chunks (default: the demo's own; tests pass 0). */
  demoChunkDelayMs?: number;
  hooks?: EngineHooks;
  now?: () => number;
  timers?: Timers;
  /** Opens the OS keychain (injectable; default keytar). */
  openSecrets?: () => Promise<SecretStore>;
  version?: string;
  /** An already loaded config (the CLI loads it first to report problems with exit status 2). */
  config?: AppConfig;
  /** Jitter source for backoff (default Math.random). */
  random?: () => number;
  /** Context-overflow recovery (compaction) for the outer loop. */
  recoverOverflow?: RecoverOverflow;
}

/** Idle watchdog per provider: configured timeoutSeconds, else 120 s for cloud APIs and 300 s for self-hosted ones. */
function idleTimeoutFor(config: AppConfig, model: ModelDef): number {
  const configured = config.providers?.[model.provider]?.timeoutSeconds;
  if (configured) return configured * 1000;
  return model.provider === 'anthropic' || model.provider === 'openai' || model.api === 'demo' ? 120_000 : 300_000;
}

export async function createAppGateway(opts: GatewayOptions): Promise<AppGateway> {
  const env = opts.env ?? process.env;
  const now = opts.now ?? Date.now;
  const timers = opts.timers ?? nodeTimers;
  const config = opts.config ?? (await loadConfig(opts.home));
  const workspace = await realWorkspace(opts.workspace);
  const store = new SessionStore(join(opts.home, 'sessions'));
  const tools = createWorkspaceTools();
  const lanes = new Lanes(config.agent.maxConcurrent);
  const runs = new RunRegistry(timers);
  const hub = new EventHub();
  const idempotency = new Map<string, AgentAccepted>();
  const demoStream = createDemoStream(opts.demoChunkDelayMs === undefined ? undefined : { chunkDelayMs: opts.demoChunkDelayMs });
  let secrets: Promise<SecretStore> | undefined;
  const openSecrets = () => (secrets ??= (opts.openSecrets ?? openKeychain)().catch((err) => {
    secrets = undefined; // try again next time (the user may have unlocked the keychain)
    throw err;
  }));
  let closed = false;
  const auth = new AuthPool({ config, env, openSecrets, state: new AuthStateStore(join(opts.home, AUTH_STATE_FILE)), now });
  const fallbacks = config.agent.model.fallbacks.flatMap((ref) => {
    try {
      return [resolveModel(config, ref)];
    } catch {
      return []; // load.ts already rejects unknown fallback refs
    }
  });

  const streamFor = (model: ModelDef): StreamFn => (model.api === 'demo' ? demoStream : streamFnFor(model.api));

  function startRun(p: ReturnType<typeof parseParams<'agent'>>, model: ModelDef, accepted: AgentAccepted): RunRecord {
    const controller = new AbortController();
    const record: RunRecord = {
      runId: accepted.runId,
      sessionKey: accepted.sessionKey,
      sessionId: accepted.sessionId,
      acceptedAt: accepted.acceptedAt,
      controller,
      done: Promise.resolve(undefined as unknown as RunResult),
    };
    record.done = lanes.run(accepted.sessionKey, async () => {
      record.startedAt = now();
      const emitter = createRunEmitter(accepted.runId, accepted.sessionKey, hub.emit, now);
      const result = await executeRun(
        {
          runId: accepted.runId,
          sessionKey: accepted.sessionKey,
          sessionId: accepted.sessionId,
          message: p.message,
          model,
          fallbacks: fallbacks.filter((f) => f.provider !== model.provider || f.id !== model.id),
          thinking: p.thinking ?? config.agent.thinking,
          timeoutMs: (p.timeoutSeconds ?? config.agent.timeoutSeconds) * 1000,
        },
        {
          store,
          tools,
          workspace,
          hooks: opts.hooks ?? {},
          now,
          timers,
          random: opts.random ?? Math.random,
          auth,
          streamFnFor: streamFor,
          idleTimeoutMs: (m) => idleTimeoutFor(config, m),
          contextTokens: (m) => effectiveContextTokens(m, config),
          ...(opts.recoverOverflow ? { recoverOverflow: opts.recoverOverflow } : {}),
        },
        emitter,
        controller.signal,
      );
      record.endedAt = now();
      record.result = result;
      return result;
    });
    runs.add(record);
    return record;
  }

  const handlers: { [M in MethodName]: (params: unknown) => Promise<Methods[M][1]> } = {
    async agent(raw) {
      const p = parseParams('agent', raw);
      if (closed) throw new GatewayError('internal', 'The gateway is shutting down.');
      if (p.idempotencyKey) {
        const seen = idempotency.get(p.idempotencyKey);
        if (seen) return seen;
      }
      const ref = p.model ?? defaultModelRef(config, env);
      let model: ModelDef;
      try {
        model = resolveModel(config, ref);
      } catch (err) {
        throw new GatewayError('bad_request', (err as Error).message);
      }
      const sessionKey = p.sessionKey ?? 'main';
      const session = await store.resolve(sessionKey, { model: ref });
      const accepted: AgentAccepted = { runId: randomUUID(), sessionKey, sessionId: session.sessionId, acceptedAt: now() };
      if (p.idempotencyKey) idempotency.set(p.idempotencyKey, accepted);
      startRun(p, model, accepted);
      return accepted;
    },
    async 'agent.wait'(raw) {
      const p = parseParams('agent.wait', raw);
      const run = runs.get(p.runId);
      if (!run) throw new GatewayError('not_found', `No run with id ${p.runId}.`);
      return runs.wait(run, p.timeoutMs ?? 30_000);
    },
    async 'agent.result'(raw) {
      const p = parseParams('agent.result', raw);
      const run = runs.get(p.runId);
      if (!run) throw new GatewayError('not_found', `No run with id ${p.runId}.`);
      return run.result ?? null;
    },
    async 'agent.abort'(raw) {
      const p = parseParams('agent.abort', raw);
      const stop = new Error('The run was stopped.');
      stop.name = 'AbortError';
      return { aborted: runs.abort(p.runId, stop) };
    },
    async 'sessions.list'(raw) {
      parseParams('sessions.list', raw);
      return (await store.list()).map((s) => ({
        sessionKey: s.sessionKey,
        sessionId: s.sessionId,
        title: s.title,
        ...(s.model ? { model: s.model } : {}),
        updatedAt: s.updatedAt,
        usage: s.usage,
      }));
    },
    async 'sessions.history'(raw) {
      const p = parseParams('sessions.history', raw);
      const session = await store.get(p.sessionKey);
      return session ? toHistory(await store.loadMessages(session.sessionId)) : [];
    },
    async 'models.list'(raw) {
      parseParams('models.list', raw);
      const keyed = new Map<string, Promise<boolean>>(); // one look-up per provider (env, then the keychain)
      return Promise.all(
        listModels(config).map(async (m) => {
          if (!keyed.has(m.provider)) keyed.set(m.provider, auth.hasKey(m));
          return {
            ref: `${m.provider}/${m.id}`,
            provider: m.provider,
            id: m.id,
            contextWindow: m.contextWindow,
            reasoning: m.reasoning,
            demo: m.api === 'demo',
            hasKey: await keyed.get(m.provider)!,
          };
        }),
      );
    },
    async 'app.info'(raw) {
      parseParams('app.info', raw);
      return { workspace, home: opts.home, defaultModel: defaultModelRef(config, env), version: opts.version ?? '0.1.0' };
    },
    ...authMethods(auth),
  };

  return {
    config,
    workspace,
    async request<M extends MethodName>(method: M, params: unknown): Promise<Methods[M][1]> {
      const handler = Object.hasOwn(handlers, method) ? (handlers[method] as (p: unknown) => Promise<Methods[M][1]>) : undefined;
      if (!handler) throw new GatewayError('unknown_method', `Unknown method "${String(method)}".`);
      try {
        return await handler(params);
      } catch (err) {
        if (err instanceof GatewayError) throw err;
        throw new GatewayError('internal', (err as Error)?.message ?? String(err));
      }
    },
    onEvent(listener: (event: AgentEvent) => void) {
      return hub.on(listener);
    },
    async close() {
      closed = true;
      for (const run of runs.active()) runs.abort(run.runId, new Error('The app is closing.'));
      await Promise.allSettled(runs.active().map((r) => r.done));
    },
  };
}
