/**
 * X5 "a sandbox that holds as root": exec's bubblewrap sandbox with the real kernel, run by this test's user (root
 * in CI and on these machines) and by an unprivileged user (uid 65534, through setpriv and a bundled copy of the
 * exec tool: test/support/as-nobody.ts). Inside, a command holds no capability, so it cannot unmount /proc (to see
 * the host's processes and their environment, keys included), remount / read-write or unmount the private /tmp.
 * The hole these flags close is shown too: the same argv without --unshare-user and --cap-drop ALL, started by
 * root, keeps every capability and reads a host process's key through the host /proc.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecTool } from '../../main/tools/exec.js';
import { bwrapArgs } from '../../main/tools/sandbox/bwrap.js';
import { bwrapPath, detectSandbox, sandboxUid } from '../../main/tools/sandbox/index.js';
import type { ToolContext } from '../../main/tools/types.js';
import { AS_NOBODY, bundleForNobody, canRunAsNobody, nobodyFolder, nodeAsNobody, NOBODY } from '../support/as-nobody.js';
import { ensureBuilt, runCli, tempDir } from '../support/cli.js';

const runFile = promisify(execFile);
const status = await detectSandbox();
const ready = status.kind === 'bwrap';
const isRoot = process.getuid?.() === 0;

const DECOY = `decoy-key-${process.pid}-${Date.now()}`;
/** What a command prints about its privileges, then its attacks on the mounts; each line says how it ended. */
const ATTACKS = [
  'id -u; grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs):" /proc/self/status',
  'umount -l /proc 2>&1; echo "umount-proc=$?"; (tr "\\0" "\\n" < /proc/1/environ; cat /proc/*/environ) 2>/dev/null | tr "\\0" "\\n" | grep -c decoy-key-',
  'mount -o remount,rw / 2>&1; echo "remount=$?"; touch /etc/agentdesk-probe 2>&1; echo "touch-etc=$?"',
  'umount /tmp 2>&1; echo "umount-tmp=$?"; umount -l "$PWD" 2>&1; echo "umount-ws=$?"',
];
const ZERO = '0000000000000000';

/** The checks shared by both users: no capability, every mount attack refused, no key from /proc. */
function expectHeld(outputs: string[], uidInside: number): void {
  const [privs, proc, remount, tmp] = outputs;
  expect(privs).toContain(`${uidInside}\n`);
  expect(privs).toContain(`CapEff:\t${ZERO}`);
  expect(privs).toContain(`CapPrm:\t${ZERO}`);
  expect(privs).toContain(`CapBnd:\t${ZERO}`);
  expect(privs).toContain('NoNewPrivs:\t1');
  expect(proc).toMatch(/umount-proc=(1|32)\n0\n/); // refused, and not one decoy key in any environ
  expect(proc).not.toContain(DECOY);
  expect(remount).toMatch(/remount=(1|32)\n/);
  expect(remount).toMatch(/Read-only file system\ntouch-etc=1/);
  expect(tmp).toMatch(/umount-tmp=(1|32)\n/);
  expect(tmp).toMatch(/umount-ws=(1|32)\n/);
}

let root = '';
let ws = '';
let decoy: ChildProcess | undefined;
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-privs-')));
  ws = path.join(root, 'ws');
  await mkdir(ws);
  // A host process with a key in its environment (as the app itself has, when keys come from the environment).
  decoy = spawn('sleep', ['120'], { env: { PATH: process.env.PATH, DECOY_API_KEY: DECOY }, stdio: 'ignore' });
});

afterAll(async () => {
  decoy?.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

describe.runIf(ready)(`exec's sandbox, started by this user (uid ${process.getuid?.()})`, () => {
  it('no capability inside, mount attacks refused, no key through /proc', async () => {
    const exec = createExecTool({ sandbox: { enabled: true, network: true, hide: [] } });
    const outputs: string[] = [];
    for (const command of ATTACKS) outputs.push((await exec.execute({ command }, ctx())).content);
    expectHeld(outputs, sandboxUid() ?? process.getuid!());
    expect(outputs.join('\n')).toMatch(/must be superuser|Operation not permitted|permission denied/i);
  });

  it.runIf(isRoot)('the hole it closes: the same argv without --unshare-user / --cap-drop keeps every capability and reads the key', async () => {
    const full = bwrapArgs({ workspace: ws, hide: [], network: true }, ['/bin/bash', '-c', `${ATTACKS[0]}; ${ATTACKS[1]}; tr "\\0" "\\n" < /proc/${decoy!.pid}/environ`]);
    const old = full.filter((a, i) => !['--unshare-user', '--cap-drop'].includes(a) && full[i - 1] !== '--cap-drop');
    expect(old).not.toContain('ALL');
    const { stdout } = await runFile(bwrapPath(), old, { cwd: ws });
    expect(BigInt(`0x${/CapEff:\t([0-9a-f]+)/.exec(stdout)?.[1] ?? '0'}`)).not.toBe(0n); // capabilities kept
    expect(stdout).toContain('umount-proc=0');
    expect(stdout).toContain(`DECOY_API_KEY=${DECOY}`);
  });
});

describe.runIf(ready && canRunAsNobody)('the same sandbox started by an unprivileged user (uid 65534)', () => {
  let script = '';
  let disposeBundle: () => Promise<void> = async () => undefined;
  let nobodyWs: { dir: string; dispose(): Promise<void> } | undefined;
  let nobodyDecoy: ChildProcess | undefined;
  beforeAll(async () => {
    ({ script, dispose: disposeBundle } = await bundleForNobody('test/support/nobody-exec-driver.ts'));
    nobodyWs = await nobodyFolder('privs-nobody');
    const [cmd, ...pre] = AS_NOBODY;
    nobodyDecoy = spawn(cmd!, [...pre, 'sleep', '120'], { env: { PATH: process.env.PATH, DECOY_API_KEY: DECOY }, stdio: 'ignore' });
  }, 120_000);
  afterAll(async () => {
    nobodyDecoy?.kill('SIGKILL');
    await disposeBundle();
    await nobodyWs?.dispose();
  });

  it('detects bubblewrap, no capability inside, mount attacks refused, no key through /proc', async () => {
    const out = JSON.parse(await nodeAsNobody(script, [JSON.stringify({ workspace: nobodyWs!.dir, network: true, commands: ATTACKS })])) as {
      uid: number;
      status: { kind: string };
      results: { content: string }[];
    };
    expect(out.uid).toBe(NOBODY);
    expect(out.status).toEqual({ kind: 'bwrap' });
    expectHeld(out.results.map((r) => r.content), NOBODY);
  }, 60_000);
});

describe('a workspace that holds the system is refused by the CLI (exit 2, one line)', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 120_000);
  it.each([['/'], ['/etc'], ['/proc/self/root']])('--workspace %s', async (dir) => {
    const home = await tempDir('privs-home');
    const r = await runCli(['agent', '--model', 'demo/agent', '--home', home, '--workspace', dir, '--message', 'hi']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot be used: it is (the root of the file system|a system folder)/);
  });
});
