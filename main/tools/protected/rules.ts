/**
 * Protected paths (X5): files in a workspace that something OUTSIDE the sandbox runs or reads later — git's hooks
 * and config (core.fsmonitor ran at every `git status` on the host), shell start-up files, editor tasks and
 * settings, coding-agent and package-manager configs, and AgentDesk's own prompt inputs (AGENTS.md, skills: a
 * planted one is a lasting prompt injection). An agent never writes them without the person's explicit approval
 * of that very path, shown with the reason below: not through approvals set to "auto", "allow for this session",
 * a tool-level auto rule or an allow-listed command. The file tools check every target here (guard.ts); exec gets
 * them mounted read-only inside its sandbox (exec-guard.ts). package.json is protected by content: only a change
 * to its install-time lifecycle scripts counts (package-scripts.ts).
 *
 * Paths are workspace-relative, '/'-separated, compared in lower case (case-insensitive file systems).
 */

export const WHY = {
  git: 'git metadata: hooks in .git/hooks and settings in .git/config (core.fsmonitor, core.hooksPath, filters, core.sshCommand) run programs on your computer, outside the sandbox, the next time you or your editor use git',
  gitFiles: 'git reads it in every command: it names the filter and diff programs and the submodule sources git runs or fetches',
  gitHooks: 'a git hook manager runs what it lists at every commit',
  shell: 'your shell runs it every time it starts',
  envrc: 'direnv runs it whenever you enter the folder',
  editor: 'your editor runs the tasks, launch configurations and settings in it when the folder is open',
  agents: 'coding agents (Claude Code, Cursor, MCP clients) start the servers and run the hooks it names',
  packageManager: 'npm, yarn and pnpm read it at every install and run what it tells them to',
  bootstrap: "AgentDesk puts it into the assistant's instructions at the start of every run: a change is a lasting prompt injection",
  ssh: 'ssh runs commands from its config (ProxyCommand) and trusts the keys in it',
  login: 'your desktop session runs it when you log in',
  path: 'programs in it are found on your PATH before the system ones',
  gitGlobal: 'git runs the programs your global git config names in every repository',
} as const;

/** Names protected wherever they are in the workspace (any folder). */
const ANYWHERE: ReadonlyMap<string, string> = new Map([
  ['.gitmodules', WHY.gitFiles],
  ['.gitattributes', WHY.gitFiles],
  ['.envrc', WHY.envrc],
  ['.vscode', WHY.editor],
  ['.idea', WHY.editor],
  ['.devcontainer', WHY.editor],
  ['.mcp.json', WHY.agents],
  ['.claude', WHY.agents],
  ['.cursor', WHY.agents],
  ['.npmrc', WHY.packageManager],
  ['.yarnrc', WHY.packageManager],
  ['.yarnrc.yml', WHY.packageManager],
  ['.pnpmfile.cjs', WHY.packageManager],
  ['.husky', WHY.gitHooks],
  ['.pre-commit-config.yaml', WHY.gitHooks],
  ['lefthook.yml', WHY.gitHooks],
  ['.agentdesk', WHY.bootstrap],
]);

/** Protected at the workspace root only (shell files matter when the workspace is a home folder). */
const AT_ROOT: ReadonlyMap<string, string> = new Map([
  ['agents.md', WHY.bootstrap],
  ['claude.md', WHY.bootstrap],
  ...['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout',
    '.cshrc', '.tcshrc', '.login', '.kshrc', '.mkshrc', '.inputrc', '.xprofile', '.xsession', '.xinitrc', '.pam_environment']
    .map((n) => [n, WHY.shell] as [string, string]),
  ['.ssh', WHY.ssh],
  ['.gitconfig', WHY.gitGlobal],
]);

/** Folders at the root (a home folder's) whose contents are protected. */
const ROOT_TREES: ReadonlyArray<[string, string]> = [
  ['.config/git', WHY.gitGlobal],
  ['.config/fish', WHY.shell],
  ['.config/autostart', WHY.login],
  ['.config/systemd', WHY.login],
  ['.config/environment.d', WHY.login],
  ['.local/bin', WHY.path],
];

/** The names exec blocks when they are MISSING (a read-only /dev/null in their place, see exec-guard.ts). */
export const BLOCK_WHEN_MISSING = ['AGENTS.md', 'CLAUDE.md', '.agentdesk', '.vscode', '.idea', '.mcp.json', '.claude', '.cursor', '.envrc', '.npmrc'];
/** …and, when the workspace is the person's home folder, these as well. */
export const BLOCK_WHEN_MISSING_IN_HOME = [
  '.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.inputrc', '.xprofile',
  '.xsession', '.pam_environment', '.ssh', '.gitconfig', ...ROOT_TREES.map(([p]) => p),
];

/** Every root-level name and tree exec mounts read-only when it exists. */
export const ROOT_NAMES: readonly string[] = [
  ...BLOCK_WHEN_MISSING,
  ...[...ANYWHERE.keys()].filter((n) => !BLOCK_WHEN_MISSING.map((b) => b.toLowerCase()).includes(n)),
  ...[...AT_ROOT.keys()].filter((n) => n !== 'agents.md' && n !== 'claude.md'),
  ...ROOT_TREES.map(([p]) => p),
];
/** Names exec looks for below the root (a shallow scan) and mounts read-only where they exist. */
export const NESTED_NAMES: ReadonlySet<string> = new Set(ANYWHERE.keys());

export const SKILLS_DIR = 'skills';
export const SKILL_FILE = 'skill.md';

/** Why writing `rel` (workspace-relative) needs the person's explicit approval, or undefined when it does not. */
export function protectedReason(rel: string): string | undefined {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.').map((p) => p.toLowerCase());
  if (parts.length === 0) return undefined;
  // Anything in (or being) a .git folder or a .git file (a worktree's pointer to its git folder), at any depth.
  if (parts.includes('.git')) return WHY.git;
  for (const p of parts) {
    const why = ANYWHERE.get(p);
    if (why) return why;
  }
  const first = parts[0]!;
  const atRoot = AT_ROOT.get(first);
  if (atRoot) return atRoot;
  for (const [tree, why] of ROOT_TREES) {
    const t = tree.split('/');
    if (t.every((seg, i) => parts[i] === seg)) return why;
  }
  // Workspace skills (skills/<name>/SKILL.md, and anything in .agentdesk above): read into the instructions.
  if (first === SKILLS_DIR && parts.length === 3 && parts[2] === SKILL_FILE) return WHY.bootstrap;
  return undefined;
}
