/**
 * The config the engine runs with = config.json (headless use) overlaid with what the person chose in Settings.
 *
 * Precedence, strongest first: command-line flags / request params › settings.json › config.json › built-in defaults.
 * - `defaults.*` replace the matching `agent.*` values (model.primary, thinking, queueMode, sandbox, timeoutSeconds,
 *   verbose, approval → approvals.mode).
 * - `workspace` replaces `agent.workspace`.
 * - Endpoints added in Settings join `providers`; a provider of the same name in config.json wins (it is explicit
 *   headless configuration and may carry fields Settings does not edit).
 * - Key profiles added in Settings come first in `authProfiles`, in their Settings order (the outer loop's order),
 *   followed by config.json's profiles that Settings does not list.
 * The result is validated like config.json, so a bad combination names the problem in one line.
 */
import type { AppConfig } from '../engine/config/schema.js';
import { validateConfig } from '../engine/config/load.js';
import type { Settings } from './schema.js';

export function applySettings(config: AppConfig, settings: Settings): AppConfig {
  const d = settings.defaults;
  const providers = { ...config.providers };
  for (const [name, endpoint] of Object.entries(settings.providers)) {
    if (!Object.hasOwn(providers, name)) providers[name] = { api: endpoint.api, baseUrl: endpoint.baseUrl, models: endpoint.models };
  }
  const fromSettings = settings.profiles.map((p) => ({ id: p.id, provider: p.provider }));
  const listed = new Set(fromSettings.map((p) => p.id));
  const merged = {
    ...config,
    providers,
    // X1: a server added or edited in Settings replaces config.json's entry of the same name.
    mcpServers: { ...config.mcpServers, ...settings.mcpServers },
    authProfiles: [...fromSettings, ...config.authProfiles.filter((p) => !listed.has(p.id))],
    agent: {
      ...config.agent,
      model: { ...config.agent.model, ...(d.model ? { primary: d.model } : {}) },
      ...(d.thinking ? { thinking: d.thinking } : {}),
      ...(d.queueMode ? { queueMode: d.queueMode } : {}),
      ...(d.sandbox !== undefined ? { sandbox: d.sandbox } : {}),
      ...(d.approval ? { approvals: { ...config.agent.approvals, mode: d.approval } } : {}),
      ...(d.timeoutSeconds ? { timeoutSeconds: d.timeoutSeconds } : {}),
      ...(d.verbose !== undefined ? { verbose: d.verbose } : {}),
      ...(settings.workspace ? { workspace: settings.workspace } : {}),
      ...(settings.budget ? { budget: settings.budget } : {}),
    },
  };
  return validateConfig(merged, 'settings.json');
}
