/**
 * `npm run web`: the AgentDesk UI in an ordinary browser, without Electron.
 * Plain Node: the real gateway, a loopback-only http server for the built renderer (out/renderer) and the
 * WebSocket transport on /ws. Prints exactly one line to stdout: `AgentDesk web UI: http://127.0.0.1:PORT/?token=TOKEN`,
 * and prints it last (notes go to stderr before it).
 *
 * The port stays the same across restarts (issue 18 item 11): `--port N`, else the one remembered in
 * `<home>/web.json` (the first start picks a free one and remembers it). A tab left open on the old server then
 * reaches the new one and is told plainly that its link is stale, instead of spinning on a port nobody listens on.
 * The workspace is `--workspace`, else the folder chosen in Settings, else ~/AgentDesk — never the folder it was
 * started from (that is AgentDesk's own source when started with `npm run web`).
 */
import { defaultHome } from './cli/home.js';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAppGateway } from './gateway/create.js';
import { hostAllowed, startWsTransport } from './gateway/ws-server.js';
import { contentSecurityPolicy } from './shell/csp.js';
import { openSettings, type SettingsStore } from './settings/store.js';
import { prepareHome } from './cli/home-check.js';
import { setCheckpointWorkerScript } from './checkpoints/prefetch.js';

// X2: the checkpoint worker is its own bundle entry, beside this one (out/main/checkpoint-worker.js).
setCheckpointWorkerScript(new URL('./checkpoint-worker.js', import.meta.url));

const HOST = '127.0.0.1';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface WebOptions {
  home: string;
  /** --workspace; unset: the folder chosen in Settings, else ~/AgentDesk. */
  workspace?: string;
  /** --port; unset: the remembered one. */
  port?: number;
}

function parseWebArgs(argv: string[], env: NodeJS.ProcessEnv, cwd: string): WebOptions {
  const { values } = parseArgs({
    args: argv,
    options: { home: { type: 'string' }, workspace: { type: 'string' }, port: { type: 'string' } },
    strict: true,
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!/^\d+$/.test(values.port!) || !Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new Error(`--port must be an integer 0-65535, got ${values.port}`);
  }
  return {
    // Same data folder as the CLI and the app, so sessions are shared between them.
    home: resolve(values.home ?? defaultHome(env)),
    ...(values.workspace !== undefined ? { workspace: resolve(cwd, values.workspace) } : {}),
    ...(port !== undefined ? { port } : {}),
  };
}

/** Maps a request path to a file inside `root`, or null (outside the root, a directory, missing, or malformed). */
function resolveStaticPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(new URL(urlPath, 'http://x').pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rel = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const file = resolve(root, rel);
  if (file !== root && !file.startsWith(root + sep)) return null;
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

function staticHandler(root: string, getPort: () => number) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const port = getPort();
    // DNS-rebinding guard: only our own loopback host names.
    if (!hostAllowed(req.headers.host, port)) {
      res.writeHead(421, { 'Content-Type': 'text/plain' }).end('Misdirected request');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    const file = resolveStaticPath(root, req.url ?? '/');
    if (file === null) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Security-Policy': contentSecurityPolicy({ connectSrc: [`ws://${HOST}:${port}`] }),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolvePort, rejectPort) => {
    server.once('error', rejectPort);
    server.listen(port, HOST, () => {
      server.off('error', rejectPort);
      resolvePort((server.address() as AddressInfo).port);
    });
  });
}

const WEB_FILE = 'web.json';

/** The port remembered in `<home>/web.json` (undefined: none yet, or unreadable). */
function rememberedPort(home: string): number | undefined {
  try {
    const port = (JSON.parse(readFileSync(join(home, WEB_FILE), 'utf8')) as { port?: unknown }).port;
    return typeof port === 'number' && Number.isInteger(port) && port > 0 && port <= 65535 ? port : undefined;
  } catch {
    return undefined;
  }
}

function rememberPort(home: string, port: number): void {
  try {
    writeFileSync(join(home, WEB_FILE), `${JSON.stringify({ port })}\n`, { mode: 0o600 });
  } catch {
    // not remembered: the next start picks a port again
  }
}

/**
 * Listens on `--port`, else the remembered port, else a free one that is then remembered. A remembered port that
 * is taken (another `npm run web` on it?) gives way to a free one for this run, with a note.
 */
async function listenStable(server: Server, opts: WebOptions, note: (line: string) => void): Promise<number> {
  if (opts.port !== undefined) return listen(server, opts.port);
  const remembered = rememberedPort(opts.home);
  if (remembered !== undefined) {
    try {
      return await listen(server, remembered);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const port = await listen(server, 0);
      note(`port ${remembered} (the one this home remembers) is in use — another \`npm run web\`? This time on port ${port}.`);
      return port;
    }
  }
  const port = await listen(server, 0);
  rememberPort(opts.home, port);
  return port;
}

/** ~/AgentDesk (created): where a web session works when no folder was given or chosen, as in the desktop app. */
function defaultWorkspace(env: NodeJS.ProcessEnv): string {
  const folder = join(env.HOME || homedir(), 'AgentDesk');
  if (!existsSync(folder)) mkdirSync(folder, { recursive: true });
  return folder;
}

async function main(): Promise<void> {
  let opts: WebOptions;
  try {
    opts = parseWebArgs(process.argv.slice(2), process.env, process.cwd());
  } catch (err) {
    process.stderr.write(`agentdesk web: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const rendererRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'renderer');
  let settings: SettingsStore;
  try {
    opts.home = await prepareHome(opts.home, '--home');
    settings = openSettings(opts.home);
    settings.get();
  } catch (err) {
    process.stderr.write(`agentdesk web: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const chosen = settings.get().workspace;
  const workspace = opts.workspace ?? (chosen && existsSync(chosen) ? chosen : defaultWorkspace(process.env));
  const gateway = await createAppGateway({ home: opts.home, workspace, env: process.env, settings });
  // AGENTDESK_WEB_TOKEN (64 hex digits) keeps the printed link valid across restarts; else a fresh random token.
  const fixed = process.env.AGENTDESK_WEB_TOKEN;
  const token = fixed && /^[0-9a-f]{64}$/.test(fixed) ? fixed : randomBytes(32).toString('hex');
  let port = 0;
  const server = createServer(staticHandler(rendererRoot, () => port));
  const transport = startWsTransport(gateway, { server, token });
  port = await listenStable(server, opts, (line) => process.stderr.write(`agentdesk web: ${line}\n`));
  // the last thing printed at start-up: the link to open
  process.stdout.write(`AgentDesk web UI: http://${HOST}:${port}/?token=${token}\n`);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await transport.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await gateway.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`agentdesk web: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
