/**
 * The start-up check of the exec sandbox (X5): a command inside must hold no capability at all and must not be
 * able to gain one. bwrap started by root without a user namespace keeps every capability (CapEff
 * 000001fffeffffff), which lets `umount -l /proc` or `mount -o remount,rw /` undo the sandbox — so the sandbox is
 * only called a sandbox once a probe run inside it reports these lines of /proc/self/status as below.
 */

export interface ProcStatus {
  capEff?: bigint;
  capPrm?: bigint;
  capAmb?: bigint;
  capBnd?: bigint;
  noNewPrivs?: number;
}

/** The capability and no_new_privs lines of a /proc/PID/status text (absent lines stay undefined). */
export function parseProcStatus(text: string): ProcStatus {
  const out: ProcStatus = {};
  for (const line of text.split('\n')) {
    const m = /^(CapEff|CapPrm|CapAmb|CapBnd|NoNewPrivs):\s*([0-9a-fA-F]+)\s*$/.exec(line);
    if (!m) continue;
    if (m[1] === 'NoNewPrivs') out.noNewPrivs = Number(m[2]);
    else out[`cap${m[1]!.slice(3)}` as 'capEff'] = BigInt(`0x${m[2]}`);
  }
  return out;
}

/** Why a probe's status shows no sandbox (undefined: it holds). */
export function statusProblem(s: ProcStatus): string | undefined {
  if (s.capEff === undefined || s.capPrm === undefined) return 'the probe inside the sandbox could not read its capabilities';
  const hex = (v: bigint) => v.toString(16).padStart(16, '0');
  if (s.capEff !== 0n) return `commands inside would keep capabilities (CapEff ${hex(s.capEff)})`;
  if (s.capPrm !== 0n) return `commands inside could regain capabilities (CapPrm ${hex(s.capPrm)})`;
  if ((s.capAmb ?? 0n) !== 0n) return `commands inside would inherit ambient capabilities (CapAmb ${hex(s.capAmb!)})`;
  if ((s.capBnd ?? 0n) !== 0n) return `programs inside could gain capabilities on exec (CapBnd ${hex(s.capBnd!)})`;
  if (s.noNewPrivs !== undefined && s.noNewPrivs !== 1) return 'setuid programs inside could gain privileges (no_new_privs is off)';
  return undefined;
}
