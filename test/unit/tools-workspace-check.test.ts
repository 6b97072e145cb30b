/** Which folders may be a workspace (X5): never the system, the home folder's ancestors or the data folder. */
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realWorkspace } from '../../main/tools/paths.js';
import { workspaceRefusal } from '../../main/tools/workspace-check.js';

const opts = { home: '/home/ann', dataFolders: ['/home/ann/.config/AgentDesk', '/srv/agentdesk-data'] };

describe('workspaceRefusal', () => {
  it.each([
    ['/', /root of the file system/],
    ['/etc', /system folder/],
    ['/usr', /system folder/],
    ['/tmp', /system folder/],
    ['/var/tmp', /system folder/],
    ['/proc', /inside \/proc/],
    ['/proc/1/root', /inside \/proc/],
    ['/sys/fs/cgroup', /inside \/sys/],
    ['/dev/shm/x', /inside \/dev/],
    ['/run/user/1000', /inside \/run/],
    ['/var/run/docker', /inside \/var\/run/],
    ['/home', /system folder/],
    ['/Users', /system folder/],
    ['/home/ann/.config/AgentDesk', /AgentDesk's data folder \(\/home\/ann\/.config\/AgentDesk\)/],
    ['/home/ann/.config/AgentDesk/sessions', /inside AgentDesk's data folder/],
    ['/srv/agentdesk-data', /data folder/],
  ])('refuses %s', (dir, why) => {
    expect(workspaceRefusal(dir, opts)).toMatch(why);
  });

  it.each([
    ['/home/ann'], // the home folder itself: the data folder in it stays hidden
    ['/home/ann/project'],
    ['/home/ann/.config'], // holds the data folder: allowed, the data folder is hidden in it
    ['/tmp/agentdesk-ws-1'],
    ['/usr/local/src/app'],
    ['/opt/site'],
    ['/srv/www'],
    ['/var/www/html'],
  ])('allows %s', (dir) => {
    expect(workspaceRefusal(dir, opts)).toBeUndefined();
  });

  it("refuses an ancestor of the person's home that is no system folder", () => {
    expect(workspaceRefusal('/data', { home: '/data/users/ann' })).toMatch(/contains your home folder \(\/data\/users\/ann\)/);
  });
});

describe('realWorkspace refuses what workspaceRefusal refuses, after resolving symlinks', () => {
  let root = '';
  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-wscheck-')));
    await mkdir(path.join(root, 'data', 'sessions'), { recursive: true });
    await symlink('/', path.join(root, 'to-root'));
    await symlink(path.join(root, 'data', 'sessions'), path.join(root, 'to-data'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    ['a symlink to /', 'to-root', /^Workspace folder \/ cannot be used: it is the root of the file system/],
    ['a symlink into the data folder', 'to-data', /cannot be used: it is inside AgentDesk's data folder/],
  ])('%s', async (_label, rel, message) => {
    await expect(realWorkspace(path.join(root, rel), { dataFolders: [path.join(root, 'data')] })).rejects.toThrow(message);
  });
  it('a plain folder beside the data folder is fine', async () => {
    await mkdir(path.join(root, 'ws'));
    await expect(realWorkspace(path.join(root, 'ws'), { dataFolders: [path.join(root, 'data')] })).resolves.toBe(path.join(root, 'ws'));
  });
});
