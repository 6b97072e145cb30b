// The command `npm start` runs (pure, unit-tested for every platform): electron-vite's own bin script under the
// Node that runs this script, `preview`. Not `npx` / `npx.cmd` through spawn: on Windows, spawning a .cmd without a
// shell fails with EINVAL since Node's fix for CVE-2024-27980, and with a shell the arguments would need quoting.
// `preview` builds first unless given --skipBuild, so one step builds and opens the app (building separately
// before it would build twice).
import { posix, win32 } from 'node:path';

/**
 * @param {{ execPath: string, electronVitePackageJson: string, bin: string, args: string[], platform?: string }} opts
 *   `electronVitePackageJson`: the resolved electron-vite/package.json; `bin`: its "bin" entry.
 * @returns {{ command: string, args: string[] }}
 */
export function startCommand({ execPath, electronVitePackageJson, bin, args, platform = process.platform }) {
  const path = platform === 'win32' ? win32 : posix;
  return { command: execPath, args: [path.join(path.dirname(electronVitePackageJson), bin), 'preview', ...args] };
}
