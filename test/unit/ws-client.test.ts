/**
 * The renderer's WebSocket client (renderer/src/transport/ws-client.ts) against the real transport
 * (main/gateway/ws-server.ts) with a tiny in-test gateway. The `ws` package stands in for the browser WebSocket.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AgentEvent, MethodName } from '../../preload/contract.js';
import { GatewayError, type GatewayApi } from '../../main/gateway/types.js';
import { startWsTransport, type WsTransport } from '../../main/gateway/ws-server.js';
import { createWsTransport, wsUrlFromLocation } from '../../renderer/src/transport/ws-client.js';
import type { ConnectionStatus } from '../../renderer/src/transport/types.js';

const TOKEN = 'c'.repeat(64);

class TestGateway implements GatewayApi {
  listeners = new Set<(e: AgentEvent) => void>();
  release: (() => void) | undefined;
  async request<M extends MethodName>(method: M, params: unknown): Promise<never> {
    if (method === 'app.info') return { echo: params } as never;
    if (method === 'agent.wait') {
      await new Promise<void>((r) => (this.release = r)); // held until the test lets go
      return { status: 'ok' } as never;
    }
    throw new GatewayError('bad_request', 'nope');
  }
  onEvent(listener: (e: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const event = (seq: number): AgentEvent => ({
  type: 'event',
  runId: 'r',
  sessionKey: 'main',
  seq,
  stream: 'thinking',
  data: { delta: 'x', text: 'x' },
  ts: 0,
});

let server: Server;
let gateway: TestGateway;
let transport: WsTransport;
let port: number;
let client: ReturnType<typeof createWsTransport> | undefined;

beforeAll(() => {
  (globalThis as unknown as { WebSocket: unknown }).WebSocket = WebSocket;
});

beforeEach(async () => {
  server = createServer();
  gateway = new TestGateway();
  transport = startWsTransport(gateway, { server, token: TOKEN });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  client?.close();
  client = undefined;
  await transport.close();
  await new Promise<void>((r) => server.close(() => r()));
});

const connectClient = () => (client = createWsTransport(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`, { minBackoffMs: 10 }));

function waitForStatus(c: ReturnType<typeof createWsTransport>, want: ConnectionStatus): Promise<void> {
  return new Promise((resolve) => {
    const off = c.onStatus((s) => {
      if (s === want) {
        queueMicrotask(() => off());
        resolve();
      }
    });
  });
}

describe('renderer WebSocket client', () => {
  it('queues requests made before the socket opens and resolves them with the result', async () => {
    const c = connectClient();
    await expect(c.api.request('app.info', {})).resolves.toEqual({ echo: {} });
  });

  it('rejects with the gateway\'s sentence for an error frame, the code apart (never "bad_request: …" to read)', async () => {
    const c = connectClient();
    const err = await c.api.request('models.list', {}).catch((e: unknown) => e as Error & { code?: string });
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('nope');
    expect((err as { code?: string }).code).toBe('bad_request');
  });

  it('delivers pushed events to listeners until they unsubscribe', async () => {
    const c = connectClient();
    await waitForStatus(c, 'open');
    const seen: number[] = [];
    const off = c.api.onEvent((e) => seen.push(e.seq));
    for (const l of gateway.listeners) l(event(0));
    await c.api.request('app.info', {}); // a round trip: the event frame was sent before the reply
    off();
    for (const l of gateway.listeners) l(event(1));
    await c.api.request('app.info', {});
    expect(seen).toEqual([0]);
  });

  it('rejects in-flight requests when the connection drops, then reconnects', async () => {
    const c = connectClient();
    await waitForStatus(c, 'open');
    const held = c.api.request('agent.wait', { runId: 'r' }).then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await new Promise((r) => setTimeout(r, 20)); // let the request reach the gateway
    const reopened = (async () => {
      await waitForStatus(c, 'closed');
      await waitForStatus(c, 'open');
    })();
    await transport.close(); // drops every client socket from the server side
    transport = startWsTransport(gateway, { server, token: TOKEN });
    expect(await held).toBe('connection lost');
    await reopened;
    await expect(c.api.request('app.info', { again: true } as never)).resolves.toEqual({ echo: { again: true } });
    gateway.release?.();
  });

  it('a refused upgrade while the server answers HTTP means a stale token: status "unauthorized", no more retries', async () => {
    let probes = 0;
    const c = (client = createWsTransport(`ws://127.0.0.1:${port}/ws?token=${'d'.repeat(64)}`, {
      minBackoffMs: 10,
      serverReachable: async () => (++probes, true),
    }));
    await waitForStatus(c, 'unauthorized');
    await new Promise((r) => setTimeout(r, 60));
    expect(probes).toBe(1);
  });

  it('a server that is down is retried, not taken for a stale token', async () => {
    let probes = 0;
    const c = (client = createWsTransport(`ws://127.0.0.1:${port}/ws?token=${'d'.repeat(64)}`, {
      minBackoffMs: 5,
      serverReachable: async () => (++probes, false),
    }));
    await waitForStatus(c, 'closed');
    await waitForStatus(c, 'connecting');
    expect(probes).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['http://127.0.0.1:5000/?token=abc', 'ws://127.0.0.1:5000/ws?token=abc'],
    ['https://localhost/?x=1&token=a%2Bb', 'wss://localhost/ws?token=a%2Bb'],
    ['http://127.0.0.1:5000/', undefined],
    ['http://127.0.0.1:5000/?token=', undefined],
  ])('wsUrlFromLocation(%s) → %s', (href, expected) => {
    expect(wsUrlFromLocation(new URL(href) as unknown as Location)).toBe(expected);
  });
});
