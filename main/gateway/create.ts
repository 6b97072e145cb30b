/**
 * Builds the application gateway (E1, E2): config, sessions, tools, lanes and the run registry behind the
 * transport-agnostic request/event surface used by Electron IPC, the WebSocket transport and the CLI.
 */
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { codeCacheFolder, defaultHome } from '../cli/home.js';
import type { AgentAccepted, AgentEvent, MethodName, Methods } from '../../preload/contract.js';
import { GatewayError } from './types.js';
import { loadConfig } from '../engine/config/load.js';
import type { AppConfig } from '../engine/config/schema.js';
import { resolveModel } from '../engine/models.js';
import { knownPrice } from '../usage/prices.js';
import type { ModelDef, StreamFn } from '../providers/types.js';
import { streamFnFor } from '../providers/registry.js';
import { createDemoStream, demoChunkDelayFromEnv } from '../providers/demo.js';
import { SessionStore } from '../sessions/store.js';
import { createWorkspaceTools } from '../tools/index.js';
import { configuredSecrets } from './secrets-scrub.js';
import { openOnce } from './open-once.js';
import { keyTestRecorder, ledgerRecorder } from './usage-ledger.js';
import { realWorkspace } from '../tools/paths.js';
import { hideFromTools } from '../tools/fs/hidden.js';
import { Lanes } from '../engine/run/lanes.js';
import { RunRegistry } from '../engine/run/runs.js';
import { EventHub } from '../engine/stream/run-emitter.js';
import { sessionRunLock } from '../sessions/session-lock.js';
import { IdempotencyCache } from './idempotency.js';
import { queueMethods } from './methods/queue.js';
import { subagentMethods } from './methods/subagents.js';
import { Subagents } from '../engine/run/subagents.js';
import { SubagentControl } from './subagent-control.js';
import { createSpawnSubagentTool } from '../tools/subagent.js';
import type { Tool } from '../tools/types.js';
import { nodeTimers } from '../engine/run/agent-run.js';
import { openKeychain, type SecretStore } from '../auth/secrets.js';
import { AuthPool } from '../auth/pool.js';
import { AUTH_STATE_FILE, AuthStateStore } from '../auth/state-store.js';
import { createRecoverOverflow } from '../engine/run/overflow-recovery.js';
import { authMethods } from './methods/auth.js';
import { HookRunner } from '../engine/attempt/hook-runner.js';
import { loadPlugins } from '../engine/plugins.js';
import { SkillCatalog } from '../engine/attempt/skills.js';
import { fireCompactionHooks } from '../engine/run/run-hooks.js';
import { approvalMethods } from './methods/approvals.js';
import { ApprovalBroker } from '../tools/approvals/broker.js';
import { PendingApprovals } from './pending-approvals.js';
import { ProtectedGrants } from '../tools/protected/grants.js';
import { execSandboxStatus } from '../tools/exec.js';
import { profilesFor } from '../auth/profiles.js';
import { ActiveRuns } from './methods/active-runs.js';
import { createSessionMethods } from './methods/sessions.js';
import { createSettingsMethods } from './methods/settings.js';
import { createAuthKeyMethods } from './methods/auth-keys.js';
import { openSettings } from '../settings/store.js';
import { applySettings } from '../settings/effective.js';
import { fetchEndpointModels, listEndpointModels } from '../providers/list-models.js';
import { createRunExecution } from './run-execution.js';
import { agentMethods, toAccepted } from './methods/agent.js';
import { McpManager } from '../mcp/manager.js';
import { McpOAuthProvider } from '../mcp/oauth.js';
import { createMcpMethods } from './methods/mcp.js';
import { keychainSecretSource, MCP_KEYCHAIN_SERVICE } from '../mcp/secrets.js';
import { toolTokens } from '../mcp/budget.js';
import { toolSpecsOf } from '../tools/index.js';
import { SEND_MESSAGE_TOOL } from '../engine/attempt/send-message.js';
import { defaultModelRef, effectiveContextTokens, idleTimeoutFor } from '../engine/models.js';
import { appMethods } from './methods/app.js';
import { checkpointMethods } from './methods/checkpoints.js';
import { branchMethods } from './methods/branch.js';
import { openCheckpoints } from '../checkpoints/open.js';
import { AttachmentStore } from '../sessions/attachments.js';
import { AttachmentResolver, withAttachments } from '../sessions/attachment-send.js';
import { createAttachmentMethods } from './methods/attachments.js';
import { Ledger } from '../usage/ledger.js';
import { ledgerFile } from '../usage/paths.js';
import type { GateDeps } from '../usage/gate.js';
import { createUsageMethods } from './methods/usage.js';

