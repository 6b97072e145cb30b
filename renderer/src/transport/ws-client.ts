/**
 * Browser WebSocket client for main/gateway/ws-server.ts, implementing the same AgentDeskApi as the preload.
 * Requests made while disconnected wait for the next connection; a dropped connection rejects what was in flight
 * and reconnects with backoff.
 */
import type { AgentDeskApi, AgentEvent, MethodName, Methods } from '../../../preload/contract.js';
import type { ConnectionStatus, RendererTransport } from './types.js';
import { RequestError } from '../../../preload/messages/requests.js';

type ServerFrame =
  | { id: number; result: unknown }
  | { id: number | string | null; error: { code: string; message: string } }
  | { event: AgentEvent };

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 5000;

export interface WsTransportClientOptions {
  /** First reconnect delay (doubles up to MAX_BACKOFF_MS); tests pass a small value. */
  minBackoffMs?: number;
  /**
   * Asked when a socket closes without ever opening: true when the server answers plain HTTP, i.e. it is up and
   * refused the upgrade — with a loopback server that means the token is no longer valid. Default: GET / of the
   * same host.
   */
  serverReachable?: () => Promise<boolean>;
}

function defaultReachable(url: string): () => Promise<boolean> {
  return async () => {
    try {
      const http = url.replace(/^ws/, 'http').replace(/\/ws\?.*$/, '/');
      const res = await fetch(http, { method: 'HEAD', cache: 'no-store' });
      return res.ok;
    } catch {
      return false;
    }
  };
}

export function createWsTransport(url: string, opts: WsTransportClientOptions = {}): RendererTransport & { close(): void } {
  const minBackoff = opts.minBackoffMs ?? MIN_BACKOFF_MS;
  const serverReachable = opts.serverReachable ?? defaultReachable(url);
  const pending = new Map<number, Pending>();
  const outbox: string[] = [];
  const eventListeners = new Set<(event: AgentEvent) => void>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let status: ConnectionStatus = 'connecting';
  let socket: WebSocket | undefined;
  let nextId = 1;
  let backoff = minBackoff;
  let closed = false;

  const setStatus = (next: ConnectionStatus): void => {
    status = next;
    for (const l of statusListeners) l(next);
  };

  const onFrame = (raw: unknown): void => {
    if (typeof raw !== 'string') return;
    let frame: ServerFrame;
    try {
      frame = JSON.parse(raw) as ServerFrame;
    } catch {
      return;
    }
    if ('event' in frame) {
      for (const l of eventListeners) l(frame.event);
      return;
    }
    if (typeof frame.id !== 'number') return;
    const waiter = pending.get(frame.id);
    if (!waiter) return;
    pending.delete(frame.id);
    if ('error' in frame) waiter.reject(new RequestError(frame.error.code, frame.error.message));
    else waiter.resolve(frame.result);
  };

  const connect = (): void => {
    setStatus('connecting');
    const ws = new WebSocket(url);
    let opened = false;
    socket = ws;
    ws.onopen = () => {
      opened = true;
      backoff = minBackoff;
      setStatus('open');
      for (const frame of outbox.splice(0)) ws.send(frame);
    };
    ws.onmessage = (e) => onFrame(e.data);
    ws.onerror = () => undefined; // a close event always follows; it decides what to do
    ws.onclose = () => {
      socket = undefined;
      for (const [id, waiter] of pending) {
        pending.delete(id);
        waiter.reject(new Error('connection lost'));
      }
      if (closed) return setStatus('closed');
      const retry = (): void => {
        setStatus('closed');
        setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      };
      if (opened) return retry();
      // Never opened: either the server is down (keep trying) or it refused our token (stop: it never will).
      void serverReachable().then((up) => (up ? setStatus('unauthorized') : retry()));
    };
  };

  const api: AgentDeskApi = {
    request<M extends MethodName>(method: M, params: Methods[M][0]): Promise<Methods[M][1]> {
      const id = nextId++;
      const frame = JSON.stringify({ id, method, params });
      return new Promise<Methods[M][1]>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        if (socket && socket.readyState === WebSocket.OPEN) socket.send(frame);
        else outbox.push(frame);
      });
    },
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
  };

  connect();
  return {
    kind: 'web',
    api,
    /** Stops reconnecting and closes the socket. */
    close() {
      closed = true;
      socket?.close();
    },
    onStatus(listener) {
      statusListeners.add(listener);
      listener(status);
      return () => statusListeners.delete(listener);
    },
  };
}

/** ws://host/ws?token=… for the page's own host, or undefined when the page URL carries no token. */
export function wsUrlFromLocation(loc: Location): string | undefined {
  const token = new URLSearchParams(loc.search).get('token');
  if (!token) return undefined;
  const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${loc.host}/ws?token=${encodeURIComponent(token)}`;
}
