/**
 * The exec sandbox's unix-socket seccomp filter (T2), checked two ways: the x86_64 program instruction by
 * instruction, and both programs run through a small classic-BPF interpreter below (standing in for the kernel's,
 * for the few opcodes the filter uses) against the syscalls that matter. The real kernel runs it in
 * test/integration/tools-exec-sockets.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  EACCES,
  ENOSYS,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
  SYSCALLS,
  encodeFilter,
  socketFilter,
  type SockFilter,
} from '../../main/tools/sandbox/seccomp.js';

/** struct seccomp_data as the filter sees it: nr, arch, args (low/high 32-bit halves). */
interface Data {
  nr: number;
  arch: number;
  args?: readonly bigint[];
}

function word(d: Data, offset: number): number {
  if (offset === 0) return d.nr >>> 0;
  if (offset === 4) return d.arch >>> 0;
  if (offset >= 16 && offset < 64 && offset % 4 === 0) {
    const arg = d.args?.[Math.floor((offset - 16) / 8)] ?? 0n;
    return Number(offset % 8 === 0 ? arg & 0xffffffffn : arg >> 32n);
  }
  throw new Error(`load at ${offset}`);
}

function run(program: readonly SockFilter[], d: Data): number {
  let a = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) a = word(d, k);
    else if (code === 0x54) a = (a & k) >>> 0;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x06) return k >>> 0;
    else throw new Error(`opcode ${code}`);
  }
  throw new Error('fell off the end');
}

const ALLOW = SECCOMP_RET_ALLOW;
const DENY = (SECCOMP_RET_ERRNO | EACCES) >>> 0;
const NOSYS = (SECCOMP_RET_ERRNO | ENOSYS) >>> 0;
const KILL = SECCOMP_RET_KILL_PROCESS;
const [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK] = [1n, 2n, 10n, 16n];
const [STREAM, DGRAM, RAW, RDM, SEQPACKET, PACKET] = [1n, 2n, 3n, 4n, 5n, 10n];
const NONBLOCK_CLOEXEC = 0x800n | 0x80000n;

describe('x86_64 program, instruction by instruction', () => {
  const program = socketFilter('x64')!;
  it.each([
    [0, 0x20, 0, 0, 4, 'A = arch'],
    [1, 0x15, 0, 16, 0xc000003e, 'not AUDIT_ARCH_X86_64 → kill'],
    [2, 0x20, 0, 0, 0, 'A = nr'],
    [3, 0x35, 14, 0, 0x40000000, 'x32 ABI → kill'],
    [4, 0x15, 12, 0, 425, 'io_uring_setup → ENOSYS'],
    [5, 0x15, 7, 0, 41, 'socket → check its domain'],
    [6, 0x15, 0, 8, 53, 'socketpair → check it, anything else → allow'],
    [7, 0x20, 0, 0, 16, 'A = args[0] low half (domain)'],
    [8, 0x15, 0, 6, 1, 'not AF_UNIX → allow'],
    [9, 0x20, 0, 0, 24, 'A = args[1] low half (type)'],
    [10, 0x54, 0, 0, 0xf, 'A &= SOCK_TYPE_MASK'],
    [11, 0x15, 3, 0, 1, 'SOCK_STREAM → allow'],
    [12, 0x15, 2, 3, 5, 'SOCK_SEQPACKET → allow, any other type → EACCES'],
    [13, 0x20, 0, 0, 16, 'socket: A = domain'],
    [14, 0x15, 1, 0, 1, 'AF_UNIX → EACCES, else allow'],
    [15, 0x06, 0, 0, 0x7fff0000, 'SECCOMP_RET_ALLOW'],
    [16, 0x06, 0, 0, 0x0005000d, 'SECCOMP_RET_ERRNO | EACCES'],
    [17, 0x06, 0, 0, 0x00050026, 'SECCOMP_RET_ERRNO | ENOSYS'],
    [18, 0x06, 0, 0, 0x80000000, 'SECCOMP_RET_KILL_PROCESS'],
  ])('%i: %s %s %s %s (%s)', (i, code, jt, jf, k) => {
    expect(program[i]).toEqual({ code, jt, jf, k });
  });
  it('has exactly those 19 instructions', () => expect(program).toHaveLength(19));
  it('x32 ABI calls (nr | 0x40000000) are killed, socket or not', () => {
    expect(run(program, { arch: 0xc000003e, nr: 41 | 0x40000000, args: [1n] })).toBe(SECCOMP_RET_KILL_PROCESS);
    expect(run(program, { arch: 0xc000003e, nr: 0x40000000, args: [] })).toBe(SECCOMP_RET_KILL_PROCESS);
  });
});

