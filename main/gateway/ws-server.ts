/**
 * Loopback WebSocket transport for the gateway (used by `npm run web` and any local tool).
 * Plain Node: attaches to an existing http.Server and serves JSON frames on one upgrade path.
 *
 * Security model: only loopback peers, a Host header naming our own loopback address (DNS-rebinding guard, the
 * same rule as the http server's), a shared secret token on the upgrade URL (constant-time compare), an Origin
 * that is absent (non-browser clients) or the same host (our own page), and a payload cap.
 *
 * Frames: client `{id, method, params}` → server `{id, result}` | `{id, error: {code, message}}`;
 * the server pushes `{event: AgentEvent}` to every connected (hence authenticated) client.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { AgentEvent, MethodName } from '../../preload/contract.js';
import { GatewayError, type GatewayApi, type GatewayErrorCode } from './types.js';

export interface WsTransportOptions {
  server: Server;
  token: string;
  /** Upgrade path; default '/ws'. */
  path?: string;
  /** Largest accepted client frame in bytes; default 1 MiB. */
  maxPayload?: number;
  /** A client whose unsent backlog exceeds this many bytes is dropped; default 16 MiB. */
  maxBufferedBytes?: number;
}

export interface WsTransport {
  /** Number of connected clients. */
  clientCount(): number;
  /** Stops accepting upgrades, closes every client and unsubscribes from the gateway. */
  close(): Promise<void>;
}

export type WsErrorFrame = { id: string | number | null; error: { code: GatewayErrorCode; message: string } };
export type WsServerFrame = { id: string | number; result: unknown } | WsErrorFrame | { event: AgentEvent };

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
const DEFAULT_MAX_BUFFERED = 16 * 1024 * 1024;

export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.has(address);
}

/** Constant-time token comparison; hashing first makes the lengths equal. */
export function tokenMatches(expected: string, given: string | null): boolean {
  if (given === null || expected.length === 0) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/**
 * DNS-rebinding guard: the Host header must name the loopback address we listen on (`127.0.0.1:PORT`,
 * `localhost:PORT` or `[::1]:PORT`). A page on `evil.example` that resolves to 127.0.0.1 sends its own name.
 */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (host === undefined || port <= 0) return false;
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

/** Origin must be absent (non-browser client) or exactly our own http origin. */
export function originAllowed(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (host === undefined) return false;
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && url.host === host;
  } catch {
    return false;
  }
}

function reject(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

type ParsedRequest = { ok: true; id: string | number; method: string; params: unknown } | { ok: false; frame: WsErrorFrame };

function badRequest(id: string | number | null, message: string): ParsedRequest {
  return { ok: false, frame: { id, error: { code: 'bad_request', message } } };
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** Parses one client frame; never throws. */
export function parseClientFrame(data: RawData, isBinary: boolean): ParsedRequest {
  if (isBinary) return badRequest(null, 'binary frames are not supported');
  let value: unknown;
  try {
    value = JSON.parse(rawToString(data));
  } catch {
    return badRequest(null, 'invalid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return badRequest(null, 'frame must be a JSON object');
  const frame = value as Record<string, unknown>;
  const id = frame.id;
  if (!((typeof id === 'string' && id.length > 0 && id.length <= 128) || (typeof id === 'number' && Number.isFinite(id)))) {
    return badRequest(null, 'frame.id must be a non-empty string or a number');
  }
  if (typeof frame.method !== 'string' || frame.method.length === 0) return badRequest(id, 'frame.method must be a string');
  return { ok: true, id, method: frame.method, params: frame.params ?? {} };
}

function toErrorFrame(id: string | number, err: unknown): WsErrorFrame {
  if (err instanceof GatewayError) return { id, error: { code: err.code, message: err.message } };
  const message = err instanceof Error ? err.message : String(err);
  return { id, error: { code: 'internal', message: message || 'internal error' } };
}

export function startWsTransport(gateway: GatewayApi, opts: WsTransportOptions): WsTransport {
  const path = opts.path ?? '/ws';
  const maxBuffered = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload ?? DEFAULT_MAX_PAYLOAD });
  const clients = new Set<WebSocket>();

  const send = (ws: WebSocket, frame: WsServerFrame): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > maxBuffered) {
      ws.close(1013, 'client too slow');
      return;
    }
    ws.send(JSON.stringify(frame));
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return reject(socket, 404, 'Not Found');
    if (!isLoopbackAddress(req.socket.remoteAddress)) return reject(socket, 403, 'Forbidden');
    const port = (opts.server.address() as AddressInfo | null)?.port ?? 0;
    if (!hostAllowed(req.headers.host, port)) return reject(socket, 421, 'Misdirected Request');
    if (!originAllowed(req.headers.origin, req.headers.host)) return reject(socket, 403, 'Forbidden');
    if (!tokenMatches(opts.token, url.searchParams.get('token'))) return reject(socket, 401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws));
  };

  const onConnection = (ws: WebSocket): void => {
    clients.add(ws);
    // A window that reloads or reconnects while a run waits for approval gets the request again.
    for (const event of gateway.greeting?.() ?? []) send(ws, { event });
    ws.on('close', () => clients.delete(ws));
    ws.on('error', () => clients.delete(ws)); // e.g. payload over the cap (ws closes with 1009)
    ws.on('message', (data, isBinary) => {
      const parsed = parseClientFrame(data, isBinary);
      if (!parsed.ok) return send(ws, parsed.frame);
      const { id, method, params } = parsed;
      gateway.request(method as MethodName, params).then(
        (result) => send(ws, { id, result: result ?? null }),
        (err: unknown) => send(ws, toErrorFrame(id, err)),
      );
    });
  };

  const unsubscribe = gateway.onEvent((event) => {
    for (const ws of clients) send(ws, { event });
  });
  opts.server.on('upgrade', onUpgrade);

  let closing: Promise<void> | undefined;
  return {
    clientCount: () => clients.size,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        unsubscribe();
        opts.server.off('upgrade', onUpgrade);
        for (const ws of clients) ws.terminate();
        clients.clear();
        wss.close(() => resolve());
      })),
  };
}
