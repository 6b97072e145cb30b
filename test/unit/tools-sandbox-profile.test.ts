import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../main/tools/sandbox/bwrap.js';
import { sbplString, seatbeltArgs, seatbeltProfile } from '../../main/tools/sandbox/seatbelt.js';

const plan = { workspace: '/home/ann/proj', hide: ['/home/ann', '/home/ann/.config/AgentDesk'], network: true };

describe('bwrap argv', () => {
  it('system read-only, private /tmp, new PID namespace, home hidden, workspace bound on top, cwd fixed', () => {
    const args = bwrapArgs(plan, ['/bin/bash', '-c', 'ls']);
    expect(args.join(' ')).toBe(
      '--die-with-parent --new-session --unshare-pid --unshare-ipc --unshare-uts --ro-bind / / --dev /dev --proc /proc ' +
        '--tmpfs /tmp --tmpfs /home/ann --tmpfs /home/ann/.config/AgentDesk --bind /home/ann/proj /home/ann/proj ' +
        '--chdir /home/ann/proj --setenv TMPDIR /tmp -- /bin/bash -c ls',
    );
  });
  it('--info-fd comes first when asked for (exec learns the sandbox pid from it)', () => {
    expect(bwrapArgs(plan, ['sh'], 3).slice(0, 3)).toEqual(['--info-fd', '3', '--die-with-parent']);
  });
  it('--seccomp FD follows when exec passes the unix-socket filter (network on)', () => {
    expect(bwrapArgs(plan, ['sh'], 3, 4).slice(0, 5)).toEqual(['--info-fd', '3', '--seccomp', '4', '--die-with-parent']);
    expect(bwrapArgs(plan, ['sh'], 3)).not.toContain('--seccomp');
  });
  it('network off adds --unshare-net; a hidden folder inside the workspace stays hidden', () => {
    const args = bwrapArgs({ workspace: '/w', hide: ['/w/.agentdesk'], network: false }, ['sh']);
    expect(args).toContain('--unshare-net');
    expect(args.slice(args.indexOf('--bind'))).toEqual(['--bind', '/w', '/w', '--tmpfs', '/w/.agentdesk', '--chdir', '/w', '--setenv', 'TMPDIR', '/tmp', '--', 'sh']);
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
