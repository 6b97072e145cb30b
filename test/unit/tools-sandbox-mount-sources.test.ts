/**
 * X5: the sources of exec's binds over the workspace are opened and checked before bwrap starts
 * (sandbox/mount-sources.ts) — a path swapped for a symlink, in its last place or further up, is refused, so a
 * command running at the same time cannot get a host folder bound into the next sandbox.
 */
import { existsSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMountSources } from '../../main/tools/sandbox/mount-sources.js';
import { between, bwrapArgs, workspaceBinds } from '../../main/tools/sandbox/bwrap.js';

let root = '';
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-sources-')));
  await mkdir(path.join(root, 'ws', 'sub', '.git'), { recursive: true });
  await writeFile(path.join(root, 'ws', '.bashrc'), 'x\n');
  await mkdir(path.join(root, 'outside', '.git'), { recursive: true });
  await symlink(path.join(root, 'outside'), path.join(root, 'ws', 'linked'));
  await symlink(path.join(root, 'outside', '.git'), path.join(root, 'ws', 'gitlink'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux' && existsSync('/proc/self/fd'))('openMountSources', () => {
  it('opens folders and files; the child numbers follow from the first one', () => {
    const a = path.join(root, 'ws', 'sub', '.git');
    const b = path.join(root, 'ws', '.bashrc');
    const s = openMountSources([a, b, a], 5);
    try {
      expect(s.fds).toHaveLength(2);
      expect([...s.childFds]).toEqual([[a, 5], [b, 6]]);
      expect(readlinkSync(`/proc/self/fd/${s.fds[0]}`)).toBe(a);
    } finally {
      s.close();
    }
    expect(s.fds).toEqual([]);
  });
  it.each([
    ['a symlink in the last place', 'gitlink'],
    ['a symlink further up', 'linked/.git'],
  ])('refuses %s (and closes what it opened)', (_l, rel) => {
    expect(() => openMountSources([path.join(root, 'ws', 'sub', '.git'), path.join(root, 'ws', rel)], 5)).toThrow();
  });
});

describe('binds over the workspace', () => {
  it('between(): the folders between the workspace and a path', () => {
    expect(between('/w', '/w/a/b/c')).toEqual(['/w/a/b', '/w/a']);
    expect(between('/w', '/w/a')).toEqual([]);
  });
  it("a hidden folder's parents are pinned (a command cannot rename them away), before the read-only entries", () => {
    expect(workspaceBinds({ workspace: '/h', hide: ['/h', '/h/.config/AgentDesk', '/elsewhere'], network: true, readOnly: ['/h/.bashrc'] })).toEqual({
      pinned: ['/h/.config'],
      readOnly: ['/h/.bashrc'],
    });
  });
  it('with source descriptors: --bind-fd / --ro-bind-fd', () => {
    const args = bwrapArgs(
      { workspace: '/w', hide: [], network: true, pinned: ['/w/.git'], readOnly: ['/w/.git/config'], sourceFds: new Map([['/w/.git', 5], ['/w/.git/config', 6]]) },
      ['sh'],
    );
    expect(args.slice(args.indexOf('--bind'), args.indexOf('--tmpfs')).join(' ')).toBe('--bind /w /w --bind-fd 5 /w/.git --ro-bind-fd 6 /w/.git/config');
  });
});
