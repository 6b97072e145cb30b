/** D2 contract: D4/D5 Settings, the model list and app facts (`settings.*`, `models.list`, `app.info`). */
import type { ApprovalMode } from './approvals.js';
import type { QueueMode } from './queue.js';
import type { ThinkingLevel } from './runs.js';

export interface ModelInfo {
  ref: string; // provider/model
  provider: string;
  id: string;
  /** The window every budget decision uses: the model's own, capped by `agent.contextTokens`. */
  contextWindow: number;
  reasoning: boolean;
  demo: boolean;
  /** X3: the model takes images (its entry's `input` has "image"). */
  images?: boolean;
  hasKey: boolean;
  /** E17/X4: USD per million tokens, where the price is known. */
  cost?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

export interface AppInfo {
  workspace: string;
  home: string;
  defaultModel: string;
  /** The thinking level a chat uses when it has not chosen one (Settings' default, else config.json's). */
  defaultThinking?: ThinkingLevel;
  version: string;
}

export interface SettingsDefaultsDto {
  model?: string;
  thinking?: ThinkingLevel;
  queueMode?: QueueMode;
  approval?: ApprovalMode;
  sandbox?: boolean;
  timeoutSeconds?: number;
  /** E16/E21: replies carry the reasoning and a summary of each tool call (a chat's /verbose wins). */
  verbose?: boolean;
}

export interface EndpointDto {
  api: 'anthropic' | 'openai-chat' | 'openai-responses';
  baseUrl: string;
  models: { id: string; contextWindow?: number; maxTokens?: number; reasoning?: boolean }[];
}

/** D4/D5: what the Settings view shows (never a key). */
export interface SettingsView {
  defaults: SettingsDefaultsDto;
  workspace: string;
  recentWorkspaces: string[];
  /** Endpoints added in Settings (OpenAI-compatible servers and the like), by provider name. */
  providers: Record<string, EndpointDto>;
  onboarded: boolean;
  keychain: { available: boolean; reason?: string; fix?: string };
  /** The app's encrypted fallback (Electron safeStorage): offered only in the desktop app. */
  encryptedFallback: { supported: boolean; allowed: boolean };
  /** Where the settings file lives. */
  file: string;
  /** Folder picking: 'dialog' in the desktop app, else a validated path field. */
  folderPicker: 'dialog' | 'path';
}

export interface SettingsPatch {
  defaults?: SettingsDefaultsDto;
  onboarded?: boolean;
  allowEncryptedFallback?: boolean;
  /** Add or replace (value) or remove (null) an endpoint. */
  providers?: Record<string, EndpointDto | null>;
}
