/**
 * The workspace folder of the desktop app: env override, else the last chosen folder (a small JSON in userData),
 * else the native folder picker. electron-store replaces the JSON file in a later issue.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dialog, type BrowserWindow } from 'electron';

const FILE = 'window-state.json';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function readLastWorkspace(userData: string): string | undefined {
  const file = join(userData, FILE);
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { workspace?: unknown };
    return typeof value.workspace === 'string' && isDirectory(value.workspace) ? value.workspace : undefined;
  } catch {
    return undefined; // a corrupt file just means "ask again"
  }
}

export function saveLastWorkspace(userData: string, workspace: string): void {
  mkdirSync(userData, { recursive: true });
  writeFileSync(join(userData, FILE), JSON.stringify({ workspace }, null, 2) + '\n', 'utf8');
}

/** Shows the native folder picker; undefined when cancelled. */
export async function pickFolder(parent?: BrowserWindow): Promise<string | undefined> {
  const options = { title: 'Open Folder', properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
  const result = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
  return result.canceled ? undefined : result.filePaths[0];
}

/** AGENTDESK_WORKSPACE, else the remembered folder, else ask. */
export async function resolveStartupWorkspace(userData: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.AGENTDESK_WORKSPACE && isDirectory(env.AGENTDESK_WORKSPACE)) return env.AGENTDESK_WORKSPACE;
  const last = readLastWorkspace(userData);
  if (last) return last;
  const picked = await pickFolder();
  if (picked) saveLastWorkspace(userData, picked);
  return picked;
}