describe.each(['x64', 'arm64'])('what the %s filter decides', (arch) => {
  const t = SYSCALLS[arch]!;
  const program = socketFilter(arch)!;
  const foreign = arch === 'x64' ? 0x40000003 /* i386 */ : 0x40000028; /* AArch32 */
  it.each([
    ['socket(AF_UNIX, SOCK_STREAM)', { nr: t.socket, args: [AF_UNIX, STREAM] }, DENY],
    ['socket(AF_UNIX, SOCK_DGRAM|NONBLOCK|CLOEXEC)', { nr: t.socket, args: [AF_UNIX, DGRAM | NONBLOCK_CLOEXEC] }, DENY],
    ['socket(AF_UNIX) with junk in the upper half (the kernel reads an int)', { nr: t.socket, args: [AF_UNIX | (7n << 32n), STREAM] }, DENY],
    ['socket(AF_INET)', { nr: t.socket, args: [AF_INET, STREAM] }, ALLOW],
    ['socket(AF_INET6)', { nr: t.socket, args: [AF_INET6, DGRAM] }, ALLOW],
    ['socket(AF_NETLINK)', { nr: t.socket, args: [AF_NETLINK, DGRAM] }, ALLOW],
    ['socketpair(AF_UNIX, SOCK_STREAM|CLOEXEC) — IPC', { nr: t.socketpair, args: [AF_UNIX, STREAM | NONBLOCK_CLOEXEC] }, ALLOW],
    ['socketpair(AF_UNIX, SOCK_SEQPACKET)', { nr: t.socketpair, args: [AF_UNIX, SEQPACKET] }, ALLOW],
    ['socketpair(AF_UNIX, SOCK_DGRAM) — re-targetable by sendto', { nr: t.socketpair, args: [AF_UNIX, DGRAM | NONBLOCK_CLOEXEC] }, DENY],
    ['socketpair(AF_UNIX, SOCK_RAW) — silently a datagram pair', { nr: t.socketpair, args: [AF_UNIX, RAW] }, DENY],
    ['socketpair(AF_UNIX, SOCK_RDM)', { nr: t.socketpair, args: [AF_UNIX, RDM | NONBLOCK_CLOEXEC] }, DENY],
    ['socketpair(AF_UNIX, SOCK_PACKET)', { nr: t.socketpair, args: [AF_UNIX, PACKET] }, DENY],
    ['socketpair(AF_UNIX, type 0 / 15)', { nr: t.socketpair, args: [AF_UNIX, 0xfn] }, DENY],
    ['socketpair(AF_UNIX, STREAM with junk in the upper half)', { nr: t.socketpair, args: [AF_UNIX | (1n << 40n), STREAM | (3n << 33n)] }, ALLOW],
    ['socketpair(AF_INET, SOCK_RAW) — not unix: the kernel refuses it itself', { nr: t.socketpair, args: [AF_INET, RAW] }, ALLOW],
    ['io_uring_setup', { nr: t.ioUringSetup, args: [8n, 0n] }, NOSYS],
    ['some other syscall (nr 0)', { nr: 0, args: [AF_UNIX] }, ALLOW],
    ['some other syscall taking AF_UNIX-like args (nr 3)', { nr: 3, args: [AF_UNIX, DGRAM] }, ALLOW],
  ])('%s', (_l, call, expected) => {
    expect(run(program, { arch: t.audit, ...call })).toBe(expected);
  });
  it.each([
    ['socket', 'socket'],
    ['socketcall (i386 102) / any other number', 102],
    ['a harmless call', 1],
  ] as const)('a foreign-ABI %s is killed', (_l, nr) => {
    expect(run(program, { arch: foreign, nr: nr === 'socket' ? t.socket : nr, args: [AF_UNIX] })).toBe(KILL);
  });
});

describe('other architectures and the encoding', () => {
  it.each(['ia32', 'arm', 'riscv64', 'ppc64', 's390x'])('%s: no table, no filter (the sandbox status reports the gap)', (arch) => {
    expect(socketFilter(arch)).toBeUndefined();
  });
  it('encodes struct sock_filter little-endian, 8 bytes each', () => {
    const bytes = encodeFilter([
      { code: 0x15, jt: 1, jf: 2, k: 0xc000003e },
      { code: 0x06, jt: 0, jf: 0, k: 0x80000000 },
    ]);
    expect([...bytes]).toEqual([0x15, 0, 1, 2, 0x3e, 0, 0, 0xc0, 0x06, 0, 0, 0, 0, 0, 0, 0x80]);
    expect(encodeFilter(socketFilter('x64')!)).toHaveLength(19 * 8);
  });
});
