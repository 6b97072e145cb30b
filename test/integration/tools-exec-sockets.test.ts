/**
 * exec's sandbox and host unix sockets (T2, X5), with real bubblewrap and the real kernel. With network on, bwrap
 * shares the host network namespace and with it every ABSTRACT unix socket (X11's @/tmp/.X11-unix/X0, a D-Bus
 * bus on unix:abstract=…); in both modes PATH sockets under /run (docker.sock, the system bus) are visible through
 * the read-only system. The test process plays such host services — on an abstract name, on a path under /run, and
 * as an abstract DATAGRAM socket (python) — and sandboxed programs try to reach them. Without the seccomp filter
 * they get through (shown with the same bwrap argv minus --seccomp — the holes); through exec they are refused with
 * EACCES and the services see nothing, with network on and off. The same checks run as an unprivileged user.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecTool } from '../../main/tools/exec.js';
import { bwrapArgs } from '../../main/tools/sandbox/bwrap.js';
import { bwrapPath, detectSandbox, openSocketFilter, type SandboxSettings } from '../../main/tools/sandbox/index.js';
import type { ToolContext } from '../../main/tools/types.js';
import { bundleForNobody, canRunAsNobody, nobodyFolder, nodeAsNobody } from '../support/as-nobody.js';

const run = promisify(execFile);
const status = await detectSandbox();
const NODE = '/usr/bin/node';
const PYTHON = '/usr/bin/python3';
const ready = status.kind === 'bwrap' && !status.gap && existsSync(NODE);

const CONNECT_JS = `
const net = require('net');
const [kind, target] = process.argv.slice(2);
const s = kind === 'tcp' ? net.connect(Number(target), '127.0.0.1') : kind === 'path' ? net.connect(target) : net.connect('\\0' + target);
s.on('connect', () => { console.log('CONNECTED'); s.destroy(); });
s.on('error', (e) => console.log('ERR ' + e.code));
`;
// Node's 'ipc' channel to a child is a socketpair(AF_UNIX, SOCK_STREAM): must keep working.
const IPC_JS = `
const c = require('child_process').spawn(process.execPath, ['-e', 'process.send("pong", () => process.exit(0))'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
c.on('message', (m) => console.log('IPC ' + m));
c.on('error', (e) => console.log('ERR ' + e.code));
`;
// A unix socket of the sandbox's own (listen and connect inside): refused too (no AF_UNIX socket at all).
const INNER_JS = `
const net = require('net');
const name = '\\0agentdesk-inner-' + process.pid;
const srv = net.createServer((c) => c.end('inner-ok')).on('error', (e) => console.log('ERR ' + e.code));
srv.listen(name, () => net.connect(name).on('data', (d) => { console.log(String(d)); srv.close(); }).on('error', (e) => { console.log('ERR ' + e.code); srv.close(); }));
`;
// Python gives an abstract address its exact length, as Xorg does (Node pads it to the full sun_path, so it only
// meets other Node sockets).
const CONNECT_PY = `
import errno, socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\\0" + sys.argv[1])
    print("CONNECTED")
except OSError as e:
    print("ERR", errno.errorcode[e.errno])
`;
// The filter's other rules, at the kernel: io_uring (its IORING_OP_SOCKET would bypass seccomp), an x32 call,
// and an i386 call through int 0x80 (where socketcall multiplexes socket) from this 64-bit process.
const ABI_PY = `
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
what = sys.argv[1]
if what == "io_uring":
    r = libc.syscall(425, 4, ctypes.create_string_buffer(120))
    print("io_uring", "fd" if r >= 0 else ctypes.get_errno(), flush=True)
elif what == "x32":
    r = libc.syscall(41 | 0x40000000, 2, 1, 0)
    print("x32", r, ctypes.get_errno(), flush=True)
elif what == "i386":
    code = bytes([0xb8, 20, 0, 0, 0, 0xcd, 0x80, 0xc3])  # mov eax, 20 (getpid); int 0x80; ret
    buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(code)
    f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))
    print("i386", "pid" if f() > 0 else "failed", flush=True)
`;
const PAIRS_PY = `
import socket
for name, kind in (("STREAM", socket.SOCK_STREAM), ("SEQPACKET", socket.SOCK_SEQPACKET), ("DGRAM", socket.SOCK_DGRAM), ("RAW", socket.SOCK_RAW), ("RDM", socket.SOCK_RDM)):
    try:
        socket.socketpair(socket.AF_UNIX, kind)
        print(name, "ok")
    except OSError as e:
        print(name, e.errno)
`;

// SOCK_RAW asked of socketpair is silently a datagram pair, which sendto() aims at any host datagram socket.
const RAW_PAIR_PY = `
import errno, socket, sys
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_RAW)
except OSError as e:
    print("socketpair", errno.errorcode[e.errno]); sys.exit(0)
try:
    a.sendto(b"planted", "\\0" + sys.argv[1]); print("SENT")
except OSError as e:
    print("sendto", errno.errorcode[e.errno])
`;
// The host's abstract datagram service: prints READY, then one line per datagram it receives.
const DGRAM_HOST_PY = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\\0" + sys.argv[1])
print("READY", flush=True)
while True:
    data = s.recv(100)
    print("GOT", data.decode(), flush=True)
`;

let ws = '';
let unixServer: net.Server;
let pathServer: net.Server;
let tcpServer: net.Server;
let dgramHost: ReturnType<typeof spawn> | undefined;
let dgramGot = '';
const seen = { unix: 0, tcp: 0, path: 0 };
const name = `agentdesk-test-${randomBytes(6).toString('hex')}`;
/** A host service's path socket where they live: under /run (root's; made reachable for everyone). */
const runSocket = `/run/agentdesk-test-${randomBytes(6).toString('hex')}.sock`;
const canUseRun = process.getuid?.() === 0 && existsSync('/run');
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const ON: SandboxSettings = { enabled: true, network: true, hide: [] };
const OFF: SandboxSettings = { ...ON, network: false };
const exec = (command: string, sandbox = ON) => createExecTool({ sandbox }).execute({ command }, ctx());

