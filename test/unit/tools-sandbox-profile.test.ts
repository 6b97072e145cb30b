import { describe, expect, it } from 'vitest';
import { bwrapArgs, isolationArgs } from '../../main/tools/sandbox/bwrap.js';
import { parseProcStatus, statusProblem } from '../../main/tools/sandbox/verify.js';
import { sbplString, seatbeltArgs, seatbeltProfile } from '../../main/tools/sandbox/seatbelt.js';

const plan = { workspace: '/home/ann/proj', hide: ['/home/ann', '/home/ann/.config/AgentDesk'], network: true };

describe('bwrap argv', () => {
  const ISOLATION = '--unshare-user --cap-drop ALL --die-with-parent --new-session --unshare-pid --unshare-ipc --unshare-uts';
  it('own user namespace without capabilities, system read-only, home hidden, workspace bound, then /tmp, /dev and /proc', () => {
    const args = bwrapArgs(plan, ['/bin/bash', '-c', 'ls']);
    expect(args.join(' ')).toBe(
      `${ISOLATION} --ro-bind / / --tmpfs /home/ann --tmpfs /home/ann/.config/AgentDesk --bind /home/ann/proj /home/ann/proj ` +
        '--tmpfs /tmp --dev /dev --proc /proc --chdir /home/ann/proj --setenv TMPDIR /tmp -- /bin/bash -c ls',
    );
  });
  it('started by root: an unprivileged uid and gid inside', () => {
    expect(bwrapArgs({ ...plan, uid: 1000 }, ['sh']).slice(0, 7)).toEqual(['--unshare-user', '--uid', '1000', '--gid', '1000', '--cap-drop', 'ALL']);
    expect(isolationArgs({ network: false, uid: 1000 })).toEqual([
      '--unshare-user', '--uid', '1000', '--gid', '1000', '--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--unshare-pid',
      '--unshare-ipc', '--unshare-uts', '--unshare-net',
    ]);
  });
  it('--info-fd comes first when asked for (exec learns the sandbox pid from it)', () => {
    expect(bwrapArgs(plan, ['sh'], 3).slice(0, 3)).toEqual(['--info-fd', '3', '--unshare-user']);
  });
  it('--seccomp FD follows when exec passes the unix-socket filter', () => {
    expect(bwrapArgs(plan, ['sh'], 3, 4).slice(0, 5)).toEqual(['--info-fd', '3', '--seccomp', '4', '--unshare-user']);
    expect(bwrapArgs(plan, ['sh'], 3)).not.toContain('--seccomp');
  });
  it('network off adds --unshare-net; a hidden folder inside the workspace stays hidden (laid over the bind)', () => {
    const args = bwrapArgs({ workspace: '/w', hide: ['/w/.agentdesk'], network: false }, ['sh']);
    expect(args).toContain('--unshare-net');
    expect(args.slice(args.indexOf('--bind'))).toEqual([
      '--bind', '/w', '/w', '--tmpfs', '/w/.agentdesk', '--tmpfs', '/tmp', '--dev', '/dev', '--proc', '/proc',
      '--chdir', '/w', '--setenv', 'TMPDIR', '/tmp', '--', 'sh',
    ]);
  });
  it('a workspace in /tmp: the private /tmp comes first so the bind lands on it', () => {
    const args = bwrapArgs({ workspace: '/tmp/p', hide: ['/root', '/tmp/data'], network: true }, ['sh']);
    expect(args.slice(args.indexOf('--ro-bind'), args.indexOf('--chdir')).join(' ')).toBe(
      '--ro-bind / / --tmpfs /tmp --tmpfs /root --tmpfs /tmp/data --bind /tmp/p /tmp/p --dev /dev --proc /proc',
    );
  });
  it('a hidden folder inside the workspace comes after the protected mounts (a pinned parent would bring it back)', () => {
    const args = bwrapArgs(
      { workspace: '/home/ann', hide: ['/home/ann', '/home/ann/.config/AgentDesk'], network: true, pinned: ['/home/ann/.config'], readOnly: ['/home/ann/.config/git'] },
      ['sh'],
    );
    expect(args.slice(args.indexOf('--bind'), args.indexOf('--chdir')).join(' ')).toBe(
      '--bind /home/ann /home/ann --bind /home/ann/.config /home/ann/.config --ro-bind /home/ann/.config/git /home/ann/.config/git ' +
        '--tmpfs /home/ann/.config/AgentDesk --tmpfs /tmp --dev /dev --proc /proc',
    );
  });
  it('tmpfsBytes sizes every writable tmpfs (they live in RAM), not the read-only blocks', () => {
    const args = bwrapArgs({ workspace: '/w', hide: ['/root'], network: true, blocked: ['/w/.envrc'], tmpfsBytes: 1048576 }, ['sh']);
    expect(args.slice(args.indexOf('--ro-bind'), args.indexOf('--chdir')).join(' ')).toBe(
      '--ro-bind / / --size 1048576 --tmpfs /root --bind /w /w --tmpfs /w/.envrc --remount-ro /w/.envrc --size 1048576 --tmpfs /tmp --dev /dev --proc /proc',
    );
  });
  it('protected paths: pinned folders, then read-only entries, then blocked missing ones — all after the workspace', () => {
    const args = bwrapArgs(
      { workspace: '/w', hide: [], network: true, pinned: ['/w/.git'], readOnly: ['/w/.git/hooks', '/w/.git/config', '/w/.bashrc', '/elsewhere'], blocked: ['/w/.envrc'] },
      ['sh'],
    );
    expect(args.slice(args.indexOf('--bind'), args.indexOf('--chdir')).join(' ')).toBe(
      '--bind /w /w --bind /w/.git /w/.git --ro-bind /w/.bashrc /w/.bashrc --ro-bind /w/.git/config /w/.git/config ' +
        '--ro-bind /w/.git/hooks /w/.git/hooks --tmpfs /w/.envrc --remount-ro /w/.envrc --tmpfs /tmp --dev /dev --proc /proc',
    );
  });
});

