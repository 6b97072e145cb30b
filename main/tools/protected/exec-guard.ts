/**
 * exec's side of protected paths (X5): what the sandbox mounts read-only, and what is checked when a command ends.
 *
 * Before a command (a readdir of the workspace root plus a shallow scan, ≤ 3 levels, node_modules skipped):
 * - protected entries that exist (rules.ts) are bound read-only over themselves;
 * - the most dangerous root names that are missing (AGENTS.md, .vscode, .mcp.json… — BLOCK_WHEN_MISSING; shell
 *   and login files too when the workspace is the home folder) are blocked by an empty read-only folder, so
 *   nothing can appear there while the command runs. bwrap creates an empty folder on the disk as the mount
 *   point; it is removed when the last command using it ends (counted per process);
 * - every existing `.git` folder is bound over itself (so it cannot be renamed away and replaced by a planted
 *   one), with its config, hooks, the hooks folder its config names (core.hooksPath) and its submodules' config
 *   and hooks read-only; a `.git` file (a worktree's pointer) is read-only.
 * After it:
 * - a git repository the command CREATED (`git init`, `git clone`) is cleaned: hooks other than git's *.sample
 *   files are deleted, config keys outside an allow list are removed (git-config.ts) — so host git runs nothing
 *   planted there;
 * - changed install-time scripts in the root package.json are put back (package-scripts.ts);
 * and each of these is reported in the command's result.
 *
 * Known limits (docs/security.md): protected names deeper than the scan or created in new subfolders are not
 * blocked (only existing ones are mounted); a protected entry that is a symlink is mounted at its target, so the
 * link itself can be replaced; a new skills/<name>/SKILL.md can be created under an existing skills/ folder.
 */
import { lstat, readdir, readFile, readlink, realpath, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sanitizeNewRepoConfig, hooksPaths } from './git-config.js';
import { changedLifecycleScripts, restoreLifecycleScripts } from './package-scripts.js';
import { BLOCK_WHEN_MISSING, BLOCK_WHEN_MISSING_IN_HOME, NESTED_NAMES, ROOT_NAMES, SKILL_FILE, SKILLS_DIR } from './rules.js';

export const SCAN_DEPTH = 3;
const MAX_SCANNED_DIRS = 2000;
const MAX_PACKAGE_JSON_BYTES = 1024 * 1024;
const SKIP_DIRS = new Set(['node_modules', '.git']);

export interface ExecProtection {
  readOnly: string[];
  blocked: string[];
  pinned: string[];
  /** After the command (and every process it started) ended: clean up and report, one line per finding. */
  finish(): Promise<string[]>;
}

/** Mount points this process created for blocked paths, with the number of commands still using each. */
const mountPoints = new Map<string, number>();

const exists = (p: string) => lstat(p).then((s) => s, () => null);
/** There, and not a mount point some running command of ours made (that one counts as missing). */
const present = async (p: string) => !mountPoints.has(p) && (await exists(p)) !== null;

/**
 * The path to mount for `p`: its real path when that lies inside the workspace, else undefined. Any symlink on the
 * way counts, not only `p` itself: bwrap resolves a bind's source on the host, so `.config -> /root` planted by
 * one command would otherwise have the next one mount the host's /root/git into the sandbox (or fail to start).
 */
async function mountable(ws: string, p: string): Promise<string | undefined> {
  if (!(await exists(p))) return undefined;
  const real = await realpath(p).catch(() => undefined);
  return real && real.startsWith(`${ws}/`) ? real : undefined;
}

/** `p`'s folder is reached without a symlink (a mount point made there stays inside the workspace). */
async function plainParent(ws: string, p: string): Promise<boolean> {
  const dir = path.dirname(p);
  return dir === ws || (await realpath(dir).catch(() => undefined)) === dir;
}

/** The first component of `p` (inside `ws`) that does not exist — the one a block must sit on. */
async function firstMissing(ws: string, p: string): Promise<string | undefined> {
  let at = ws;
  for (const seg of path.relative(ws, p).split(path.sep)) {
    at = path.join(at, seg);
    if (!(await present(at))) return at;
  }
  return undefined;
}

/** The folders between the workspace (excluded) and `p` (excluded). */
function ancestors(ws: string, p: string): string[] {
  const out: string[] = [];
  for (let d = path.dirname(p); d.startsWith(`${ws}/`); d = path.dirname(d)) out.push(d);
  return out;
}

/** A folder's identity (device and inode): a .git swapped for another one at the same path is a new repository. */
const identity = async (p: string): Promise<string | undefined> => {
  const st = await exists(p);
  return st?.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
};

