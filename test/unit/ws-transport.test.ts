import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AgentEvent, MethodName } from '../../preload/contract.js';
import { GatewayError, type GatewayApi } from '../../main/gateway/types.js';
import {
  hostAllowed,
  isLoopbackAddress,
  originAllowed,
  startWsTransport,
  tokenMatches,
  type WsTransport,
} from '../../main/gateway/ws-server.js';

const TOKEN = 'a'.repeat(64);

/** A tiny in-test gateway: enough surface to exercise the transport, nothing of the engine. */
class TestGateway implements GatewayApi {
  listeners = new Set<(e: AgentEvent) => void>();
  calls: { method: string; params: unknown }[] = [];
  async request<M extends MethodName>(method: M, params: unknown): Promise<never> {
    this.calls.push({ method, params });
    if (method === 'app.info') return { echo: params } as never;
    if (method === 'agent.result') return null as never;
    if (method === 'sessions.history') throw new GatewayError('not_found', 'no such session');
    if (method === 'models.list') throw new Error('disk on fire');
    throw new GatewayError('unknown_method', `unknown method: ${method}`);
  }
  onEvent(listener: (e: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(e: AgentEvent): void {
    for (const l of this.listeners) l(e);
  }
}

const sampleEvent = (seq: number): AgentEvent => ({
  type: 'event',
  runId: 'r1',
  sessionKey: 'main',
  seq,
  stream: 'assistant',
  data: { delta: 'hi', text: 'hi' },
  ts: 1,
});

let server: Server;
let gateway: TestGateway;
let transport: WsTransport;
let port: number;
const open: WebSocket[] = [];

beforeEach(async () => {
  server = createServer((_req, res) => res.writeHead(404).end());
  gateway = new TestGateway();
  transport = startWsTransport(gateway, { server, token: TOKEN, maxPayload: 4096 });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const ws of open.splice(0)) ws.terminate();
  await transport.close();
  await new Promise<void>((r) => server.close(() => r()));
});

type Outcome = { opened: true; ws: WebSocket } | { opened: false; status: number | undefined };

function connect(query = `?token=${TOKEN}`, headers: Record<string, string> = {}, path = '/ws'): Promise<Outcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}${query}`, { headers });
    open.push(ws);
    ws.once('open', () => resolve({ opened: true, ws }));
    ws.once('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }));
    ws.once('error', () => resolve({ opened: false, status: undefined }));
  });
}

async function client(): Promise<WebSocket> {
  const out = await connect();
  if (!out.opened) throw new Error(`upgrade refused: ${out.status}`);
  return out.ws;
}

function nextFrame(ws: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
}

describe('ws transport: upgrade checks', () => {
  it.each([
    ['missing token', '', {}, '/ws', 401],
    ['wrong token', `?token=${'b'.repeat(64)}`, {}, '/ws', 401],
    ['token prefix only', `?token=${TOKEN.slice(0, 10)}`, {}, '/ws', 401],
    ['foreign origin', `?token=${TOKEN}`, { origin: 'http://evil.example' }, '/ws', 403],
    ['file origin', `?token=${TOKEN}`, { origin: 'null' }, '/ws', 403],
    ['other path', `?token=${TOKEN}`, {}, '/other', 404],
    ['foreign Host (DNS rebinding)', `?token=${TOKEN}`, { host: 'evil.example' }, '/ws', 421],
    ['foreign Host with its own origin', `?token=${TOKEN}`, { host: 'evil.example:80', origin: 'http://evil.example:80' }, '/ws', 421],
  ])('refuses %s', async (_name, query, headers, path, status) => {
    const out = await connect(query, headers, path);
    expect(out).toEqual({ opened: false, status });
    expect(transport.clientCount()).toBe(0);
  });

  it('accepts a good token without origin, and with our own origin', async () => {
    expect((await connect()).opened).toBe(true);
    expect((await connect(`?token=${TOKEN}`, { origin: `http://127.0.0.1:${port}` })).opened).toBe(true);
    expect(transport.clientCount()).toBe(2);
  });

  it.each([
    ['127.0.0.1', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['192.168.1.5', false],
    ['::ffff:10.0.0.1', false],
    [undefined, false],
  ])('loopback check %s → %s', (addr, ok) => {
    expect(isLoopbackAddress(addr)).toBe(ok);
  });

  it.each([
    [undefined, '127.0.0.1:5', true],
    ['http://127.0.0.1:5', '127.0.0.1:5', true],
    ['http://127.0.0.1:6', '127.0.0.1:5', false],
    ['https://127.0.0.1:5', '127.0.0.1:5', false],
    ['not a url', '127.0.0.1:5', false],
    ['http://127.0.0.1:5', undefined, false],
  ])('origin %s for host %s → %s', (origin, host, ok) => {
    expect(originAllowed(origin, host)).toBe(ok);
  });

  it.each([
    ['127.0.0.1:5', 5, true],
    ['localhost:5', 5, true],
    ['[::1]:5', 5, true],
    ['127.0.0.1:6', 5, false],
    ['evil.example:5', 5, false],
    ['127.0.0.1', 5, false],
    [undefined, 5, false],
    ['127.0.0.1:0', 0, false],
  ])('host %s on port %d → %s', (host, p, ok) => {
    expect(hostAllowed(host, p)).toBe(ok);
  });

  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'abcd', false],
    ['abc', null, false],
    ['', '', false],
  ])('token %s vs %s → %s', (expected, given, ok) => {
    expect(tokenMatches(expected, given)).toBe(ok);
  });
});

