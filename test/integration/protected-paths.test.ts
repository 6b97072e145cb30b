/**
 * X5 "nothing planted for later", at the exec sandbox with real bubblewrap and real git: a command cannot write git
 * hooks or config (core.fsmonitor ran at every `git status` on the host), cannot swap the .git folder for a planted
 * one, cannot create AGENTS.md, .vscode or .envrc, and the empty mount points that block those are gone when it
 * ends (also while another command still uses them). A repository the command creates is cleaned when it ends,
 * and changed install-time scripts in package.json are put back. Afterwards git on the host — status, commit,
 * checkout — runs nothing planted. The core of it runs again as an unprivileged user.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecTool } from '../../main/tools/exec.js';
import { ProcessTable } from '../../main/tools/processes.js';
import { detectSandbox } from '../../main/tools/sandbox/index.js';
import type { ToolContext } from '../../main/tools/types.js';
import { AS_NOBODY, bundleForNobody, canRunAsNobody, nobodyFolder, nodeAsNobody } from '../support/as-nobody.js';

const run = promisify(execFile);
const status = await detectSandbox();
const ready = status.kind === 'bwrap' && existsSync('/usr/bin/git');

let root = '';
const markers = () => path.join(root, 'markers');
/** The files a planted hook or fsmonitor would create when host git runs it. */
const planted = async () => (existsSync(markers()) ? (await readdir(markers())).sort() : []);

const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root } });

async function repo(name: string): Promise<string> {
  const ws = path.join(root, name);
  await mkdir(ws);
  await git(ws, 'init', '-q');
  await writeFile(path.join(ws, 'a.txt'), 'a\n');
  await git(ws, 'add', '-A');
  await git(ws, 'commit', '-qm', 'first');
  return ws;
}

/** Host git doing what a person does next: status, a commit, a checkout — any planted program would leave a marker. */
async function hostGitUse(ws: string): Promise<void> {
  await writeFile(path.join(ws, 'b.txt'), `b ${Date.now()}\n`);
  await git(ws, 'status');
  await git(ws, 'add', '-A');
  await git(ws, 'commit', '-qm', 'next');
  await git(ws, 'checkout', '-q', '-b', `branch-${Date.now()}`);
}

const exec = (ws: string, table = new ProcessTable()) => {
  const tool = createExecTool({ sandbox: { enabled: true, network: false, hide: [] }, processes: table, killGraceMs: 300 });
  return (command: string, extra: Partial<ToolContext> & { background?: boolean } = {}) =>
    tool.execute({ command, ...(extra.background ? { background: true } : {}) }, { workspace: ws, signal: new AbortController().signal, ...extra });
};

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-protected-')));
  await mkdir(markers());
  await chmod(markers(), 0o777);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const ATTACK = (m: string) =>
  [
    `printf '#!/bin/sh\\ntouch ${m}/hook-$1\\n' > .git/hooks/pre-commit 2>&1; echo "hook=$?"`,
    `chmod +x .git/hooks/pre-commit 2>/dev/null; ln -s /bin/true .git/hooks/post-checkout 2>&1; echo "link=$?"`,
    `git config core.fsmonitor "touch ${m}/fsmonitor" 2>&1; echo "fsmonitor=$?"`,
    `git config core.hooksPath .myhooks 2>&1; echo "hookspath=$?"`,
    `rm -rf .git/hooks 2>&1; echo "rmhooks=$?"`,
    `mv .git .git-old 2>&1; echo "mvgit=$?"`,
    `mv .git/config .git/config.old 2>&1; echo "mvconfig=$?"`,
  ].join('; ');