const listen = (server: net.Server, at: string | number): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    if (typeof at === 'number') server.listen(at, '127.0.0.1', resolve);
    else server.listen(at, resolve);
  });

beforeAll(async () => {
  ws = path.join(await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-sockets-'))), 'ws');
  await mkdir(ws);
  await writeFile(path.join(ws, 'connect.js'), CONNECT_JS);
  await writeFile(path.join(ws, 'ipc.js'), IPC_JS);
  await writeFile(path.join(ws, 'inner.js'), INNER_JS);
  await writeFile(path.join(ws, 'pairs.py'), PAIRS_PY);
  await writeFile(path.join(ws, 'connect.py'), CONNECT_PY);
  await writeFile(path.join(ws, 'abi.py'), ABI_PY);
  await writeFile(path.join(ws, 'rawpair.py'), RAW_PAIR_PY);
  unixServer = net.createServer((s) => {
    seen.unix++;
    s.destroy();
  });
  tcpServer = net.createServer((s) => {
    seen.tcp++;
    s.destroy();
  });
  pathServer = net.createServer((s) => {
    seen.path++;
    s.destroy();
  });
  await listen(unixServer, `\0${name}`);
  await listen(tcpServer, 0);
  if (canUseRun) {
    await listen(pathServer, runSocket);
    await chmod(runSocket, 0o777); // even an unprivileged user's sandbox could connect, were it not for the filter
  }
  if (existsSync(PYTHON)) {
    dgramHost = spawn(PYTHON, ['-c', DGRAM_HOST_PY, `${name}-dgram`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => {
      dgramHost!.stdout!.on('data', (d: Buffer) => {
        dgramGot += d.toString();
        if (dgramGot.includes('READY')) resolve();
      });
    });
  }
});

afterAll(async () => {
  unixServer?.close();
  tcpServer?.close();
  pathServer?.close();
  dgramHost?.kill('SIGKILL');
  if (ws) await rm(path.dirname(ws), { recursive: true, force: true });
});

/** Lets a connection that got through reach the server's callback before counting. */
const settle = () => new Promise((r) => setTimeout(r, 100));

describe.runIf(ready)('exec sandbox with network on: host unix sockets', () => {
  it('the hole: the same bwrap sandbox without --seccomp reaches the host abstract socket', async () => {
    const before = seen.unix;
    const argv = bwrapArgs({ workspace: ws, hide: [homedir()], network: true }, [NODE, 'connect.js', 'unix', name]);
    const { stdout } = await run(bwrapPath(), argv, { cwd: ws });
    await settle();
    expect(stdout.trim()).toBe('CONNECTED');
    expect(seen.unix - before).toBe(1);
  });

  it('the same argv plus --seccomp (the filter exec writes) refuses it', async () => {
    const before = seen.unix;
    const filter = (await openSocketFilter('bwrap'))!;
    const argv = bwrapArgs({ workspace: ws, hide: [homedir()], network: true }, [NODE, 'connect.js', 'unix', name], undefined, 3);
    const child = spawn(bwrapPath(), argv, { cwd: ws, stdio: ['ignore', 'pipe', 'inherit', filter.fd] });
    filter.close();
    const stdout = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.on('close', () => resolve(out));
    });
    await settle();
    expect(stdout.trim()).toBe('ERR EACCES');
    expect(seen.unix - before).toBe(0);
  });

  it('through exec: connecting to the host abstract socket fails with EACCES and the host sees nothing', async () => {
    const before = seen.unix;
    const out = await exec(`${NODE} connect.js unix ${name}`);
    await settle();
    expect(out.content).toBe('ERR EACCES\n\nexit code 0');
    expect(out.details).toMatchObject({ sandbox: 'bwrap' });
    expect(seen.unix - before).toBe(0);
  });

  // Under `npm test` (xvfb-run) a real X server listens on its abstract socket, as Xorg does on a desktop.
  const display = /^:(\d+)/.exec(process.env.DISPLAY ?? '')?.[1];
  const x11 = display !== undefined ? `/tmp/.X11-unix/X${display}` : '';
  const hasX11 = x11 !== '' && existsSync('/proc/net/unix') && readFileSync('/proc/net/unix', 'utf8').includes(` @${x11}\n`);
  it.runIf(hasX11 && existsSync(PYTHON))('the real X server: reachable from the sandbox without the filter, refused through exec', async () => {
    const argv = bwrapArgs({ workspace: ws, hide: [homedir()], network: true }, [PYTHON, 'connect.py', x11]);
    expect((await run(bwrapPath(), argv, { cwd: ws })).stdout.trim()).toBe('CONNECTED');
    expect((await exec(`${PYTHON} connect.py ${x11}`)).content).toBe('ERR EACCES\n\nexit code 0');
  });

  it('TCP to a 127.0.0.1 server still works', async () => {
    const before = seen.tcp;
    const out = await exec(`${NODE} connect.js tcp ${(tcpServer.address() as net.AddressInfo).port}`);
    expect(out.content).toBe('CONNECTED\n\nexit code 0');
    await expect.poll(() => seen.tcp - before).toBe(1);
  });

  it("socketpair IPC (a node child with an 'ipc' channel) still works", async () => {
    expect((await exec(`${NODE} ipc.js`)).content).toBe('IPC pong\n\nexit code 0');
  });

  it.runIf(existsSync(PYTHON))('stream and seqpacket socketpairs are allowed, every other type refused (an allow list)', async () => {
    expect((await exec(`${PYTHON} pairs.py`)).content).toBe('STREAM ok\nSEQPACKET ok\nDGRAM 13\nRAW 13\nRDM 13\n\nexit code 0');
  });

  it.runIf(existsSync(PYTHON))('socketpair(AF_UNIX, SOCK_RAW): without the filter a host abstract datagram socket receives; through exec nothing', async () => {
    const hole = bwrapArgs({ workspace: ws, hide: [homedir()], network: true }, [PYTHON, 'rawpair.py', `${name}-dgram`]);
    expect((await run(bwrapPath(), hole, { cwd: ws })).stdout.trim()).toBe('SENT');
    await expect.poll(() => dgramGot).toContain('GOT planted');
    dgramGot = '';
    const out = await exec(`${PYTHON} rawpair.py ${name}-dgram`);
    expect(out.content).toBe('socketpair EACCES\n\nexit code 0');
    await settle();
    expect(dgramGot).toBe('');
  });

  it.runIf(existsSync(PYTHON) && process.arch === 'x64')(
    'io_uring is off (ENOSYS); x32 and i386 (int 0x80) calls kill the process — all of which work without the filter',
    async () => {
      const probe = `for w in io_uring x32 i386; do ${PYTHON} abi.py $w; echo "rc=$?"; done 2>&1`;
      const open = bwrapArgs({ workspace: ws, hide: [homedir()], network: true }, ['/bin/bash', '-c', probe]);
      // Without the filter (here: io_uring fd, x32 ENOSYS as x32 is rarely built in, i386 works). Kernels with
      // io_uring or ia32 emulation turned off answer differently; the filter's answers below do not depend on it.
      const before = (await run(bwrapPath(), open, { cwd: ws })).stdout;
      expect(before).toMatch(/^io_uring (fd|\d+)\nrc=0\nx32 -?\d+ \d+\nrc=0\n/);
      const i386Works = before.includes('i386 pid\nrc=0');
      const out = (await exec(probe)).content;
      expect(out).toMatch(/^io_uring 38\nrc=0\n/);
      expect(out.match(/rc=\d+/g)).toEqual(['rc=0', 'rc=159', i386Works ? 'rc=159' : expect.any(String)]); // 128 + SIGSYS
      expect(out).not.toMatch(/^(x32|i386) /m);
    },
  );

  it('no descriptor of the filter file stays open, here or in the command', async () => {
    const out = await exec('ls -l /proc/self/fd/ /proc/$$/fd/');
    expect(out.content).not.toContain('agentdesk-seccomp-');
    const ours = readdirSync('/proc/self/fd').map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    });
    expect(ours.filter((l) => l.includes('agentdesk-seccomp-'))).toEqual([]);
  });
});

