/**
 * The gateway hides the command line's code cache folder (main/cli/home.ts codeCacheFolder) where the bin writes it
 * (bin/code-cache.mjs codeCacheDir): the two must name the same folder for every environment, or the folder the
 * gateway hides is not the one the next start runs code from.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheFolder } from '../../main/cli/home.js';
// @ts-expect-error — a plain .mjs file of the bin, without types
import { codeCacheDir } from '../../bin/code-cache.mjs';

const cases: [string, NodeJS.ProcessEnv, string][] = [
  ['no XDG_CACHE_HOME', {}, join(homedir(), '.cache', 'agentdesk', 'code-cache')],
  ['an absolute XDG_CACHE_HOME', { XDG_CACHE_HOME: '/srv/cache' }, '/srv/cache/agentdesk/code-cache'],
  ['a relative XDG_CACHE_HOME is ignored (the XDG rule)', { XDG_CACHE_HOME: 'rel/cache' }, join(homedir(), '.cache', 'agentdesk', 'code-cache')],
  ['an empty XDG_CACHE_HOME', { XDG_CACHE_HOME: '' }, join(homedir(), '.cache', 'agentdesk', 'code-cache')],
];

describe('the code cache folder: the one the bin writes is the one the gateway hides', () => {
  it.each(cases)('%s', (_name, env, expected) => {
    expect(codeCacheFolder(env)).toBe(expected);
    expect(codeCacheDir(env)).toBe(expected);
  });
  it('turned off (AGENTDESK_CODE_CACHE=0): the bin writes none, the gateway still hides the folder', () => {
    expect(codeCacheDir({ AGENTDESK_CODE_CACHE: '0' })).toBeUndefined();
    expect(codeCacheFolder({ AGENTDESK_CODE_CACHE: '0' })).toBe(join(homedir(), '.cache', 'agentdesk', 'code-cache'));
  });
});
