/** What createAppGateway (create.ts) takes and gives: its options and the gateway it returns. */
import type { ApprovalMode, AppConfig } from '../engine/config/schema.js';
import type { EngineHooks } from '../engine/attempt/hooks.js';
import type { RecoverOverflow } from '../engine/run/overflow-recovery.js';
import type { Timers } from '../engine/run/agent-run.js';
import type { SecretStore } from '../auth/secrets.js';
import type { McpManager } from '../mcp/manager.js';
import type { SettingsStore } from '../settings/store.js';
import type { GatewayApi } from './types.js';

export interface AppGateway extends GatewayApi {
  readonly config: AppConfig;
  readonly workspace: string;
  /** X1: the MCP servers (the CLI prints their notices). */
  readonly mcp: McpManager;
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
  /** `config` with the settings applied, when the caller already merged them (the CLI: read and checked once). */
  effectiveConfig?: AppConfig;
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
  /** X1: the keychain of MCP server secrets and OAuth tokens (default: keytar, service "AgentDesk MCP"). */
  openMcpSecrets?: () => Promise<SecretStore>;
  /** X1 OAuth: opens a consent URL in the system browser (the desktop app); elsewhere Settings shows the link. */
  openUrl?: (url: string) => void;
}
