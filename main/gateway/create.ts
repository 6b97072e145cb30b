/**
 * Builds the application gateway (E1, E2): config, sessions, tools, lanes and the run registry behind the
 * transport-agnostic request/event surface used by Electron IPC, the WebSocket transport and the CLI.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AgentAccepted, AgentEvent, MethodName, Methods, QueueMode } from '../../preload/contract.js';
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
import { processTable } from '../tools/processes.js';
import { configuredSecrets } from './secrets-scrub.js';
import { realWorkspace } from '../tools/paths.js';
import { Lanes } from '../engine/run/lanes.js';
import { RunRegistry, type RunRecord } from '../engine/run/runs.js';
import { EventHub } from '../engine/stream/run-emitter.js';
import { Dispatcher } from '../engine/run/dispatcher.js';
import type { BoundedLane } from '../engine/run/lanes.js';
import { sessionRunLock } from '../sessions/session-lock.js';
import { IdempotencyCache } from './idempotency.js';
import { queueMethods, stopError } from './methods/queue.js';
import { subagentMethods } from './methods/subagents.js';
import { Subagents } from '../engine/run/subagents.js';
import { SubagentControl } from './subagent-control.js';
import { createSpawnSubagentTool } from '../tools/subagent.js';
import type { Tool } from '../tools/types.js';
import type { ThinkingLevel } from '../providers/types.js';
import { executeRun, nodeTimers, type Timers } from '../engine/run/agent-run.js';
import type { EngineHooks } from '../engine/attempt/hooks.js';
import { openKeychain, type SecretStore } from '../auth/secrets.js';
import { AuthPool } from '../auth/pool.js';
import { AUTH_STATE_FILE, AuthStateStore } from '../auth/state-store.js';
import type { RecoverOverflow } from '../engine/run/overflow.js';
import { createRecoverOverflow } from '../engine/run/compaction-recovery.js';
import { executeCompactRun, isCompactCommand } from '../engine/run/compact-run.js';
import { authMethods } from './methods/auth.js';
import { HookRunner } from '../engine/attempt/hook-runner.js';
import { loadPlugins } from '../engine/plugins.js';
import { SkillCatalog } from '../engine/attempt/skills.js';
import { buildSystemPrompt } from '../engine/attempt/system-prompt.js';
import { runWorkspace } from '../engine/attempt/run-cwd.js';
import { fireCompactionHooks, resolveModelWithHooks } from '../engine/run/run-hooks.js';
import { SEND_MESSAGE_TOOL } from '../engine/attempt/send-message.js';
import { approvalMethods } from './methods/approvals.js';
import { ApprovalBroker } from '../tools/approvals/broker.js';
import { execSandboxStatus } from '../tools/exec.js';
import type { ApprovalMode } from '../engine/config/schema.js';
import { profilesFor } from '../auth/profiles.js';
import { ActiveRuns } from './methods/active-runs.js';
import { createSessionMethods, toSummary } from './methods/sessions.js';
import { createSettingsMethods } from './methods/settings.js';
import { createAuthKeyMethods } from './methods/auth-keys.js';
import { openSettings, type SettingsStore } from '../settings/store.js';
import { applySettings } from '../settings/effective.js';
import { listEndpointModels } from '../providers/list-models.js';

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
  /** The CLI's --approve: overrides config agent.approvals.mode for this gateway. */
  approvalMode?: ApprovalMode;
  /** An already loaded config (the CLI loads it first to report problems with exit status 2). */
  config?: AppConfig;
  /** Jitter source for backoff (default Math.random). */
  random?: () => number;
  /** Context-overflow recovery (compaction) for the outer loop. */
  recoverOverflow?: RecoverOverflow;
  /** settings.json (default: conf on `home`); the desktop app passes its electron-store-backed one. */
  settings?: SettingsStore;
  /** The desktop app's native folder dialog (undefined when cancelled). */
  pickFolder?: () => Promise<string | undefined>;
  /** The desktop app's encrypted key store (Electron safeStorage), used only when the person chose it. */
  openFallbackSecrets?: () => Promise<SecretStore>;
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
  const settings = opts.settings ?? openSettings(opts.home);
  const fileConfig = opts.config ?? (await loadConfig(opts.home));
  // One object for the gateway's lifetime: a settings change updates it in place, so every holder (the auth pool,
  // model lists) sees the new values for the NEXT run; running work keeps what it started with.
  const config: AppConfig = applySettings(fileConfig, settings.get());
  let workspace = await realWorkspace(opts.workspace);
  const store = new SessionStore(join(opts.home, 'sessions'));
  // E19: one hook runner for the app's own handlers and every enabled plugin (<home>/plugins, off until enabled).
  const hooks = new HookRunner({ timers });
  hooks.register('app', opts.hooks ?? {});
  await loadPlugins({ home: opts.home, enabled: config.plugins.enabled, runner: hooks, timers });
  // E9: skills from the workspace and <home>/skills, bodies loaded on demand with load_skill.
  const skills = SkillCatalog.for({ workspace, home: opts.home });
  // T2: exec's OS sandbox (the app's data folder hidden) and the configured keys kept from commands.
  // Read live: a settings change (reconfigure below) applies to the next command without rebuilding the tools.
  const sandbox = {
    get enabled() {
      return config.agent.sandbox;
    },
    get network() {
      return config.agent.network;
    },
    hide: [opts.home],
  };
  const tools = [...createWorkspaceTools({ sandbox, secrets: () => configuredSecrets(config, env, secrets) }), skills.tool()];
  // T3: the approval gate every tool call passes (tool-lifecycle), answered through approvals.respond.
  const approvals = new ApprovalBroker({
    get config() {
      return config.agent.approvals; // live, like the sandbox: Settings' approval default applies to the next call
    },
    modeOverride: opts.approvalMode,
    sandboxed: async () => (await execSandboxStatus(sandbox)).kind !== 'none',
  });
  hooks.approvals = approvals.gate;
  const lanes = new Lanes({ maxConcurrent: config.agent.maxConcurrent, timers, now, sessionLock: sessionRunLock(store.dir) });
  const runs = new RunRegistry(timers);
  const hub = new EventHub();
  const idempotency = new IdempotencyCache<AgentAccepted>(now);
  const demoStream = createDemoStream(opts.demoChunkDelayMs === undefined ? undefined : { chunkDelayMs: opts.demoChunkDelayMs });
  let secrets: Promise<SecretStore> | undefined;
  const openKeychainOrFallback = async (): Promise<SecretStore> => {
    try {
      return await (opts.openSecrets ?? openKeychain)();
    } catch (err) {
      // D5: never clear text; the app's encrypted store only when the person explicitly chose it.
      if (opts.openFallbackSecrets && settings.get().allowEncryptedFallback) return opts.openFallbackSecrets();
      throw err;
    }
  };
  const openSecrets = () => (secrets ??= openKeychainOrFallback().catch((err) => {
    secrets = undefined; // try again next time (the user may have unlocked the keychain)
    throw err;
  }));
  let closed = false;
  const auth = new AuthPool({ config, env, openSecrets, state: new AuthStateStore(join(opts.home, AUTH_STATE_FILE)), now });
  const resolveFallbacks = () =>
    config.agent.model.fallbacks.flatMap((ref) => {
      try {
        return [resolveModel(config, ref)];
      } catch {
        return []; // load.ts already rejects unknown fallback refs
      }
    });
  let fallbacks = resolveFallbacks();
  /** Settings changed: recompute the config in place (throws, changing nothing, when the result is invalid). */
  const reconfigure = (): void => {
    const next = applySettings(fileConfig, settings.get());
    for (const key of Object.keys(config) as (keyof AppConfig)[]) delete config[key];
    Object.assign(config, next);
    fallbacks = resolveFallbacks();
  };
  const active = new ActiveRuns();
  hub.on(active.onEvent);
  const sessions = createSessionMethods({
    store,
    runs,
    active,
    now,
    timers,
    checkModel: (ref) => void resolveModel(config, ref),
    onSessionEnd: (e) => void hooks.fire('session_end', e, { sessionKey: e.sessionKey, sessionId: e.sessionId }),
  });
  await sessions.purgeLeftovers();

  const tryResolve = (ref: string): boolean => {
    try {
      resolveModel(config, ref);
      return true;
    } catch {
      return false;
    }
  };

  const streamFor = (model: ModelDef): StreamFn => (model.api === 'demo' ? demoStream : streamFnFor(model.api));
  const recoverOverflow = createRecoverOverflow({ store, tools, workspace, now, streamFnFor: streamFor, idleTimeoutMs: (m) => idleTimeoutFor(config, m) });
  /** A key of `provider` (env or keychain), for listing an endpoint's models; none is fine for local servers. */
  const firstKey = async (provider: string): Promise<string | undefined> => {
    const ids = await openSecrets().then((x) => x.list(), () => [] as string[]);
    for (const profile of profilesFor(config, provider, env, ids)) {
      const key = await auth.key(profile).catch(() => null);
      if (key) return key;
    }
    return undefined;
  };
  const settingsMethods = createSettingsMethods({
    settings,
    workspace: () => workspace,
    reconfigure: () => {
      reconfigure();
      const chosen = settings.get().workspace;
      if (chosen) workspace = chosen; // validated and resolved by settings.setWorkspace
    },
    openSecrets,
    ...(opts.pickFolder ? { pickFolder: opts.pickFolder } : {}),
    encryptedFallbackSupported: opts.openFallbackSecrets !== undefined,
    fetchModels: async (api, baseUrl, provider) => listEndpointModels(api, baseUrl, provider ? await firstKey(provider) : undefined),
  });
  const authKeyMethods = createAuthKeyMethods({
    settings,
    config: () => config,
    reconfigure,
    openSecrets,
    ...(opts.openFallbackSecrets ? { openFallback: opts.openFallbackSecrets } : {}),
    streamFor,
    now,
  });

  interface RunOptions {
    model: ModelDef;
    thinking: ThinkingLevel;
    timeoutMs: number;
    tools: readonly Tool[];
    /** The folder the run's tools work in (the workspace, or a cwd inside it when the sandbox is off). */
    workspace: string;
  }
  /** What each accepted run executes with, by runId (until it ends). */
  const runOptions = new Map<string, RunOptions>();

  const dispatcher = new Dispatcher({
    lanes,
    runs,
    store,
    emit: hub.emit,
    now,
    timers,
    execute: async (record, message, inbox, emitter) => {
      const o = runOptions.get(record.runId)!;
      const hookContext = { runId: record.runId, sessionKey: record.sessionKey, sessionId: record.sessionId, workspace: o.workspace };
      // E19: before_model_resolve (then legacy before_agent_start) may switch the model for this run.
      const model = await resolveModelWithHooks(hooks, { prompt: message, model: o.model }, hookContext, (ref) => resolveModel(config, ref));
      // `/compact` (E10) compacts the session instead of a model turn, in the same lane.
      return (isCompactCommand(message) ? executeCompactRun : executeRun)(
        {
          runId: record.runId,
          sessionKey: record.sessionKey,
          sessionId: record.sessionId,
          message,
          model,
          fallbacks: fallbacks.filter((f) => f.provider !== model.provider || f.id !== model.id),
          thinking: o.thinking,
          timeoutMs: o.timeoutMs,
          steer: inbox,
        },
        {
          store,
          tools: o.tools,
          workspace: o.workspace,
          hooks,
          verbose: config.agent.verbose,
          systemPrompt: async (m) =>
            buildSystemPrompt({
              workspace: o.workspace,
              model: m,
              tools: [...o.tools, { name: SEND_MESSAGE_TOOL, description: '', parameters: {} }],
              now: now(),
              skills: await skills.snapshot(),
              hooks,
              hookContext,
            }),
          now,
          timers,
          random: opts.random ?? Math.random,
          auth,
          streamFnFor: streamFor,
          idleTimeoutMs: (m) => idleTimeoutFor(config, m),
          contextTokens: (m) => effectiveContextTokens(m, config),
          recoverOverflow: opts.recoverOverflow ?? recoverOverflow,
        },
        emitter,
        record.controller.signal,
      ).finally(() => processTable.endRun(record.runId)); // background commands do not outlive their run
    },
  });

  interface AcceptRequest {
    message: string;
    sessionKey: string;
    model?: string;
    thinking?: ThinkingLevel;
    timeoutSeconds?: number;
    queueMode?: QueueMode;
    lane?: BoundedLane;
    parent?: { runId: string; sessionKey: string };
    cwd?: string;
  }

  /** Resolves the model and session, then hands the message to the dispatcher (queue modes, lanes). */
  async function accept(p: AcceptRequest): Promise<RunRecord> {
    if (closed) throw new GatewayError('internal', 'The gateway is shutting down.');
    const resolveOrRefuse = (ref: string): ModelDef => {
      try {
        return resolveModel(config, ref);
      } catch (err) {
        throw new GatewayError('bad_request', (err as Error).message);
      }
    };
    if (p.model) resolveOrRefuse(p.model); // refuse before a session is created
    // E9: with the sandbox on, a cwd override is a hard error.
    const runWs = await runWorkspace({ workspace, sandbox: config.agent.sandbox, ...(p.cwd ? { cwd: p.cwd } : {}) }).catch((err: Error) => {
      throw new GatewayError('bad_request', err.message);
    });
    const fallbackRef = p.model ?? defaultModelRef(config, env);
    const existed = await store.get(p.sessionKey);
    let session = await store.resolve(p.sessionKey, { model: fallbackRef, ...(p.parent ? { parentSessionKey: p.parent.sessionKey } : {}) });
    if (!existed) void hooks.fire('session_start', { sessionKey: p.sessionKey, sessionId: session.sessionId }, { sessionKey: p.sessionKey, sessionId: session.sessionId });
    // A session remembers its model and thinking level: used when the request names none (and still known).
    const ref = p.model ?? (session.model && tryResolve(session.model) ? session.model : fallbackRef);
    const model = resolveOrRefuse(ref);
    if (p.thinking && session.thinking !== p.thinking) session = await store.update(p.sessionKey, { thinking: p.thinking });
    const runId = randomUUID();
    runOptions.set(runId, {
      workspace: runWs,
      model,
      thinking: p.thinking ?? session.thinking ?? config.agent.thinking,
      timeoutMs: (p.timeoutSeconds ?? config.agent.timeoutSeconds) * 1000,
      tools: p.lane === 'subagent' ? tools : parentTools,
    });
    active.track({ runId, sessionKey: p.sessionKey, acceptedAt: now() }, p.message);
    const record = dispatcher.submit({
      runId,
      sessionKey: p.sessionKey,
      sessionId: session.sessionId,
      acceptedAt: now(),
      message: p.message,
      // /compact never merges into or steers another run: it waits its turn like a followup.
      mode: isCompactCommand(p.message) ? 'followup' : (p.queueMode ?? config.agent.queueMode),
      model: { provider: model.provider, id: model.id },
      ...(p.lane ? { lane: p.lane } : {}),
      ...(p.parent ? { parent: p.parent } : {}),
    });
    void record.done.finally(() => {
      runOptions.delete(runId);
      active.forget(runId);
    });
    return record;
  }

  const subagents = new Subagents({
    runs,
    now,
    start: (req) => accept({ sessionKey: req.sessionKey, message: req.message, parent: req.parent, lane: 'subagent', queueMode: 'followup' }),
    clearQueue: (sessionKey) => lanes.list(sessionKey).filter((e) => dispatcher.remove(e.id)).length,
    onChange: () => control.changed(),
  });
  const control = new SubagentControl(opts.home, subagents);
  /** Top-level runs may spawn subagents; subagent runs get the workspace tools only (no grandchildren). */
  const parentTools: readonly Tool[] = [
    ...tools,
    createSpawnSubagentTool((parent, task, signal) => subagents.spawn(parent, task, signal)),
  ];

  const toAccepted = (r: RunRecord): AgentAccepted => ({ runId: r.runId, sessionKey: r.sessionKey, sessionId: r.sessionId, acceptedAt: r.acceptedAt });

  const handlers: { [M in MethodName]: (params: unknown) => Promise<Methods[M][1]> } = {
    async agent(raw) {
      const p = parseParams('agent', raw);
      const { idempotencyKey, sessionKey, ...rest } = p;
      const start = () => accept({ ...rest, sessionKey: sessionKey ?? 'main' }).then(toAccepted);
      return idempotencyKey ? idempotency.run(idempotencyKey, start) : start();
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
      return { aborted: runs.abort(p.runId, stopError('The run was stopped.')) };
    },
    async 'sessions.list'(raw) {
      parseParams('sessions.list', raw);
      return (await store.list()).map(toSummary);
    },
    async 'sessions.history'(raw) {
      const p = parseParams('sessions.history', raw);
      const session = await store.get(p.sessionKey);
      if (!session) return [];
      const t = await store.loadTranscript(session.sessionId);
      return toHistory(t.messages, t.compactions);
    },
    async 'sessions.compact'(raw) {
      const p = parseParams('sessions.compact', raw);
      const session = await store.get(p.sessionKey);
      if (!session) throw new GatewayError('not_found', `No session with key ${p.sessionKey}.`);
      return toAccepted(await accept({ message: '/compact', sessionKey: p.sessionKey, ...(session.model ? { model: session.model } : {}) }));
    },
    ...sessions.methods,
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
    ...queueMethods({
      lanes,
      runs,
      dispatcher,
      store,
      submit: (sessionKey, message, queueMode) => accept({ sessionKey, message, queueMode }),
    }),
    ...subagentMethods(subagents),
    async 'app.info'(raw) {
      parseParams('app.info', raw);
      return { workspace, home: opts.home, defaultModel: defaultModelRef(config, env), version: opts.version ?? '0.1.0' };
    },
    ...authMethods(auth),
    ...approvalMethods(approvals),
    ...settingsMethods,
    ...authKeyMethods,
  };

  hub.on((event) => fireCompactionHooks(hooks, event));
  void hooks.fire('gateway_start', { workspace }, { workspace });
  return {
    get config() {
      return config;
    },
    get workspace() {
      return workspace;
    },
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
      await hooks.fire('gateway_stop', {}, { workspace });
      for (const run of runs.active()) runs.abort(run.runId, new Error('The app is closing.'));
      await Promise.allSettled(runs.active().map((r) => r.done));
      await control.close();
      await sessions.close();
    },
  };
}
