/**
 * The shared node:http server behind both fakes: records requests, picks the next scripted turn (FIFO queue,
 * then the default), and plays it — a success stream or JSON body, or one of the faults.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isOpen, sleep, writeFlushed } from './sse.js';
import { isSummaryRequest, lastUserText } from './scenario.js';
import { promptTokens } from './turn.js';
import type { ApiAdapter, FakeFault, FakeProvider, FakeStep, FakeTurn, HttpFault, HttpReply, OverflowStyle, RecordedRequest, TurnIds } from './types.js';

const HTTP_FAULTS = new Set<FakeFault['kind']>([
  'http',
  'rate_limit',
  'overloaded',
  'server_error',
  'unavailable_html',
  'auth',
  'billing',
  'context_overflow',
  'not_found',
]);
const isHttpFault = (f: FakeFault): f is HttpFault => HTTP_FAULTS.has(f.kind);

export const DEFAULT_TURN: FakeTurn = { text: 'Hello from the fake server.' };

/** The default answer to a compaction summary request. */
const defaultSummary = (req: RecordedRequest): FakeTurn => ({
  text: `Summary (fake): the user and the assistant talked; ${lastUserText(req).length} characters were summarised.`,
});

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: HttpReply, extra: Record<string, string>): void {
  if (!isOpen(res)) return;
  res.writeHead(reply.status, { ...extra, ...reply.headers });
  res.end(reply.body);
}

export async function startFake(adapter: ApiAdapter, port = 0): Promise<FakeProvider> {
  const sockets = new Set<Socket>();
  const requests: RecordedRequest[] = [];
  const queue: FakeStep[] = [];
  let fallback: FakeStep = DEFAULT_TURN;
  let summaryStep: FakeStep = defaultSummary;
  let contextWindow: number | null = null;
  let overflowStyle: OverflowStyle = 'native';
  const promptSizes: number[] = [];
  let seq = 0;

  const idsFor = (n: number): TurnIds => {
    const tag = n.toString(36).padStart(4, '0');
    return {
      seq: n,
      requestId: `req_fake${tag}`,
      messageId: adapter.api === 'anthropic' ? `msg_fake${tag}` : `chatcmpl-fake${tag}`,
      toolCallId: (i) => (adapter.api === 'anthropic' ? `toolu_fake${tag}_${i}` : `call_fake${tag}_${i}`),
    };
  };

  async function playStream(res: ServerResponse, turn: FakeTurn, rec: RecordedRequest, ids: TurnIds, common: Record<string, string>) {
    const frames = adapter.streamFrames(turn, rec, ids);
    const fault = turn.fault;
    res.writeHead(200, {
      ...common,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    if (turn.firstByteMs) await sleep(turn.firstByteMs);
    const limit = fault && 'afterEvents' in fault ? Math.max(0, fault.afterEvents) : frames.length;
    for (let i = 0; i < Math.min(limit, frames.length); i++) {
      if (i > 0 && turn.delayMs) await sleep(turn.delayMs);
      if (!(await writeFlushed(res, frames[i]!))) return;
    }
    if (fault?.kind === 'drop') {
      await new Promise((r) => setImmediate(r));
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'stall') return; // stays open; close() destroys it
    if (fault?.kind === 'stream_error') {
      if (turn.delayMs) await sleep(turn.delayMs);
      await writeFlushed(res, adapter.streamErrorFrame(fault, rec));
    }
    if (isOpen(res)) res.end(); // normal end, or 'eof' after N events
  }

  async function playJson(res: ServerResponse, turn: FakeTurn, rec: RecordedRequest, ids: TurnIds, common: Record<string, string>) {
    const fault = turn.fault;
    if (fault?.kind === 'drop') return void res.socket?.destroy();
    if (fault?.kind === 'stall') return;
    if (fault?.kind === 'stream_error') {
      // A non-streaming call cannot fail mid-body: answer the same error as an HTTP error instead.
      const status = fault.errorType === 'overloaded_error' ? 529 : 500;
      const reply = adapter.plainError(status, fault.errorType ?? 'api_error', fault.message ?? 'Internal server error', ids);
      return send(res, reply, common);
    }
    const body = JSON.stringify(adapter.jsonBody(turn, rec, ids));
    if (turn.firstByteMs) await sleep(turn.firstByteMs);
    res.writeHead(200, { ...common, 'content-type': 'application/json' });
    if (fault?.kind === 'eof') res.end(body.slice(0, Math.floor(body.length / 2)));
    else res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const ids = idsFor(++seq);
    const common = { [adapter.requestIdHeader]: ids.requestId };
    let body: unknown = undefined;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      const reply = adapter.plainError(400, 'invalid_request_error', 'There was an error parsing the JSON body of your request.', ids);
      return send(res, reply, common);
    }
    const rec: RecordedRequest = { path, headers: { ...req.headers }, body, at };
    const side = adapter.sideEndpoint(method, path, rec);
    if (side) return send(res, side, common);
    if (!adapter.isModelCall(method, path)) {
      return send(res, { status: 404, headers: { 'content-type': 'text/plain' }, body: `Not found: ${method} ${path}` }, common);
    }
    requests.push(rec);
    if (!adapter.apiKey(rec)) return send(res, adapter.httpError({ kind: 'auth' }, rec, ids), common);
    const size = promptTokens(rec);
    promptSizes.push(size);
    if (contextWindow !== null && size > contextWindow) {
      const reply =
        overflowStyle === 'kimi'
          ? adapter.plainError(
              400,
              'invalid_request_error',
              `Invalid request: Your request exceeded model token limit: ${contextWindow} (requested: ${size})`,
              ids,
            )
          : (adapter.overflowReply?.(size, contextWindow, ids) ??
            adapter.plainError(400, 'invalid_request_error', `prompt is too long: ${size} tokens > ${contextWindow} maximum`, ids));
      return send(res, reply, common);
    }
    const step = isSummaryRequest(rec) ? summaryStep : queue.length > 0 ? queue.shift()! : fallback;
    const turn = typeof step === 'function' ? step(rec) : step;
    const fault = turn.fault;
    if (fault?.kind === 'reset') return void req.socket.destroy();
    if (fault?.kind === 'hang') return; // never answer; close() destroys the socket
    if (fault && isHttpFault(fault)) return send(res, adapter.httpError(fault, rec, ids), common);
    if (rec.body?.stream === true) await playStream(res, turn, rec, ids, common);
    else await playJson(res, turn, rec, ids, common);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A scenario function threw: answer 500 so the test sees it instead of a hang.
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) send(res, { status: 500, headers: { 'content-type': 'text/plain' }, body: `fake server error: ${message}` }, {});
      else res.socket?.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;

  return {
    api: adapter.api,
    baseUrl: `http://127.0.0.1:${bound}${adapter.basePath}`,
    requests,
    enqueue: (...steps) => void queue.push(...steps),
    setDefault: (step) => void (fallback = step),
    setContextWindow: (tokens, style = 'native') => {
      contextWindow = tokens;
      overflowStyle = style;
    },
    promptSizes,
    setSummary: (step) => void (summaryStep = step),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