describe.runIf(ready)('exec sandbox with network off: the same filter', () => {
  it('is written for both modes', async () => {
    const filter = await openSocketFilter('bwrap');
    expect(filter?.fd).toBeGreaterThan(2);
    filter?.close();
  });
  it('the host abstract socket is out of reach (another namespace), and no unix socket can be made inside', async () => {
    const before = seen.unix;
    const out = await exec(`${NODE} connect.js unix ${name}; ${NODE} inner.js; ${NODE} ipc.js`, OFF);
    await settle();
    expect(out.content).toBe('ERR EACCES\nERR EACCES\nIPC pong\n\nexit code 0');
    expect(seen.unix - before).toBe(0);
  });
});

describe.runIf(ready && canUseRun)('a host service on a path socket under /run', () => {
  it.each([[true], [false]])('network %s: reachable from the sandbox without the filter (the hole), refused through exec', async (network) => {
    const before = seen.path;
    const hole = bwrapArgs({ workspace: ws, hide: [homedir()], network }, [NODE, 'connect.js', 'path', runSocket]);
    expect((await run(bwrapPath(), hole, { cwd: ws })).stdout.trim()).toBe('CONNECTED');
    await expect.poll(() => seen.path - before).toBe(1);
    const out = await exec(`${NODE} connect.js path ${runSocket}`, network ? ON : OFF);
    await settle();
    expect(out.content).toBe('ERR EACCES\n\nexit code 0');
    expect(seen.path - before).toBe(1);
  });
});