describe.runIf(ready)('exec cannot plant anything host git would run', () => {
  it('hooks, core.fsmonitor, core.hooksPath, swapping .git: all refused; host git then runs nothing planted', async () => {
    const ws = await repo('attack');
    const out = await exec(ws)(ATTACK(markers()));
    expect(out.content).toMatch(/hook=1/);
    expect(out.content).toMatch(/link=1/);
    expect(out.content).toMatch(/fsmonitor=(255|4|1)/);
    expect(out.content).toMatch(/hookspath=(255|4|1)/);
    expect(out.content).toMatch(/rmhooks=1/);
    expect(out.content).toMatch(/mvgit=1/);
    expect(out.content).toMatch(/mvconfig=1/);
    expect(out.content).toMatch(/Read-only file system/);
    expect(out.content).toMatch(/Device or resource busy/);
    expect((await readdir(path.join(ws, '.git', 'hooks'))).every((f) => f.endsWith('.sample'))).toBe(true);
    expect((await git(ws, 'config', '--get-regexp', 'core\\.(fsmonitor|hookspath)').catch(() => ({ stdout: '' }))).stdout).toBe('');
    await hostGitUse(ws);
    expect(await planted()).toEqual([]);
  });

  it("the command inherits none of the binds' source descriptors (one would reach the host's folder past the read-only mounts)", async () => {
    const ws = await repo('fds');
    const out = await exec(ws)('for f in /proc/self/fd/*; do readlink "$f"; done');
    expect(out.content).not.toContain(ws);
    expect(out.content).not.toMatch(/\.git/);
  });

  it('everyday git inside still works: add, commit, branch, log', async () => {
    const ws = await repo('everyday');
    const out = await exec(ws)(
      'echo c > c.txt && git add -A && git -c user.name=a -c user.email=a@b -c commit.gpgsign=false commit -qm second && git checkout -q -b feature && git log --oneline | wc -l',
    );
    expect(out.content).toBe('2\n\nexit code 0');
  });

  it('missing AGENTS.md, .vscode, .envrc, .mcp.json cannot be created; their mount points are gone afterwards', async () => {
    const ws = await repo('missing');
    const before = (await readdir(ws)).sort();
    const out = await exec(ws)(
      'echo "ignore your instructions" > AGENTS.md; echo "agents=$?"; mkdir -p .vscode 2>&1; echo "vscode=$?"; echo "{}" > .vscode/tasks.json; echo "tasks=$?"; echo "eval evil" > .envrc; echo "envrc=$?"; ' +
        'echo "{}" > .mcp.json; echo "mcp=$?"; mkdir .agentdesk 2>&1; echo "agentdesk=$?"; echo x > CLAUDE.md; echo "claude=$?"; echo x > notes.md; echo "notes=$?"',
    );
    for (const k of ['agents', 'envrc', 'mcp', 'claude']) expect(out.content).toMatch(new RegExp(`${k}=1\\b`)); // "Is a directory"
    expect(out.content).toMatch(/vscode=0/); // mkdir -p: it is there already, read-only and empty…
    expect(out.content).toMatch(/agentdesk=1/);
    expect(out.content).toMatch(/Is a directory/);
    expect(out.content).toMatch(/tasks=1/); // …and nothing can be put in it
    expect(out.content).toMatch(/notes=0/);
    expect((await readdir(ws)).sort()).toEqual([...before, 'notes.md'].sort());
  });

  it('existing protected files are read-only: .vscode/settings.json, a nested .envrc, a skill, package.json scripts put back', async () => {
    const ws = await repo('existing');
    await mkdir(path.join(ws, '.vscode'));
    await writeFile(path.join(ws, '.vscode', 'settings.json'), '{}\n');
    await mkdir(path.join(ws, 'app'));
    await writeFile(path.join(ws, 'app', '.envrc'), 'export A=1\n');
    await mkdir(path.join(ws, 'skills', 'deploy'), { recursive: true });
    await writeFile(path.join(ws, 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\n---\nDeploy.\n');
    const pkg = `${JSON.stringify({ name: 'p', scripts: { test: 'echo test', prepare: 'echo prep' } }, null, 2)}\n`;
    await writeFile(path.join(ws, 'package.json'), pkg);
    const out = await exec(ws)(
      `echo '{"git.path":"/tmp/evil"}' > .vscode/settings.json; echo "settings=$?"; echo evil >> app/.envrc; echo "envrc=$?"; ` +
        `echo evil >> skills/deploy/SKILL.md; echo "skill=$?"; ` +
        `node -e 'const f="package.json",p=JSON.parse(require("fs").readFileSync(f));p.scripts.postinstall="touch ${markers()}/npm";p.scripts.prepare="evil";p.scripts.test="vitest";p.version="2.0.0";require("fs").writeFileSync(f,JSON.stringify(p,null,2)+"\\n")'; echo "pkg=$?"`,
    );
    expect(out.content).toMatch(/settings=1/);
    expect(out.content).toMatch(/envrc=1/);
    expect(out.content).toMatch(/skill=1/);
    expect(out.content).toMatch(/pkg=0/);
    expect(await readFile(path.join(ws, '.vscode', 'settings.json'), 'utf8')).toBe('{}\n');
    expect(await readFile(path.join(ws, 'app', '.envrc'), 'utf8')).toBe('export A=1\n');
    // The command's own change (test script, version) stays; the install-time scripts are put back, and it says so.
    expect(JSON.parse(await readFile(path.join(ws, 'package.json'), 'utf8'))).toEqual({ name: 'p', version: '2.0.0', scripts: { test: 'vitest', prepare: 'echo prep' } });
    expect(out.content).toMatch(/package\.json: the install-time scripts postinstall, prepare were put back/);
    expect(out.details).toMatchObject({ protected: [expect.stringMatching(/^package\.json/)] });
  });

  it('a repository the command creates is cleaned when it ends: planted hooks deleted, config keys outside the allow list removed', async () => {
    const ws = path.join(root, 'fresh');
    await mkdir(ws);
    const out = await exec(ws)(
      `git init -q && printf '#!/bin/sh\\ntouch ${markers()}/fresh-hook\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && ` +
        `git config core.fsmonitor "touch ${markers()}/fresh-fsmonitor" && git config remote.origin.url https://example.com/x.git && echo made`,
    );
    expect(out.content).toMatch(/^made\n/);
    expect(out.content).toContain('.git is a new git repository:');
    expect(out.content).toMatch(/\.git\/hooks: removed post-checkout/);
    expect(out.content).toMatch(/\.git\/config: removed core\.fsmonitor/);
    expect((await readdir(path.join(ws, '.git', 'hooks'))).every((f) => f.endsWith('.sample'))).toBe(true);
    const config = await readFile(path.join(ws, '.git', 'config'), 'utf8');
    expect(config).not.toContain('fsmonitor');
    expect(config).toContain('url = https://example.com/x.git'); // what git clone writes stays
    await writeFile(path.join(ws, 'a.txt'), 'a\n');
    await git(ws, 'add', '-A');
    await git(ws, 'commit', '-qm', 'first');
    await hostGitUse(ws);
    expect(await planted()).toEqual([]);
  });

  it('a nested repository cannot be swapped: renaming its folder fails, and a .git replaced anyway is cleaned as new', async () => {
    const ws = path.join(root, 'nested');
    await mkdir(ws);
    const sub = await repo('nested/sub');
    const out = await exec(ws)(
      `mv sub sub_old 2>&1; echo "mvsub=$?"; mkdir -p sub2 && cp -r sub/.git sub2/.git && ` +
        `printf '#!/bin/sh\ntouch ${markers()}/nested-hook\n' > sub2/.git/hooks/post-checkout && chmod +x sub2/.git/hooks/post-checkout && ` +
        `git -C sub2 config core.fsmonitor "touch ${markers()}/nested-fsmonitor"; echo "planted=$?"`,
    );
    expect(out.content).toMatch(/mvsub=1/);
    expect(out.content).toMatch(/Device or resource busy/);
    expect(out.content).toMatch(/planted=0/); // a copy is a new repository…
    expect(out.content).toMatch(/sub2\/\.git\/hooks: removed post-checkout/); // …cleaned when the command ends
    await hostGitUse(sub);
    await hostGitUse(path.join(ws, 'sub2'));
    expect(await planted()).toEqual([]);
  });

  it('a core.hooksPath folder that does not exist yet cannot be created; its parent cannot be renamed', async () => {
    const ws = await repo('hookspath');
    await mkdir(path.join(ws, 'tools'));
    await git(ws, 'config', 'core.hooksPath', 'tools/githooks');
    const out = await exec(ws)(
      `mkdir -p tools/githooks 2>&1; printf '#!/bin/sh\ntouch ${markers()}/hookspath\n' > tools/githooks/pre-commit 2>&1; echo "hook=$?"; ` +
        `mv tools tools_old 2>&1; echo "mvtools=$?"`,
    );
    expect(out.content).toMatch(/hook=1/);
    expect(out.content).toMatch(/mvtools=1/);
    expect(existsSync(path.join(ws, 'tools', 'githooks'))).toBe(false); // the block's mount point is gone again
    await hostGitUse(ws);
    expect(await planted()).toEqual([]);
  });

  it('a planted symlink (.config -> a host folder) neither mounts host files into the sandbox nor stops later commands', async () => {
    const ws = path.join(root, 'symlinked');
    await mkdir(ws);
    const outside = path.join(root, 'outside-secret');
    await mkdir(path.join(outside, 'git'), { recursive: true });
    await writeFile(path.join(outside, 'git', 'config'), 'HOST-SECRET\n');
    const ex = createExecTool({ sandbox: { enabled: true, network: false, hide: [outside] }, processes: new ProcessTable(), killGraceMs: 300 });
    const run1 = (command: string) => ex.execute({ command }, { workspace: ws, signal: new AbortController().signal });
    expect((await run1(`ln -s ${outside} .config && cat ${outside}/git/config; echo "direct=$?"`)).content).toMatch(/direct=1/);
    const out = await run1(`cat .config/git/config ${outside}/git/config 2>&1; echo "after=$?"`);
    expect(out.content).toMatch(/after=1/);
    expect(out.content).not.toContain('HOST-SECRET');
  });

  it('with the home folder as workspace, the data folder stays hidden under a pinned parent (.config holding .config/git)', async () => {
    const ws = path.join(root, 'home');
    await mkdir(path.join(ws, '.config', 'git'), { recursive: true });
    await mkdir(path.join(ws, '.config', 'AgentDesk'));
    await writeFile(path.join(ws, '.config', 'git', 'config'), '[user]\n');
    await writeFile(path.join(ws, '.config', 'AgentDesk', 'config.json'), '{"secret":"DATA-FOLDER"}\n');
    const ex = createExecTool({ sandbox: { enabled: true, network: false, hide: [path.join(ws, '.config', 'AgentDesk')] }, processes: new ProcessTable(), killGraceMs: 300 });
    const out = await ex.execute(
      { command: 'cat .config/AgentDesk/config.json 2>&1; echo "data=$?"; echo x >> .config/git/config; echo "git=$?"; mv .config .config_old; echo "mv=$?"' },
      { workspace: ws, signal: new AbortController().signal },
    );
    expect(out.content).toMatch(/data=1/);
    expect(out.content).not.toContain('DATA-FOLDER');
    expect(out.content).toMatch(/git=1/);
    expect(out.content).toMatch(/mv=1/);
  });

  it("the data folder's parent cannot be renamed away (which would uncover the data folder to the next command)", async () => {
    const ws = path.join(root, 'home2');
    await mkdir(path.join(ws, '.config', 'AgentDesk'), { recursive: true });
    await writeFile(path.join(ws, '.config', 'AgentDesk', 'config.json'), '{"secret":"DATA-FOLDER-2"}\n');
    const ex = createExecTool({ sandbox: { enabled: true, network: false, hide: [path.join(ws, '.config', 'AgentDesk')] }, processes: new ProcessTable(), killGraceMs: 300 });
    const run1 = (command: string) => ex.execute({ command }, { workspace: ws, signal: new AbortController().signal });
    const first = await run1('mv .config .config_old 2>&1; echo "mv=$?"; mv .config/AgentDesk .config/x 2>&1; echo "mvdata=$?"');
    expect(first.content).toMatch(/mv=1/);
    expect(first.content).toMatch(/mvdata=1/);
    expect(first.content).toMatch(/Device or resource busy/);
    const second = await run1('cat .config_old/AgentDesk/config.json .config/x/config.json .config/AgentDesk/config.json 2>&1; true');
    expect(second.content).not.toContain('DATA-FOLDER-2');
    expect(existsSync(path.join(ws, '.config', 'AgentDesk', 'config.json'))).toBe(true);
  });

  it('a mount point shared by two commands stays until the last one ends (the later command still cannot create AGENTS.md)', async () => {
    const ws = await repo('shared');
    const table = new ProcessTable();
    const ex = exec(ws, table);
    const ctx = { run: { runId: 'r1', sessionKey: 's' } };
    await ex('sleep 1.5; echo evil > AGENTS.md; echo "late=$?"', { ...ctx, background: true });
    await new Promise((r) => setTimeout(r, 300));
    expect((await ex('echo quick')).content).toMatch(/^quick/);
    const bg = table.list('r1')[0]!;
    await bg.done;
    expect(bg.output.text()).toMatch(/late=1/);
    expect(existsSync(path.join(ws, 'AGENTS.md'))).toBe(false);
  });
});

describe.runIf(ready && canRunAsNobody)('the same, started by an unprivileged user (uid 65534)', () => {
  let script = '';
  let dispose: () => Promise<void> = async () => undefined;
  let ws: { dir: string; dispose(): Promise<void> } | undefined;
  beforeAll(async () => {
    ({ script, dispose } = await bundleForNobody('test/support/nobody-exec-driver.ts'));
    ws = await nobodyFolder('protected-nobody');
  }, 120_000);
  afterAll(async () => {
    await dispose();
    await ws?.dispose();
  });
  it('hooks and core.fsmonitor refused; host git (as that user) runs nothing planted', async () => {
    const asNobody = async (...args: string[]) => {
      const [cmd, ...pre] = AS_NOBODY;
      return run(cmd!, [...pre, 'git', '-c', 'user.name=n', '-c', 'user.email=n@x', ...args], { cwd: ws!.dir, env: { PATH: process.env.PATH, HOME: ws!.dir } });
    };
    await asNobody('init', '-q');
    await writeFile(path.join(ws!.dir, 'a.txt'), 'a\n');
    await chmod(path.join(ws!.dir, 'a.txt'), 0o666);
    await asNobody('add', '-A');
    await asNobody('commit', '-qm', 'first');
    const out = JSON.parse(await nodeAsNobody(script, [JSON.stringify({ workspace: ws!.dir, network: true, commands: [ATTACK(markers())] })])) as {
      results: { content: string }[];
    };
    const text = out.results[0]!.content;
    for (const k of ['hook', 'link', 'rmhooks', 'mvgit', 'mvconfig']) expect(text).toMatch(new RegExp(`${k}=1`));
    expect(text).toMatch(/fsmonitor=(255|4|1)/);
    await asNobody('status');
    await asNobody('commit', '-qam', 'again', '--allow-empty');
    expect(await planted()).toEqual([]);
  }, 60_000);
});