/** Every `.git` (folder or file) at most SCAN_DEPTH levels down, plus protected names met on the way. */
async function scan(ws: string): Promise<{ gits: string[]; nested: string[]; skills: string[] }> {
  const gits: string[] = [];
  const nested: string[] = [];
  const skills: string[] = [];
  let queue: string[] = [ws];
  let seen = 0;
  for (let depth = 0; depth <= SCAN_DEPTH && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of queue) {
      if (++seen > MAX_SCANNED_DIRS) return { gits, nested, skills };
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        const p = path.join(dir, e.name);
        const lower = e.name.toLowerCase();
        if (lower === '.git') gits.push(p);
        else if (depth > 0 && NESTED_NAMES.has(lower)) nested.push(p);
        if (e.isDirectory() && !SKIP_DIRS.has(lower)) next.push(p);
      }
    }
    queue = next;
  }
  for (const e of await readdir(path.join(ws, SKILLS_DIR), { withFileTypes: true }).catch(() => [])) {
    if (!e.isDirectory()) continue;
    for (const f of await readdir(path.join(ws, SKILLS_DIR, e.name)).catch(() => [] as string[])) {
      if (f.toLowerCase() === SKILL_FILE) skills.push(path.join(ws, SKILLS_DIR, e.name, f));
    }
  }
  return { gits, nested, skills };
}

/** What one git folder needs: itself pinned, config and hooks read-only (or blocked when missing). */
async function protectGitDir(ws: string, git: string, out: { readOnly: string[]; blocked: string[]; pinned: string[] }): Promise<void> {
  out.pinned.push(git);
  for (const name of ['config', 'hooks']) {
    const p = path.join(git, name);
    if (await present(p)) {
      const m = await mountable(ws, p);
      if (m) out.readOnly.push(m);
    } else out.blocked.push(p);
  }
  const config = await readFile(path.join(git, 'config'), 'utf8').catch(() => '');
  for (const hp of hooksPaths(config)) {
    // Relative hooksPath values are relative to the working tree (the folder holding .git).
    const abs = path.resolve(path.dirname(git), hp.replace(/^~(?=\/)/, '/nonexistent-home'));
    if (!abs.startsWith(`${ws}/`)) continue;
    const m = await mountable(ws, abs);
    if (m) out.readOnly.push(m);
    else if (!(await exists(abs))) {
      // Named but not there yet (`.githooks` before its first hook): created now, git would run what is put in it.
      const missing = await firstMissing(ws, abs);
      if (missing && (await plainParent(ws, missing))) out.blocked.push(missing);
    }
  }
  for (const mod of await readdir(path.join(git, 'modules'), { withFileTypes: true }).catch(() => [])) {
    if (mod.isDirectory()) await protectGitDir(ws, path.join(git, 'modules', mod.name), out);
  }
}

export interface ExecProtectionOptions {
  /** The workspace is the person's home folder (shell and login files are then blocked too). */
  isHome: boolean;
  /** The sandbox creates mount points for blocked paths (bubblewrap; Seatbelt matches paths and creates none). */
  mountPoints: boolean;
}

