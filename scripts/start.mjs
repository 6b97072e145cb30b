#!/usr/bin/env node
// `npm start`: builds and opens the desktop app — or, where no Electron binary was installed (e.g.
// ELECTRON_SKIP_BINARY_DOWNLOAD=1, no access to GitHub), says so in one line and points to the web UI and the CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Electron executable, or undefined (never `require('electron')`: it throws a long error without one). */
export function electronBinary(env = process.env) {
  try {
    const dir = dirname(createRequire(join(ROOT, 'package.json')).resolve('electron/package.json'));
    const pathFile = join(dir, 'path.txt');
    if (!existsSync(pathFile)) return undefined;
    const exe = join(env.ELECTRON_OVERRIDE_DIST_PATH ?? join(dir, 'dist'), readFileSync(pathFile, 'utf8').trim());
    return existsSync(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

if (!electronBinary()) {
  process.stderr.write(
    'agentdesk: no Electron binary is installed (it is downloaded by `npm install` unless ELECTRON_SKIP_BINARY_DOWNLOAD is set) — use `npm run web` for the same UI in your browser, or the command line: `npx agentdesk agent --help`.\n',
  );
  process.exit(1);
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
for (const args of [['electron-vite', 'build'], ['electron-vite', 'preview', ...process.argv.slice(2)]]) {
  const r = spawnSync(npx, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
