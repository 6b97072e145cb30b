/**
 * `agentdesk plugins list`: every folder in `<home>/plugins`, one line each — enabled or disabled, the hooks an
 * enabled plugin registers, or why it could not be loaded. Listing loads the ENABLED plugins (that is how their
 * hooks are known); disabled plugins are never loaded.
 */
import { join, resolve } from 'node:path';
import { loadConfig } from '../engine/config/load.js';
import { HookRunner } from '../engine/attempt/hook-runner.js';
import { PLUGINS_DIR, loadPlugins } from '../engine/plugins.js';
import type { PluginsArgs } from './args.js';
import { defaultHome } from './home.js';
import type { Io } from './agent-command.js';
import { EXIT_OK, UsageError } from './usage-error.js';

export async function runPluginsCommand(args: PluginsArgs, io: Io): Promise<number> {
  const home = resolve(io.cwd, args.home ?? defaultHome(io.env));
  const config = await loadConfig(home).catch((err: Error) => {
    throw new UsageError(err.message);
  });
  const infos = await loadPlugins({ home, enabled: config.plugins.enabled, runner: new HookRunner(), log: () => undefined });
  if (infos.length === 0) {
    io.out(`No plugins in ${join(home, PLUGINS_DIR)}.\n`);
    return EXIT_OK;
  }
  for (const p of infos) {
    const state = p.enabled ? 'enabled' : 'disabled';
    const hooks = p.enabled && p.hooks.length > 0 ? `  hooks: ${p.hooks.join(', ')}` : '';
    const error = p.error ? `  error: ${p.error}` : '';
    io.out(`${p.name}  ${state}${hooks}${error}\n`);
  }
  return EXIT_OK;
}