describe('the sandbox start-up check (/proc/self/status inside)', () => {
  const status = (caps: Record<string, string>, nnp = '1') =>
    `Name:\tsh\nCapInh:\t0000000000000000\n${Object.entries(caps).map(([k, v]) => `${k}:\t${v}`).join('\n')}\nNoNewPrivs:\t${nnp}\n`;
  const ZERO = '0000000000000000';
  it.each([
    ['no capability at all', status({ CapPrm: ZERO, CapEff: ZERO, CapBnd: ZERO, CapAmb: ZERO }), undefined],
    ['bwrap by root without a user namespace', status({ CapPrm: '000001fffeffffff', CapEff: '000001fffeffffff', CapBnd: '000001fffeffffff', CapAmb: ZERO }), /CapEff 000001fffeffffff/],
    ['permitted but not effective', status({ CapPrm: '0000000000200000', CapEff: ZERO, CapBnd: ZERO, CapAmb: ZERO }), /could regain capabilities \(CapPrm/],
    ['ambient', status({ CapPrm: ZERO, CapEff: ZERO, CapBnd: ZERO, CapAmb: '0000000000000400' }), /ambient/],
    ['a bounding set left (setcap programs)', status({ CapPrm: ZERO, CapEff: ZERO, CapBnd: '0000000000000400', CapAmb: ZERO }), /CapBnd 0000000000000400/],
    ['no_new_privs off', status({ CapPrm: ZERO, CapEff: ZERO, CapBnd: ZERO, CapAmb: ZERO }, '0'), /no_new_privs is off/],
    ['nothing readable', 'sh: cannot open /proc/self/status\n', /could not read its capabilities/],
  ])('%s', (_label, text, problem) => {
    const verdict = statusProblem(parseProcStatus(text));
    if (problem === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(problem);
  });
});

describe('Seatbelt profile (macOS; checked as text — sandbox-exec cannot run here)', () => {
  it('denies by default, reads the system, hides home and app data, re-allows the workspace read-write', () => {
    const text = seatbeltProfile(plan);
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('(version 1)');
    expect(lines[1]).toBe('(deny default)');
    const read = lines.indexOf('(allow file-read*)');
    const hide = lines.findIndex((l) => l.startsWith('(deny file-read* file-write*'));
    const ws = lines.indexOf('(allow file-read* file-write* (subpath "/home/ann/proj"))');
    expect(read).toBeGreaterThan(1);
    expect(hide).toBeGreaterThan(read); // later rules win in SBPL
    expect(ws).toBeGreaterThan(hide);
    expect(lines[hide]).toBe('(deny file-read* file-write* (subpath "/home/ann") (subpath "/home/ann/.config/AgentDesk"))');
    expect(text).toContain('(allow network*)');
    expect(text).not.toMatch(/allow file-write\* \(subpath "\/"\)/);
  });
  it('protected paths: writes denied after the workspace is allowed (existing and missing alike), .git itself cannot be renamed', () => {
    const lines = seatbeltProfile({ ...plan, readOnly: ['/home/ann/proj/.git/hooks'], blocked: ['/home/ann/proj/AGENTS.md'], pinned: ['/home/ann/proj/.git'] })
      .trim()
      .split('\n');
    const ws = lines.indexOf('(allow file-read* file-write* (subpath "/home/ann/proj"))');
    const deny = lines.indexOf(
      '(deny file-write* (subpath "/home/ann/proj/.git/hooks") (subpath "/home/ann/proj/AGENTS.md") (literal "/home/ann/proj/.git"))',
    );
    expect(deny).toBeGreaterThan(ws);
  });
  it('network off: no network rule (denied by default)', () => {
    expect(seatbeltProfile({ ...plan, network: false })).not.toContain('network');
  });
  it.each([
    ['/plain', '"/plain"'],
    ['/with "quote"', '"/with \\"quote\\""'],
    ['/back\\slash', '"/back\\\\slash"'],
  ])('quotes %s', (input, out) => {
    expect(sbplString(input)).toBe(out);
  });
  it('passes the profile with -p before the command', () => {
    expect(seatbeltArgs(plan, ['/bin/bash', '-c', 'ls']).slice(0, 1)).toEqual(['-p']);
    expect(seatbeltArgs(plan, ['/bin/bash', '-c', 'ls']).slice(-3)).toEqual(['/bin/bash', '-c', 'ls']);
  });
});
