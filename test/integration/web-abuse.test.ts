/**
 * The web transport under abuse: `node out/main/web.js` (what `npm run web` starts) gets, in three rounds, 1 000 bad
 * frames, oversized frames, wrong tokens, foreign origins and foreign Host headers (plain HTTP and WebSocket
 * upgrade — DNS-rebinding protection covers both). Every one is rejected, the server keeps serving a good client,
 * and its memory and open file descriptors stay flat (read from /proc; generous bounds).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ROOT, cleanEnv, ensureBuilt, tempDir } from '../support/cli.js';

const URL_LINE = /^AgentDesk web UI: http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64})$/;
const BAD_FRAMES = 1_000;
const ROUNDS = 3;

let child: ChildProcess;
let port: number;
let token: string;

beforeAll(async () => {
  await ensureBuilt();
  const home = await tempDir('web-home');
  const workspace = await tempDir('web-ws');
  child = spawn(process.execPath, [join(ROOT, 'out/main/web.js'), '--home', home, '--workspace', workspace, '--port', '0'], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web.js printed no URL; stderr: ${stderr}`)), 20_000);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      const m = URL_LINE.exec(line);
      if (!m) return reject(new Error(`unexpected first line: ${line}`));
      port = Number(m[1]);
      token = m[2]!;
      resolve();
    });
  });
}, 60_000);

afterAll(() => {
  child?.kill('SIGTERM');
});

/** Resident memory (bytes) and open descriptors of the server process. */
function usage(): { rss: number; fds: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return { rss: kb * 1024, fds: readdirSync(`/proc/${child.pid}/fd`).length };
}

type Upgrade = { status: number | 'open'; ws?: WebSocket };

function upgrade(opts: { token?: string; headers?: Record<string, string> } = {}): Promise<Upgrade> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${opts.token ?? token}`, { headers: opts.headers ?? {} });
    ws.once('open', () => resolve({ status: 'open', ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once('error', () => resolve({ status: 0 }));
  });
}

function httpGet(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function goodClient(): Promise<WebSocket> {
  const u = await upgrade();
  if (u.status !== 'open') throw new Error(`good client refused: ${u.status}`);
  return u.ws!;
}

/** Sends a request and waits for its answer. */
function call(ws: WebSocket, method: string): Promise<Record<string, unknown>> {
  const id = `r${Math.random().toString(36).slice(2)}`;
  return new Promise((resolve) => {
    const onMessage = (d: WebSocket.RawData) => {
      const frame = JSON.parse(String(d)) as Record<string, unknown>;
      if (frame.id !== id) return;
      ws.off('message', onMessage);
      resolve(frame);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, params: {} }));
  });
}

const badFrame = (i: number): string | Buffer => {
  switch (i % 8) {
    case 0:
      return '{not json';
    case 1:
      return '[1,2,3]';
    case 2:
      return JSON.stringify({ method: 'app.info' }); // no id
    case 3:
      return JSON.stringify({ id: 'x'.repeat(500), method: 'app.info' }); // id too long
    case 4:
      return JSON.stringify({ id: i, method: 'no.such.method' });
    case 5:
      return JSON.stringify({ id: i, method: 'agent', params: { message: 42 } }); // invalid params
    case 6:
      return Buffer.from([0xde, 0xad, 0xbe, 0xef]); // binary
    default:
      return 'null';
  }
};

/** One round of every kind of abuse; returns what each attempt got. */
async function abuseRound() {
  // 1 000 bad frames on one authenticated connection: each answered with an error frame, none with a result.
  const ws = await goodClient();
  const replies: Record<string, unknown>[] = [];
  const all = new Promise<void>((resolve) => {
    ws.on('message', (d) => {
      replies.push(JSON.parse(String(d)) as Record<string, unknown>);
      if (replies.length === BAD_FRAMES) resolve();
    });
  });
  for (let i = 0; i < BAD_FRAMES; i++) {
    const f = badFrame(i);
    ws.send(f, { binary: Buffer.isBuffer(f) });
  }
  await all;
  ws.close();

  // Oversized frames (2 MiB > the 1 MiB cap): the connection is closed with 1009 "message too big".
  const oversized = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const big = await goodClient();
      const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
      big.send(JSON.stringify({ id: 1, method: 'app.info', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
      return closed;
    }),
  );

  const many = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));
  const wrongTokens = await many(50, (i) => upgrade({ token: i % 2 ? 'f'.repeat(64) : token.slice(0, 63) + (token.endsWith('0') ? '1' : '0') }));
  const noToken = await many(10, () => upgrade({ token: '' }));
  const foreignOrigins = await many(30, (i) => upgrade({ headers: { origin: ['http://evil.example', 'null', `https://127.0.0.1:${port}`][i % 3]! } }));
  const foreignHostsWs = await many(30, (i) =>
    upgrade({ headers: { host: ['evil.example', `evil.example:${port}`, `127.0.0.1.nip.io:${port}`][i % 3]!, ...(i % 2 ? { origin: 'http://evil.example' } : {}) } }),
  );
  const foreignHostsHttp = await many(30, (i) => httpGet(['evil.example', `evil.example:${port}`, `localhost.evil:${port}`][i % 3]!));
  return { replies, oversized, wrongTokens, noToken, foreignOrigins, foreignHostsWs, foreignHostsHttp };
}

describe('npm run web under abuse', () => {
  it('rejects every bad frame, token, origin and Host, keeps serving, memory and descriptors flat', async () => {
    const samples: { rss: number; fds: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const r = await abuseRound();
      expect(r.replies).toHaveLength(BAD_FRAMES);
      for (const reply of r.replies) {
        expect(reply).not.toHaveProperty('result');
        expect(reply.error).toMatchObject({ code: expect.stringMatching(/^(bad_request|unknown_method|invalid_params|not_found)$/) });
      }
      expect(r.oversized).toEqual(Array(5).fill(1009));
      expect(new Set([...r.wrongTokens, ...r.noToken].map((u) => u.status))).toEqual(new Set([401]));
      expect(new Set(r.foreignOrigins.map((u) => u.status))).toEqual(new Set([403]));
      expect(new Set(r.foreignHostsWs.map((u) => u.status))).toEqual(new Set([421]));
      expect(new Set(r.foreignHostsHttp)).toEqual(new Set([421]));

      // Still serving: a good client gets an answer, the page loads under both loopback names.
      const ws = await goodClient();
      expect(await call(ws, 'app.info')).toMatchObject({ result: { version: expect.any(String) } });
      ws.close();
      expect(await httpGet(`127.0.0.1:${port}`)).toBe(200);
      expect(await httpGet(`localhost:${port}`)).toBe(200);
      await new Promise((r) => setTimeout(r, 100)); // let closed sockets go
      samples.push(usage());
    }
    // Flat: after the first (warm-up) round, two more rounds grow RSS by less than 40 MiB and leave no sockets.
    const [first, , last] = samples as [{ rss: number; fds: number }, unknown, { rss: number; fds: number }];
    console.log(`web abuse: RSS after round 1 ${(first.rss / 2 ** 20).toFixed(1)} MiB, after round ${ROUNDS} ${(last.rss / 2 ** 20).toFixed(1)} MiB; fds ${first.fds} → ${last.fds}`);
    expect(last.rss - first.rss).toBeLessThan(40 * 2 ** 20);
    expect(last.fds).toBeLessThanOrEqual(first.fds + 2);
  }, 120_000);
});
