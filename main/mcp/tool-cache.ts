/**
 * X1 lazy start: the tool lists of MCP servers, remembered in `<home>/mcp-tools.json` by server name and a
 * fingerprint of how the server is started (command, args, cwd, url, type, the NAMES of its env and headers — never
 * their values). A run offers a cached list without starting the server; the server starts at the first call of
 * one of its tools, and every listing (connect, `tools/list_changed`) refreshes the cache. A changed entry has
 * another fingerprint, so its list is fetched again.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { McpServerConfig } from './config.js';
import type { McpToolDef } from './types.js';
import { visibleToolDefs } from './display-text.js';

export const TOOL_CACHE_FILE = 'mcp-tools.json';

interface CacheFile {
  version: 1;
  servers: Record<string, { fingerprint: string; tools: McpToolDef[]; listedAt: number }>;
}

export function serverFingerprint(cfg: McpServerConfig): string {
  const shape = {
    type: cfg.type ?? null,
    command: cfg.command ?? null,
    args: cfg.args,
    cwd: cfg.cwd ?? null,
    url: cfg.url ?? null,
    env: Object.keys(cfg.env).sort(),
    headers: Object.keys(cfg.headers).sort(),
    secretEnv: [...cfg.secretEnv].sort(),
    secretHeaders: [...cfg.secretHeaders].sort(),
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 32);
}

export class ToolCache {
  private data: CacheFile | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly home: string) {}

  private get file(): string {
    return join(this.home, TOOL_CACHE_FILE);
  }

  private load(): CacheFile {
    if (this.data) return this.data;
    try {
      const raw = JSON.parse(readFileSync(this.file, 'utf8')) as CacheFile;
      this.data = raw?.version === 1 && raw.servers && typeof raw.servers === 'object' ? raw : { version: 1, servers: {} };
    } catch {
      this.data = { version: 1, servers: {} };
    }
    return this.data;
  }

  get(name: string, cfg: McpServerConfig): McpToolDef[] | undefined {
    const entry = Object.hasOwn(this.load().servers, name) ? this.load().servers[name] : undefined;
    // Checked again as read (a cache written before names were checked, or edited): the same rule as a listing.
    return entry && entry.fingerprint === serverFingerprint(cfg) && Array.isArray(entry.tools) ? visibleToolDefs(entry.tools).tools : undefined;
  }

  /** Records a listing (written atomically; a failed write only costs a server start next time). */
  set(name: string, cfg: McpServerConfig, tools: McpToolDef[], now: number): Promise<void> {
    const data = this.load();
    const fingerprint = serverFingerprint(cfg);
    const before = data.servers[name];
    if (before && before.fingerprint === fingerprint && JSON.stringify(before.tools) === JSON.stringify(tools)) return this.writing;
    data.servers[name] = { fingerprint, tools, listedAt: now };
    return this.flush();
  }

  delete(name: string): Promise<void> {
    const data = this.load();
    if (!Object.hasOwn(data.servers, name)) return this.writing;
    delete data.servers[name];
    return this.flush();
  }

  /** Resolves when every write asked for so far is done. */
  settled(): Promise<void> {
    return this.writing;
  }

  private flush(): Promise<void> {
    const text = JSON.stringify(this.data);
    this.writing = this.writing.then(async () => {
      const tmp = `${this.file}.${process.pid}.tmp`;
      try {
        await writeFile(tmp, text, { mode: 0o600 });
        await rename(tmp, this.file);
      } catch {
        // the cache is an optimisation: a home we cannot write to only means a server start per run
      }
    });
    return this.writing;
  }
}