describe.runIf(ready && canUseRun && canRunAsNobody && existsSync(PYTHON))('the same, started by an unprivileged user (uid 65534)', () => {
  let script = '';
  let dispose: () => Promise<void> = async () => undefined;
  let nobodyWs: { dir: string; dispose(): Promise<void> } | undefined;
  beforeAll(async () => {
    ({ script, dispose } = await bundleForNobody('test/support/nobody-exec-driver.ts'));
    nobodyWs = await nobodyFolder('sockets-nobody');
    for (const [file, text] of [['connect.js', CONNECT_JS], ['rawpair.py', RAW_PAIR_PY]] as const) {
      await writeFile(path.join(nobodyWs.dir, file), text);
      await chmod(path.join(nobodyWs.dir, file), 0o644);
    }
  }, 120_000);
  afterAll(async () => {
    await dispose();
    await nobodyWs?.dispose();
  });
  it.each([[true], [false]])('network %s: the /run path socket, the host abstract stream and datagram sockets are out of reach', async (network) => {
    const before = { ...seen };
    dgramGot = '';
    const commands = [`${NODE} connect.js path ${runSocket}`, `${NODE} connect.js unix ${name}`, `${PYTHON} rawpair.py ${name}-dgram`];
    const out = JSON.parse(await nodeAsNobody(script, [JSON.stringify({ workspace: nobodyWs!.dir, network, commands })])) as {
      status: { kind: string };
      results: { content: string }[];
    };
    await settle();
    expect(out.status).toEqual({ kind: 'bwrap' });
    expect(out.results.map((r) => r.content)).toEqual(['ERR EACCES\n\nexit code 0', 'ERR EACCES\n\nexit code 0', 'socketpair EACCES\n\nexit code 0']);
    expect(seen).toEqual(before);
    expect(dgramGot).toBe('');
  }, 60_000);
});