import type { AppGateway, GatewayOptions } from './options.js';

export type { AppGateway, GatewayOptions } from './options.js';

export async function createAppGateway(opts: GatewayOptions): Promise<AppGateway> {
  const env = opts.env ?? process.env;
  const now = opts.now ?? Date.now;
  const timers = opts.timers ?? nodeTimers;
  const settings = opts.settings ?? openSettings(opts.home);
  const fileConfig = opts.config ?? (await loadConfig(opts.home));
  // One object for the gateway's lifetime: a settings change updates it in place, so every holder (the auth pool,
  // model lists) sees the new values for the NEXT run; running work keeps what it started with.
  const config: AppConfig = opts.effectiveConfig ?? applySettings(fileConfig, settings.get());
  // X5: AgentDesk's data folders (this one and the default one) are never a workspace and never visible in one.
  // The command line's code cache is code it runs at its next start: hidden the same way, and made now so that a
  // command cannot create it first (a missing folder has nothing to hide it with).
  const codeCache = codeCacheFolder(env, homedir());
  await mkdir(codeCache, { recursive: true, mode: 0o700 }).catch(() => undefined);
  const dataFolders = [opts.home, defaultHome(env), codeCache];
  let workspace = await realWorkspace(opts.workspace, { home: homedir(), dataFolders });
  // …and the file tools treat them as outside, also when one lies inside the workspace (the home folder).
  const unhide = hideFromTools(dataFolders);
  // X3: attachments (and images tools return) stored once in the data folder; transcripts name them by sha256.
  const attachmentStore = new AttachmentStore(join(opts.home, 'attachments'));
  const attachmentResolver = new AttachmentResolver(attachmentStore);
  // E19: one hook runner for the app's own handlers and every enabled plugin (<home>/plugins, off until enabled).
  const hooks = new HookRunner({ timers });
  // session_start for every session that begins — a message to a new key, a chat created or reset in the app, /new.
  const store = new SessionStore(join(opts.home, 'sessions'), {
    attachments: attachmentStore,
    onSessionStart: (s) => void hooks.fire('session_start', s, { sessionKey: s.sessionKey, sessionId: s.sessionId }),
    onSessionEnd: (s) => void hooks.fire('session_end', s, { sessionKey: s.sessionKey, sessionId: s.sessionId }),
  });
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
    get limits() {
      return config.agent.limits;
    },
    hide: dataFolders,
  };
  // X5: the person's approvals of protected paths, from the approval gate to the file tool that writes.
  const grants = new ProtectedGrants(now);
  const tools = [...createWorkspaceTools({ sandbox, secrets: () => configuredSecrets(config, env, openSecrets.opened()), grants }), skills.tool()];
  // T3: the approval gate every tool call passes (tool-lifecycle), answered through approvals.respond.
  const approvals = new ApprovalBroker({
    get config() {
      return config.agent.approvals; // live, like the sandbox: Settings' approval default applies to the next call
    },
    modeOverride: opts.approvalMode,
    sandboxed: async () => (await execSandboxStatus(sandbox)).kind !== 'none',
    toolInfo: (tool) => {
      const info = mcp.toolInfo(tool);
      return info && { mode: info.mode, mcp: { server: info.server, tool: info.tool, ...(info.annotations ? { annotations: info.annotations } : {}) } };
    },
    timeoutMs: () => config.agent.approvals.timeoutSeconds * 1000,
    timers,
    now,
    grants,
  });
  const pendingApprovals = new PendingApprovals();
  hooks.approvals = approvals.gate;
  // X2: the workspace is checkpointed before each turn's first change; an operation a killed process left
  // half-done is finished first (and said on stderr).
  const checkpoints = await openCheckpoints({ home: opts.home, sessions: store, config: () => config });
  // X1: MCP servers, one client each for every run of this gateway; secrets from their own keychain service.
  const openMcpSecrets = openOnce(opts.openMcpSecrets ?? (() => openKeychain({ service: MCP_KEYCHAIN_SERVICE })));
  const mcp = new McpManager({
    home: opts.home,
    servers: () => config.mcpServers,
    env,
    scrub: () => configuredSecrets(config, env, openSecrets.opened()),
    secrets: keychainSecretSource(openMcpSecrets),
    authProvider: (server) => new McpOAuthProvider(server, openMcpSecrets, opts.openUrl),
    clientVersion: opts.version ?? '0.1.0',
    now,
  });
  const lanes = new Lanes({ maxConcurrent: config.agent.maxConcurrent, timers, now, sessionLock: sessionRunLock(store.dir) });
  const runs = new RunRegistry(timers);
  const hub = new EventHub();
  // X4: every billed model call (the engine's `usage` events) goes into the cost ledger in the data folder.
  const ledger = new Ledger(ledgerFile(opts.home), { onWarning: (m) => console.error(`[agentdesk] ${m}`) });
  // Not read at start: only a budget check or a usage summary reads it (a CLI turn without budgets never does).
  hub.on(ledgerRecorder(ledger, (runId) => runs.get(runId)?.sessionId));
  const idempotency = new IdempotencyCache<AgentAccepted>(now);
  const demoDelay = opts.demoChunkDelayMs ?? demoChunkDelayFromEnv(env); // AGENTDESK_DEMO_CHUNK_MS (the tests: 0)
  const demoStream = createDemoStream(demoDelay === undefined ? undefined : { chunkDelayMs: demoDelay });
  // D5: never clear text; the app's encrypted store only when the person explicitly chose it.
  const openSecrets = openOnce(async (): Promise<SecretStore> => {
    try {
      return await (opts.openSecrets ?? openKeychain)();
    } catch (err) {
      if (opts.openFallbackSecrets && settings.get().allowEncryptedFallback) return opts.openFallbackSecrets();
      throw err;
    }
  });
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
  hooks.checkpoint = checkpoints.gate({ run: (runId) => runs.get(runId), root: () => workspace, events: (l) => hub.on(l) });
  hub.on(pendingApprovals.onEvent);
  const sessions = createSessionMethods({
    store,
    runs,
    active,
    now,
    timers,
    checkModel: (ref) => void resolveModel(config, ref),
    priceOf: (ref) => {
      try {
        return resolveModel(config, ref).cost;
      } catch {
        return knownPrice(ref); // a model no longer configured: its list price, as the ledger kept it
      }
    },
    onSessionEnd: (e) => void hooks.fire('session_end', e, { sessionKey: e.sessionKey, sessionId: e.sessionId }),
    onPurge: (sessionKey) => checkpoints.forgetSession(sessionKey),
    compact: async (sessionKey) => toAccepted(await accept({ message: '/compact', sessionKey })),
    readAttachment: async (id) => {
      const a = await attachmentStore.describe(id, 'attachment').catch(() => undefined);
      return a && { mimeType: a.mimeType, data: (await attachmentStore.read(id)).toString('base64') };
    },
  });
  await sessions.purgeLeftovers();

  // Every model call (tool loop, compaction summaries, key tests) gets its attachments put back for its model (X3);
  // a run's calls are also checked against the budgets first (X4: run-execution.ts wraps them with this gate).
  const budgetGate: GateDeps = { ledger, budget: () => config.agent.budget, now };
  const streamFor = (model: ModelDef): StreamFn => withAttachments(model.api === 'demo' ? demoStream : streamFnFor(model.api), attachmentResolver);
  const attachments = createAttachmentMethods({ store: attachmentStore, workspace: () => workspace, now });
  const recoverOverflow = createRecoverOverflow({ store, tools, now, streamFnFor: streamFor, idleTimeoutMs: (m) => idleTimeoutFor(config, m) });
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
    dataFolders,
    // a key typed into the form goes with its own request; a stored key only to its saved base URL (fetchEndpointModels)
    fetchModels: async (api, baseUrl, provider, apiKey) => (apiKey ? listEndpointModels(api, baseUrl, apiKey) : fetchEndpointModels(config, api, baseUrl, provider, firstKey)),
  });
  const authKeyMethods = createAuthKeyMethods({
    settings,
    config: () => config,
    reconfigure,
    openSecrets,
    ...(opts.openFallbackSecrets ? { openFallback: opts.openFallbackSecrets } : {}),
    streamFor,
    now,
    // X4: a key test's tokens are billed like any call (no chat: in the totals, by day, model and key).
    onTestUsage: keyTestRecorder(ledger, now),
  });

  const { dispatcher, accept, command } = createRunExecution({
    config,
    env,
    store,
    hooks,
    skills,
    auth,
    lanes,
    runs,
    emit: hub.emit,
    active,
    now,
    timers,
    random: opts.random ?? Math.random,
    streamFor,
    budgetGate,
    recoverOverflow: opts.recoverOverflow ?? recoverOverflow,
    idleTimeoutMs: (m) => idleTimeoutFor(config, m),
    fallbacks: () => fallbacks,
    workspace: () => workspace,
    tools,
    parentTools: () => parentTools,
    isClosed: () => closed,
    attachmentsFor: attachments.attachmentsFor,
    mcpTools: async (model, builtIn) => {
      const reserved = [...builtIn.map((t) => t.name), SEND_MESSAGE_TOOL];
      const { tools: offered } = await mcp.toolsForRun({
        reserved,
        windowTokens: effectiveContextTokens(model, config),
        // Counted only when some MCP server offers tools (a turn without MCP servers never needs it).
        builtInTokens: () => toolTokens(toolSpecsOf(builtIn)),
      });
      return offered;
    },
  });

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

  const handlers: { [M in MethodName]: (params: unknown) => Promise<Methods[M][1]> } = {
    ...agentMethods({ accept, command, runs, idempotency }),
    ...attachments.methods,
    ...createUsageMethods({ ledger, store, settings, budget: () => config.agent.budget, reconfigure, now }),
    ...sessions.methods,
    ...appMethods({ config, auth, env, home: opts.home, version: opts.version ?? '0.1.0', workspace: () => workspace }),
    ...queueMethods({
      lanes,
      runs,
      dispatcher,
      store,
      submit: (sessionKey, message, queueMode) => accept({ sessionKey, message, queueMode }),
    }),
    ...subagentMethods(subagents),
    ...authMethods(auth),
    ...branchMethods({ store, busy: (key) => active.sessionKeys().has(key), now }),
    ...checkpointMethods({ service: checkpoints.service, store: checkpoints.store, busy: (key) => active.sessionKeys().has(key), notices: checkpoints.notices }),
    ...approvalMethods(approvals, pendingApprovals),
    ...settingsMethods,
    ...authKeyMethods,
    ...createMcpMethods({
      settings,
      servers: () => config.mcpServers,
      reconfigure,
      mcp,
      openSecrets: openMcpSecrets,
      windowTokens: () => {
        try {
          return effectiveContextTokens(resolveModel(config, defaultModelRef(config, env)), config);
        } catch {
          return 200_000;
        }
      },
    }),
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
    mcp,
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
    greeting: () => pendingApprovals.list(),
    async close() {
      closed = true;
      await hooks.fire('gateway_stop', {}, { workspace });
      for (const run of runs.active()) runs.abort(run.runId, new Error('The app is closing.'));
      await Promise.allSettled(runs.active().map((r) => r.done));
      await control.close();
      await mcp.close();
      await ledger.flush(); // X4: the last calls' ledger lines are on disk before the process exits
      await sessions.close();
      await checkpoints.close();
      unhide();
    },
  };
}
