/** Where AgentDesk keeps config.json, sessions and state: --home, else AGENTDESK_HOME, else the OS user-data folder
 * (the same folder Electron's app.getPath('userData') gives for productName "AgentDesk", so the CLI and the app share it). */
import os from 'node:os';
import { isAbsolute, join } from 'node:path';

export function defaultHome(env: NodeJS.ProcessEnv = process.env, platform = process.platform, homedir = os.homedir()): string {
  if (env.AGENTDESK_HOME) return env.AGENTDESK_HOME;
  if (platform === 'darwin') return join(homedir, 'Library', 'Application Support', 'AgentDesk');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir, 'AppData', 'Roaming'), 'AgentDesk');
  return join(env.XDG_CONFIG_HOME ?? join(homedir, '.config'), 'AgentDesk');
}

/** The data folder and where it came from (for messages naming the problem). */
export function homeFrom(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): { home: string; label: string } {
  if (flag !== undefined) return { home: flag, label: '--home' };
  if (env.AGENTDESK_HOME) return { home: env.AGENTDESK_HOME, label: 'AGENTDESK_HOME' };
  return { home: defaultHome(env), label: 'data folder' };
}

/**
 * Where the command line keeps V8's code cache of its own build (bin/code-cache.mjs, which must agree: a unit test
 * compares them): $XDG_CACHE_HOME/agentdesk/code-cache, else ~/.cache/…. A code cache is code the CLI runs at its
 * next start, outside any sandbox, so the gateway hides this folder like the data folder (X5): a workspace that holds
 * it (the home folder) cannot plant a file there. Hidden also when the cache is turned off (AGENTDESK_CODE_CACHE=0
 * may be unset later).
 */
export function codeCacheFolder(env: NodeJS.ProcessEnv = process.env, homedir = os.homedir()): string {
  const base = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir, '.cache');
  return join(base, 'agentdesk', 'code-cache');
}
