/**
 * allowCommands and package scripts (X5): `npm test` on an allow list runs whatever package.json's test script says
 * — and the agent can edit package.json. So an allow-listed script run counts only while the script (with its pre-
 * and post- scripts) is what the last git commit has; a changed, new or uncommitted script is asked about. The
 * committed version is read with git on the host, with the repository's hooks and fsmonitor turned off and no
 * pager (a plain object read runs nothing from the repository).
 */
import { readWholeText } from '../fs/confined.js';

const BUILTINS = new Set(['install', 'i', 'ci', 'add', 'remove', 'rm', 'uninstall', 'update', 'up', 'upgrade', 'ls', 'list', 'why', 'info', 'view',
  'outdated', 'audit', 'config', 'help', 'init', 'create', 'dlx', 'exec', 'x', 'link', 'unlink', 'pack', 'publish', 'version', 'login',
  'logout', 'cache', 'store', 'dedupe', 'prune', 'rebuild', 'import', 'bin', 'root', 'whoami', 'set', 'workspaces', 'workspace', 'plugin']);

/** The package script a command runs (`npm test`, `npm run build`, `yarn lint`, `pnpm dev`, `bun run x`), if any. */
export function scriptRun(words: readonly string[]): string | undefined {
  const [prog, ...args] = words;
  const rest = args.filter((a) => !a.startsWith('-'));
  const [sub, name] = rest;
  if (sub === undefined) return undefined;
  if (prog === 'npm') {
    if (['run', 'run-script', 'rum', 'urn'].includes(sub)) return name;
    if (['test', 't', 'tst'].includes(sub)) return 'test';
    if (['start', 'stop', 'restart'].includes(sub)) return sub;
    return undefined;
  }
  if (prog === 'pnpm' || prog === 'yarn') {
    if (sub === 'run') return name;
    if (['test', 't', 'start'].includes(sub)) return sub === 't' ? 'test' : sub;
    return BUILTINS.has(sub) ? undefined : sub; // `yarn lint`, `pnpm dev`: a script by its name
  }
  if (prog === 'bun') return sub === 'run' ? name : undefined;
  return undefined;
}

const scriptsOf = (text: string | undefined, name: string): string => {
  try {
    const s = (JSON.parse(text ?? '{}') as { scripts?: Record<string, unknown> }).scripts ?? {};
    return JSON.stringify([s[`pre${name}`], s[name], s[`post${name}`]]);
  } catch {
    return 'unreadable';
  }
};

async function committedPackageJson(ws: string): Promise<string | undefined> {
  const { execFile } = await import('node:child_process'); // loaded at first use (start-up of a CLI turn)
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '--no-pager', 'show', 'HEAD:./package.json'],
      { cwd: ws, timeout: 3000, maxBuffer: 4 * 1024 * 1024, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' } },
      (err, stdout) => resolve(err ? undefined : stdout),
    );
  });
}

/** Why an allow-listed run of package script `name` must still be asked about, or undefined when it is the committed one. */
export async function plantedScriptReason(ws: string, name: string): Promise<string | undefined> {
  const now = await readWholeText(ws, 'package.json', 'check', 4 * 1024 * 1024).then((r) => r.text, () => undefined);
  const committed = await committedPackageJson(ws);
  if (committed === undefined) return `the package.json script "${name}" cannot be compared with a git commit, and the agent may have changed it`;
  return scriptsOf(now, name) === scriptsOf(committed, name) ? undefined : `the package.json script "${name}" is not the one in the last git commit`;
}
