/** Where AgentDesk keeps config.json, sessions and state: --home, else AGENTDESK_HOME, else the OS user-data folder
 * (the same folder Electron's app.getPath('userData') gives for productName "AgentDesk", so the CLI and the app share it). */
import os from 'node:os';
import { join } from 'node:path';

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
