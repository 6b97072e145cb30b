/**
 * The seccomp filter exec's bubblewrap sandbox installs in both network modes (T2, X5), as a classic BPF program
 * (struct sock_filter: u16 code, u8 jt, u8 jf, u32 k — 8 bytes, little-endian; bwrap reads it from `--seccomp FD`).
 *
 * Why: with network on, bwrap shares the host's network namespace, and Linux scopes ABSTRACT unix sockets by
 * network namespace — so without this a sandboxed command could connect to the X server (`@/tmp/.X11-unix/X0`:
 * screenshots, keystrokes into a terminal), a D-Bus session bus on `unix:abstract=…` (the keyring). In both modes
 * PATH sockets the read-only system bind leaves visible are reachable too — /run/docker.sock, the system bus in
 * /run/dbus, anything under /run or /var/run — network namespaces do not cover them. Hiding folders does not help
 * (a socket can live anywhere on the disk).
 *
 * What it does, for the native ABI only:
 * - `socket(AF_UNIX, …)` fails with EACCES (the errno socket(2) documents for "creating this socket is not
 *   permitted"), so no new unix-domain socket exists inside the sandbox — none can connect anywhere.
 * - `socketpair(AF_UNIX, …)` is allowed for SOCK_STREAM and SOCK_SEQPACKET only (runtimes use them for IPC, e.g.
 *   Node's 'ipc' channel and its stdio pipes; a connected stream pair cannot be pointed elsewhere) and fails with
 *   EACCES for every other type — an allow list, because the kernel silently turns SOCK_RAW (and more) into a
 *   datagram socket, which `sendto()` can aim at any host datagram socket by name.
 * - `io_uring_setup` fails with ENOSYS (as on a kernel without io_uring; callers fall back): io_uring's
 *   IORING_OP_SOCKET creates sockets without a socket() syscall, so seccomp would not see them.
 * - a syscall from any other ABI kills the process (SIGSYS): a foreign architecture (i386 via int 0x80, whose
 *   socketcall multiplexes socket(); AArch32 on arm64) and, on x86_64, the x32 ABI (nr ≥ 0x40000000) have other
 *   syscall numbers this filter would not check. 32-bit programs therefore cannot run in the sandbox — the safe
 *   choice over keeping a second number table in step.
 * Only x86_64 and aarch64 hosts have a table; elsewhere `socketFilter` returns undefined and the sandbox says so
 * (sandbox/index.ts) — a known gap there.
 */

/** One instruction: `struct sock_filter`. */
export interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

// Classic BPF opcodes used here.
const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS: A = u32 at offset k of struct seccomp_data
const ALU_AND_K = 0x54; // BPF_ALU | BPF_AND | BPF_K: A &= k
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

// struct seccomp_data offsets: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (low half first: LE).
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const EACCES = 13;
export const ENOSYS = 38;
const AF_UNIX = 1;
/** The socketpair types allowed for AF_UNIX (see above); anything else, after masking, is refused. */
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** Low bits of socket's type argument; SOCK_NONBLOCK/SOCK_CLOEXEC live above them. */
const SOCK_TYPE_MASK = 0xf;
const X32_SYSCALL_BIT = 0x40000000;

export interface SyscallTable {
  /** AUDIT_ARCH_* value the kernel puts in seccomp_data.arch for this ABI. */
  audit: number;
  socket: number;
  socketpair: number;
  ioUringSetup: number;
  /** x86_64 only: syscall numbers at or above this are the x32 ABI. */
  x32Bit?: number;
}

/** Keyed by Node's `process.arch`. */
export const SYSCALLS: Readonly<Record<string, SyscallTable>> = {
  x64: { audit: 0xc000003e, socket: 41, socketpair: 53, ioUringSetup: 425, x32Bit: X32_SYSCALL_BIT },
  arm64: { audit: 0xc00000b7, socket: 198, socketpair: 199, ioUringSetup: 425 },
};

/** Builds the program with symbolic jump targets, then resolves them to the relative offsets BPF wants. */
function assemble(lines: readonly (SockFilter & { to?: [string, string] } | string)[]): SockFilter[] {
  const labels = new Map<string, number>();
  const insns: (SockFilter & { to?: [string, string] })[] = [];
  for (const l of lines) {
    if (typeof l === 'string') labels.set(l, insns.length);
    else insns.push(l);
  }
  return insns.map(({ to, ...insn }, i) => {
    if (!to) return insn;
    const rel = (label: string): number => {
      const target = label === 'next' ? i + 1 : labels.get(label);
      if (target === undefined || target <= i || target - i - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
      return target - i - 1;
    };
    return { ...insn, jt: rel(to[0]), jf: rel(to[1]) };
  });
}

const ld = (k: number): SockFilter => ({ code: LD_W_ABS, jt: 0, jf: 0, k });
const and = (k: number): SockFilter => ({ code: ALU_AND_K, jt: 0, jf: 0, k });
const jeq = (k: number, yes: string, no: string) => ({ code: JEQ_K, jt: 0, jf: 0, k, to: [yes, no] as [string, string] });
const jge = (k: number, yes: string, no: string) => ({ code: JGE_K, jt: 0, jf: 0, k, to: [yes, no] as [string, string] });
const ret = (k: number): SockFilter => ({ code: RET_K, jt: 0, jf: 0, k });

/** The filter for a host architecture (`process.arch`), or undefined where there is no table. */
export function socketFilter(arch: string): SockFilter[] | undefined {
  const t = SYSCALLS[arch];
  if (!t) return undefined;
  return assemble([
    ld(ARCH),
    jeq(t.audit, 'next', 'kill'),
    ld(NR),
    ...(t.x32Bit !== undefined ? [jge(t.x32Bit, 'kill', 'next')] : []),
    jeq(t.ioUringSetup, 'enosys', 'next'),
    jeq(t.socket, 'socket', 'next'),
    jeq(t.socketpair, 'socketpair', 'allow'),
    'socketpair',
    ld(ARG0),
    jeq(AF_UNIX, 'next', 'allow'),
    ld(ARG1),
    and(SOCK_TYPE_MASK),
    jeq(SOCK_STREAM, 'allow', 'next'),
    jeq(SOCK_SEQPACKET, 'allow', 'eacces'),
    'socket',
    ld(ARG0),
    jeq(AF_UNIX, 'eacces', 'allow'),
    'allow',
    ret(SECCOMP_RET_ALLOW),
    'eacces',
    ret(SECCOMP_RET_ERRNO | EACCES),
    'enosys',
    ret(SECCOMP_RET_ERRNO | ENOSYS),
    'kill',
    ret(SECCOMP_RET_KILL_PROCESS),
  ]);
}

/** The bytes bwrap reads: 8 per instruction, little-endian. */
export function encodeFilter(program: readonly SockFilter[]): Buffer {
  const buf = Buffer.alloc(program.length * 8);
  program.forEach(({ code, jt, jf, k }, i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}