describe('ws transport: frames', () => {
  it('answers a request with its id and result, passing params through', async () => {
    const ws = await client();
    ws.send(JSON.stringify({ id: 7, method: 'app.info', params: { x: 1 } }));
    expect(await nextFrame(ws)).toEqual({ id: 7, result: { echo: { x: 1 } } });
    expect(gateway.calls).toEqual([{ method: 'app.info', params: { x: 1 } }]);
  });

  it('sends null results as null and defaults missing params to {}', async () => {
    const ws = await client();
    ws.send(JSON.stringify({ id: 'r', method: 'agent.result' }));
    expect(await nextFrame(ws)).toEqual({ id: 'r', result: null });
    expect(gateway.calls[0]?.params).toEqual({});
  });

  it.each([
    ['sessions.history', { code: 'not_found', message: 'no such session' }],
    ['nope', { code: 'unknown_method', message: 'unknown method: nope' }],
    ['models.list', { code: 'internal', message: 'disk on fire' }],
  ])('maps a rejection of %s to an error frame', async (method, error) => {
    const ws = await client();
    ws.send(JSON.stringify({ id: 1, method, params: {} }));
    expect(await nextFrame(ws)).toEqual({ id: 1, error });
  });

  it.each([
    ['not json', '{oops', null, 'invalid JSON'],
    ['array', '[1,2]', null, 'frame must be a JSON object'],
    ['no id', '{"method":"app.info"}', null, 'frame.id must be a non-empty string or a number'],
    ['no method', '{"id":3}', 3, 'frame.method must be a string'],
  ])('answers a malformed frame (%s) with bad_request and keeps the connection', async (_n, raw, id, message) => {
    const ws = await client();
    ws.send(raw);
    expect(await nextFrame(ws)).toEqual({ id, error: { code: 'bad_request', message } });
    ws.send(JSON.stringify({ id: 2, method: 'app.info', params: {} }));
    expect(await nextFrame(ws)).toEqual({ id: 2, result: { echo: {} } });
    expect(gateway.calls.length).toBe(1);
  });

  it('rejects binary frames', async () => {
    const ws = await client();
    ws.send(Buffer.from('{"id":1,"method":"app.info"}'), { binary: true });
    expect(await nextFrame(ws)).toEqual({ id: null, error: { code: 'bad_request', message: 'binary frames are not supported' } });
  });

  it('closes a client that sends more than maxPayload (1009) and keeps serving others', async () => {
    const big = await client();
    const other = await client();
    const closed = new Promise<number>((r) => big.once('close', (code) => r(code)));
    big.send(JSON.stringify({ id: 1, method: 'app.info', params: { pad: 'x'.repeat(5000) } }));
    expect(await closed).toBe(1009);
    other.send(JSON.stringify({ id: 1, method: 'app.info', params: {} }));
    expect(await nextFrame(other)).toEqual({ id: 1, result: { echo: {} } });
  });
});

describe('ws transport: events', () => {
  it('fans every event out to every connected client, in order', async () => {
    const a = await client();
    const b = await client();
    const got = (ws: WebSocket) =>
      new Promise<unknown[]>((resolve) => {
        const seen: unknown[] = [];
        ws.on('message', (d) => {
          seen.push(JSON.parse(String(d)));
          if (seen.length === 2) resolve(seen);
        });
      });
    const pa = got(a);
    const pb = got(b);
    gateway.emit(sampleEvent(0));
    gateway.emit(sampleEvent(1));
    const expected = [{ event: sampleEvent(0) }, { event: sampleEvent(1) }];
    expect(await pa).toEqual(expected);
    expect(await pb).toEqual(expected);
  });

  it('unsubscribes from the gateway and drops clients on close', async () => {
    const ws = await client();
    const closed = new Promise<void>((r) => ws.once('close', () => r()));
    expect(gateway.listeners.size).toBe(1);
    await transport.close();
    await closed;
    expect(gateway.listeners.size).toBe(0);
    expect(transport.clientCount()).toBe(0);
    // a second close (from afterEach) must not throw
  });
});
