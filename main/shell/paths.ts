/**
 * Where the built pieces live relative to out/main/index.js, and which URLs count as "our page".
 * No 'electron' import: pure path logic. Import it only from the shell entry so it is bundled into out/main/index.js
 * (a shared chunk under out/main/chunks/ would shift `here`).
 */
import { dirname, join, posix, win32 } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const PRELOAD_PATH = join(here, '..', 'preload', 'index.cjs');
export const RENDERER_INDEX = join(here, '..', 'renderer', 'index.html');

/** The dev-server URL electron-vite sets in `dev` mode, or undefined for the built app. */
export function devRendererUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.ELECTRON_RENDERER_URL;
  return url && /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?\/?/.test(url) ? url : undefined;
}

/** The file a file: URL names on `platform`, or undefined (a URL no file path can come from). */
function filePath(url: URL, platform: NodeJS.Platform): string | undefined {
  try {
    const windows = platform === 'win32';
    return (windows ? win32 : posix).resolve(fileURLToPath(url, { windows }));
  } catch {
    return undefined;
  }
}

/**
 * Whether two absolute paths name the same file on `platform`. Windows: the drive letter's case is not
 * significant, and the two sides disagree on it (Chromium's file: URLs upper-case it, a path Node built from a
 * module URL or a shortcut's working folder may not).
 */
export function samePath(a: string, b: string, platform: NodeJS.Platform): boolean {
  if (platform !== 'win32') return posix.resolve(a) === posix.resolve(b);
  const drive = (p: string) => win32.resolve(p).replace(/^[a-z]:/, (d) => d.toUpperCase());
  return drive(a) === drive(b);
}

export interface AppUrlOptions {
  /** The dev server's URL (`npm run dev`), else undefined: the built page. */
  devUrl?: string | undefined;
  rendererIndex?: string;
  platform?: NodeJS.Platform;
}

/**
 * True when `url` is our renderer page: the built index.html as a file: URL, or — in dev mode — the dev server's
 * page (its origin, at `/` or `/index.html`; query and fragment do not matter).
 */
export function isAppUrl(url: string, opts: AppUrlOptions = { devUrl: devRendererUrl() }): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const devUrl = 'devUrl' in opts ? opts.devUrl : devRendererUrl();
  if (devUrl !== undefined) return parsed.origin === new URL(devUrl).origin && (parsed.pathname === '/' || parsed.pathname === '/index.html');
  if (parsed.protocol !== 'file:') return false;
  const platform = opts.platform ?? process.platform;
  const file = filePath(parsed, platform);
  return file !== undefined && samePath(file, opts.rendererIndex ?? RENDERER_INDEX, platform);
}