/** Prepares the protection of one command in workspace `ws` (its real path). */
export async function prepareExecProtection(ws: string, opts: ExecProtectionOptions): Promise<ExecProtection> {
  const isHome = opts.isHome;
  const out = { readOnly: [] as string[], blocked: [] as string[], pinned: [] as string[] };
  const root = new Map((await readdir(ws).catch(() => [] as string[])).map((n) => [n.toLowerCase(), n]));
  const blockable = new Set([...BLOCK_WHEN_MISSING, ...(isHome ? BLOCK_WHEN_MISSING_IN_HOME : [])].map((n) => n.toLowerCase()));
  for (const name of ROOT_NAMES) {
    const [first, ...rest] = name.split('/');
    const actual = root.get(first!.toLowerCase());
    const p = actual !== undefined ? path.join(ws, actual, ...rest) : path.join(ws, name);
    if (await present(p)) {
      const m = await mountable(ws, p);
      if (m) out.readOnly.push(m);
      continue; // (a symlink leading out of the workspace: nothing to mount on, and outside is read-only anyway)
    }
    if (!blockable.has(name.toLowerCase())) continue;
    // The first missing component of the path gets the block (its parents exist).
    let firstMissing = path.join(ws, actual ?? first!);
    for (const seg of rest) {
      if (!(await present(firstMissing))) break;
      firstMissing = path.join(firstMissing, seg);
    }
    if (!(await present(firstMissing)) && (await plainParent(ws, firstMissing))) out.blocked.push(firstMissing);
  }
  const found = await scan(ws);
  for (const git of found.gits) {
    const st = await exists(git);
    if (st?.isDirectory()) await protectGitDir(ws, git, out);
    else if (st?.isFile()) out.readOnly.push(git);
  }
  for (const p of [...found.nested, ...found.skills]) {
    const m = await mountable(ws, p);
    if (m) out.readOnly.push(m);
  }
  // The folders that hold a protected entry below the root are pinned too (bound over themselves): renaming one
  // (`mv sub sub_old; mkdir -p sub/.git/hooks`) would carry the read-only mounts away and leave the path free.
  for (const p of [...out.readOnly, ...out.pinned, ...out.blocked]) out.pinned.push(...ancestors(ws, p));
  out.pinned = [...new Set(out.pinned)];
  // Every blocked path is a mount point bwrap makes (or one a running command made): counted until the last ends.
  out.blocked = [...new Set(out.blocked)];
  const blockedByUs = opts.mountPoints ? [...out.blocked] : [];
  for (const p of blockedByUs) mountPoints.set(p, (mountPoints.get(p) ?? 0) + 1);
  const gitsBefore = new Map<string, string | undefined>();
  for (const git of found.gits) gitsBefore.set(git, await identity(git));
  const pkgPath = path.join(ws, 'package.json');
  const pkgBefore = await readSmall(pkgPath);

  let finished = false;
  return {
    ...out,
    async finish() {
      if (finished) return [];
      finished = true;
      const notes: string[] = [];
      for (const p of blockedByUs) {
        const left = (mountPoints.get(p) ?? 1) - 1;
        if (left > 0) {
          mountPoints.set(p, left);
          continue;
        }
        mountPoints.delete(p);
        const st = await exists(p);
        if (st?.isDirectory()) await rmdir(p).catch(() => undefined); // only while empty: never anything of the person's
      }
      for (const git of (await scan(ws)).gits) {
        // Not there before, or another folder now (a swap the pins did not stop): cleaned like a new repository.
        if (gitsBefore.has(git) && gitsBefore.get(git) === (await identity(git))) continue;
        notes.push(...(await cleanNewRepo(ws, git)));
      }
      const pkgAfter = await readSmall(pkgPath);
      if (pkgAfter !== undefined && pkgAfter !== pkgBefore) {
        const changed = changedLifecycleScripts(pkgBefore, pkgAfter);
        if (changed.length > 0) {
          const restored = restoreLifecycleScripts(pkgBefore, pkgAfter) ?? pkgBefore;
          if (restored === undefined) await unlink(pkgPath).catch(() => undefined);
          else await writeFile(pkgPath, restored);
          notes.push(`package.json: the install-time scripts ${changed.join(', ')} were put back as they were (npm would run them by itself, outside the sandbox)`);
        }
      }
      return notes;
    },
  };
}

async function readSmall(p: string): Promise<string | undefined> {
  const st = await exists(p);
  if (!st?.isFile() || st.size > MAX_PACKAGE_JSON_BYTES) return undefined;
  return readFile(p, 'utf8').catch(() => undefined);
}

/** A repository the command created: hooks deleted, config cleaned. One note per change. */
async function cleanNewRepo(ws: string, git: string): Promise<string[]> {
  const st = await exists(git);
  if (!st?.isDirectory()) return [];
  const rel = path.relative(ws, git);
  const notes: string[] = [];
  const gitDirs = [git, ...(await readdir(path.join(git, 'modules')).catch(() => [] as string[])).map((m) => path.join(git, 'modules', m))];
  for (const dir of gitDirs) {
    const hooks = path.join(dir, 'hooks');
    const hst = await exists(hooks);
    if (hst?.isSymbolicLink() || (hst && !hst.isDirectory())) {
      await rm(hooks, { recursive: true, force: true });
      notes.push(`${path.relative(ws, hooks)}: removed (not git's hooks folder)`);
    } else if (hst) {
      const planted = (await readdir(hooks)).filter((f) => !f.endsWith('.sample'));
      for (const f of planted) await rm(path.join(hooks, f), { recursive: true, force: true });
      if (planted.length > 0) notes.push(`${path.relative(ws, hooks)}: removed ${planted.join(', ')} (git would run them on your computer)`);
    }
    const config = path.join(dir, 'config');
    const cst = await exists(config);
    if (cst?.isSymbolicLink()) {
      const target = await readlink(config).catch(() => '?');
      await unlink(config);
      notes.push(`${path.relative(ws, config)}: removed (a symlink to ${target})`);
    } else if (cst?.isFile()) {
      const text = await readFile(config, 'utf8');
      const clean = sanitizeNewRepoConfig(text);
      if (clean.removed.length > 0) {
        await writeFile(config, clean.text);
        notes.push(`${path.relative(ws, config)}: removed ${clean.removed.join(', ')} (git would run or trust what they name)`);
      }
    }
  }
  return notes.length > 0 ? [`${rel} is a new git repository:`, ...notes.map((n) => `  ${n}`)] : [];
}
