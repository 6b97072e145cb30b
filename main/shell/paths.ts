/**
 * Where the built pieces live relative to out/main/index.js, and which URLs count as "our page".
 * No 'electron' import: pure path logic. Import it only from the shell entry so it is bundled into out/main/index.js
 * (a shared chunk under out/main/chunks/ would shift `here`).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const PRELOAD_PATH = join(here, '..', 'preload', 'index.cjs');
export const RENDERER_INDEX = join(here, '..', 'renderer', 'index.html');

/** The dev-server URL electron-vite sets in `dev` mode, or undefined for the built app. */
export function devRendererUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.ELECTRON_RENDERER_URL;
  return url && /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?\/?/.test(url) ? url : undefined;
}

/** True when `url` is our renderer page (the built file, or the dev server's origin in dev mode). */
export function isAppUrl(url: string, devUrl: string | undefined = devRendererUrl()): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (devUrl !== undefined) return parsed.origin === new URL(devUrl).origin;
  if (parsed.protocol !== 'file:') return false;
  try {
    return resolve(fileURLToPath(parsed)) === resolve(RENDERER_INDEX);
  } catch {
    return false;
  }
}

export const RENDERER_FILE_URL = pathToFileURL(RENDERER_INDEX).href;
