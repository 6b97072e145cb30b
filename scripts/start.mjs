#!/usr/bin/env node
// `npm start`: builds and opens the desktop app — or, where no Electron binary was installed (e.g.
// ELECTRON_SKIP_BINARY_DOWNLOAD=1, no access to GitHub), says so in one line and points to the web UI and the CLI.
// Arguments go to `electron-vite preview` (e.g. `npm start -- --skipBuild`, `npm start -- --noSandbox`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCommand } from './start-command.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));

/**
 * The Electron executable, found the way the electron package's own index.js finds it (path.txt under dist/, or
 * ELECTRON_OVERRIDE_DIST_PATH), or undefined. Never `require('electron')`: it throws a long error without one.
 */
export function electronBinary(env = process.env) {
  try {
    const dir = dirname(require.resolve('electron/package.json'));
    const pathFile = join(dir, 'path.txt');
    const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
    if (env.ELECTRON_OVERRIDE_DIST_PATH) {
      const exe = join(env.ELECTRON_OVERRIDE_DIST_PATH, rel ?? 'electron');
      return existsSync(exe) ? exe : undefined;
    }
    if (rel === undefined) return undefined;
    const exe = join(dir, 'dist', rel);
    return existsSync(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

const electron = electronBinary();
if (!electron) {
  process.stderr.write(
    'agentdesk: no Electron binary is installed (it is downloaded by `npm install` unless ELECTRON_SKIP_BINARY_DOWNLOAD is set) — use `npm run web` for the same UI in your browser, or the command line: `npx agentdesk agent --help`.\n',
  );
  process.exit(1);
}

const electronVitePackageJson = require.resolve('electron-vite/package.json');
const { bin } = JSON.parse(readFileSync(electronVitePackageJson, 'utf8'));
const { command, args } = startCommand({
  execPath: process.execPath,
  electronVitePackageJson,
  bin: typeof bin === 'string' ? bin : bin['electron-vite'],
  args: process.argv.slice(2),
});
// electron-vite starts the binary found here (ELECTRON_EXEC_PATH), not its own guess.
const r = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ELECTRON_EXEC_PATH: electron } });
if (r.error) {
  process.stderr.write(`agentdesk: could not run electron-vite: ${r.error.message}\n`);
  process.exit(1);
}
process.exit(r.status ?? 1);
