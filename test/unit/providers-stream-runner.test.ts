import { describe, expect, it } from 'vitest';
import { AbortError, IdleTimeoutError, StreamTruncatedError } from '../../main/providers/errors.js';
import type { Timers } from '../../main/providers/idle-timeout.js';
import { runConverterStream, runProviderStream, type ConverterBody, type DoneReason, type StreamBody, type StreamContext } from '../../main/providers/stream-runner.js';
import type { ModelDef, ProviderEvent, StreamRequest } from '../../main/providers/types.js';

/** Manual timers: nothing fires until `advance`. */
class ManualTimers implements Timers {
  now = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  clock(): number {
    return this.now;
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.pending].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= this.now && this.pending.has(id)) {
        this.pending.delete(id);
        t.fn();
      }
    }
  }
}

const flush = () => new Promise<void>((r) => setImmediate(r));

const model: ModelDef = { provider: 'p', id: 'm', api: 'anthropic', contextWindow: 1000, maxTokens: 100, reasoning: false };

function request(signal = new AbortController().signal, idleTimeoutMs = 30_000): StreamRequest {
  return { model, apiKey: 'k', systemPrompt: '', messages: [], tools: [], thinking: 'off', signal, idleTimeoutMs };
}

async function collect(it: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** An SDK-like stream that yields the given items, then waits forever (until `end`). */
function stallingSource<T>(items: T[]) {
  let release: () => void = () => undefined;
  const source = {
    async *[Symbol.asyncIterator]() {
      for (const i of items) yield i;
      await new Promise<void>((r) => (release = r));
    },
  };
  return { source, end: () => release() };
}

const terminals = (events: ProviderEvent[]) => events.filter((e) => e.type === 'done' || e.type === 'error');

describe('runProviderStream', () => {
  it('ends a successful body with one done event carrying the assembled message', async () => {
    const body: StreamBody = async function* (ctx) {
      yield ctx.builder.appendText('0', 'Hel')!;
      yield ctx.builder.appendText('0', 'lo')!;
      return 'stop';
    };
    const events = await collect(runProviderStream(request(), body, { now: () => 42 }));
    expect(events.map((e) => e.type)).toEqual(['text_delta', 'text_delta', 'done']);
    const done = events[2]!;
    if (done.type !== 'done') throw new Error('expected done');
    expect(done.stopReason).toBe('stop');
    expect(done.message).toMatchObject({ content: [{ type: 'text', text: 'Hello' }], stopReason: 'stop', timestamp: 42, provider: 'p', model: 'm' });
  });

  it('turns a throw into exactly one error event with the partial message', async () => {
    const body: StreamBody = async function* (ctx) {
      yield ctx.builder.appendText('0', 'partial')!;
      throw new StreamTruncatedError('stream ended before message_stop');
    };
    const events = await collect(runProviderStream(request(), body));
    expect(terminals(events)).toHaveLength(1);
    const last = events.at(-1)!;
    if (last.type !== 'error') throw new Error('expected error');
    expect(last.error).toBeInstanceOf(StreamTruncatedError);
    expect(last.message.stopReason).toBe('error');
    expect(last.message.errorMessage).toBe('stream ended before message_stop');
    expect(last.message.content).toEqual([{ type: 'text', text: 'partial' }]);
  });

  it('fires the idle watchdog on a stall, aborts the HTTP signal and ends with IdleTimeoutError', async () => {
    const timers = new ManualTimers();
    const { source } = stallingSource(['a']);
    let httpSignal: AbortSignal | undefined;
    const body: StreamBody = async function* (ctx) {
      httpSignal = ctx.signal;
      for await (const chunk of ctx.events(source)) yield ctx.builder.appendText('0', chunk)!;
      return 'stop';
    };
    const done = collect(runProviderStream(request(undefined, 30_000), body, { timers }));
    await flush();
    timers.advance(29_999);
    await flush();
    expect(httpSignal!.aborted).toBe(false);
    timers.advance(1);
    const events = await done;
    const last = events.at(-1)!;
    if (last.type !== 'error') throw new Error('expected error');
    expect(last.error).toBeInstanceOf(IdleTimeoutError);
    expect((last.error as Error).name).toBe('IdleTimeoutError');
    expect(last.message.errorMessage).toBe('No data from the provider for 30s');
    expect(last.message.stopReason).toBe('error');
    expect(last.message.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(httpSignal!.aborted).toBe(true);
  });

  it('restarts the countdown on every event', async () => {
    const timers = new ManualTimers();
    let push: (v: IteratorResult<string>) => void = () => undefined;
    const source: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<string>>((r) => (push = r)) }),
    };
    const body: StreamBody = async function* (ctx) {
      for await (const chunk of ctx.events(source)) yield ctx.builder.appendText('0', chunk)!;
      return 'stop';
    };
    const done = collect(runProviderStream(request(undefined, 100), body, { timers }));
    for (let i = 0; i < 5; i++) {
      await flush();
      timers.advance(90);
      push({ value: 'x', done: false });
    }
    await flush();
    push({ value: undefined, done: true });
    const events = await done;
    expect(events.at(-1)).toMatchObject({ type: 'done', message: { content: [{ type: 'text', text: 'xxxxx' }] } });
  });

  it('does not count time while the consumer holds an event', async () => {
    const timers = new ManualTimers();
    const source = { async *[Symbol.asyncIterator]() { yield 'a'; yield 'b'; } };
    const body: StreamBody = async function* (ctx) {
      for await (const chunk of ctx.events(source)) yield ctx.builder.appendText('0', chunk)!;
      return 'stop';
    };
    const out: ProviderEvent[] = [];
    for await (const e of runProviderStream(request(undefined, 100), body, { timers })) {
      out.push(e);
      timers.advance(1_000); // a slow consumer
    }
    expect(out.at(-1)!.type).toBe('done');
  });

  it('ends with stopReason aborted and an AbortError when the caller aborts mid-stream', async () => {
    const ac = new AbortController();
    const { source } = stallingSource(['a']);
    let httpSignal: AbortSignal | undefined;
    const body: StreamBody = async function* (ctx) {
      httpSignal = ctx.signal;
      for await (const chunk of ctx.events(source)) yield ctx.builder.appendText('0', chunk)!;
      return 'stop';
    };
    const events: ProviderEvent[] = [];
    for await (const e of runProviderStream(request(ac.signal), body, { timers: new ManualTimers() })) {
      events.push(e);
      if (e.type === 'text_delta') ac.abort();
    }
    expect(terminals(events)).toHaveLength(1);
    const last = events.at(-1)!;
    if (last.type !== 'error') throw new Error('expected error');
    expect(last.error).toBeInstanceOf(AbortError);
    expect((last.error as Error).name).toBe('AbortError');
    expect(last.message.stopReason).toBe('aborted');
    expect(last.message.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(httpSignal!.aborted).toBe(true);
  });

  it('reports aborted when the SDK swallows the abort and ends iteration quietly', async () => {
    const ac = new AbortController();
    const body: StreamBody = async function* (ctx: StreamContext) {
      yield ctx.builder.appendText('0', 'a')!;
      ac.abort();
      return 'stop'; // like an SDK stream that returns on AbortError
    };
    const events = await collect(runProviderStream(request(ac.signal), body));
    expect(events.at(-1)).toMatchObject({ type: 'error', message: { stopReason: 'aborted' } });
  });

  it('does not start the body when the signal is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    let started = false;
    const body: StreamBody = async function* () {
      started = true;
      return 'stop';
    };
    const events = await collect(runProviderStream(request(ac.signal), body));
    expect(started).toBe(false);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', message: { stopReason: 'aborted', content: [] } });
  });

  it('aborts the HTTP request and runs the body cleanup when the consumer stops early', async () => {
    let httpSignal: AbortSignal | undefined;
    let cleaned = false;
    const body: StreamBody = async function* (ctx) {
      httpSignal = ctx.signal;
      try {
        yield ctx.builder.appendText('0', 'a')!;
        yield ctx.builder.appendText('0', 'b')!;
        return 'stop';
      } finally {
        cleaned = true;
      }
    };
    for await (const e of runProviderStream(request(), body)) {
      if (e.type === 'text_delta') break;
    }
    await flush();
    expect(httpSignal!.aborted).toBe(true);
    expect(cleaned).toBe(true);
  });
});

/**
 * runConverterStream against runProviderStream: an SDK-like source of simple events, converted by a converter
 * body and by the equivalent generator body, must give the same events in every case (faults included).
 */
describe('runConverterStream: same events as the generator runner', () => {
  type Sdk = { t: 'text'; s: string } | { t: 'tool'; id: string; name: string; json: string } | { t: 'burst'; s: string[] } | { t: 'stop' } | { t: 'throw' };
  const convertOne = (ctx: StreamContext, ev: Sdk, out: ProviderEvent[]): boolean => {
    const b = ctx.builder;
    if (ev.t === 'text') {
      const e = b.appendText('0', ev.s);
      if (e) out.push(e);
    } else if (ev.t === 'burst') {
      for (const s of ev.s) {
        const e = b.appendText('0', s);
        if (e) out.push(e);
      }
    } else if (ev.t === 'tool') {
      const { index, event } = b.startToolCall(ev.id, ev.name);
      out.push(event);
      const d = b.appendToolArgs(index, ev.json);
      if (d) out.push(d);
    } else if (ev.t === 'throw') throw new Error('converter failed');
    return ev.t === 'stop';
  };
  const finishOne = (ctx: StreamContext, stopped: boolean, out: ProviderEvent[]): DoneReason => {
    if (!stopped) throw new StreamTruncatedError('ended before stop');
    for (const e of ctx.builder.endOpenToolCalls()) out.push(e);
    return ctx.builder.snapshot('stop').content.some((b) => b.type === 'toolCall') ? 'toolUse' : 'stop';
  };
  /** A source that yields `items`, then optionally fails, or stalls (never settles) when `stall`. */
  const sdkSource = (items: Sdk[], end: 'end' | 'error' | 'stall') => ({
    async *[Symbol.asyncIterator]() {
      for (const i of items) yield i;
      if (end === 'error') throw new Error('connection reset');
      if (end === 'stall') await new Promise(() => undefined);
    },
  });
  const generatorBody = (items: Sdk[], end: 'end' | 'error' | 'stall'): StreamBody =>
    async function* (ctx) {
      const source = await ctx.watch(Promise.resolve(sdkSource(items, end)));
      let stopped = false;
      const out: ProviderEvent[] = [];
      for await (const ev of ctx.events(source)) {
        stopped = convertOne(ctx, ev, out);
        yield* out.splice(0);
        if (stopped) break;
      }
      const reason = finishOne(ctx, stopped, out);
      yield* out;
      return reason;
    };
  const converterBody = (items: Sdk[], end: 'end' | 'error' | 'stall'): ConverterBody => (ctx) => {
    let stopped = false;
    return {
      open: () => ctx.watch(Promise.resolve(sdkSource(items, end))),
      convert: (ev, out) => (stopped = convertOne(ctx, ev as Sdk, out)),
      finish: (out) => finishOne(ctx, stopped, out),
    };
  };
  /** Comparable form: errors by name and message. */
  const plain = (events: ProviderEvent[]) =>
    events.map((e) => (e.type === 'error' ? { ...e, error: `${(e.error as Error).name}: ${(e.error as Error).message}` } : e));

  it.each<[string, Sdk[], 'end' | 'error' | 'stall']>([
    ['text then stop', [{ t: 'text', s: 'Hel' }, { t: 'text', s: '' }, { t: 'text', s: 'lo' }, { t: 'stop' }], 'end'],
    ['several events from one SDK event', [{ t: 'burst', s: ['a', 'b', 'c'] }, { t: 'stop' }], 'end'],
    ['events after the terminal SDK event are not read', [{ t: 'text', s: 'a' }, { t: 'stop' }, { t: 'text', s: 'never' }], 'end'],
    ['a tool call, then stop', [{ t: 'text', s: 'Let me see.' }, { t: 'tool', id: 'c1', name: 'read', json: '{"path":"a"}' }, { t: 'stop' }], 'end'],
    ['a tool call left open at the end', [{ t: 'tool', id: 'c1', name: 'read', json: '{"path":' }, { t: 'stop' }], 'end'],
    ['EOF without stop', [{ t: 'text', s: 'partial' }], 'end'],
    ['nothing at all', [], 'end'],
    ['connection reset mid-stream', [{ t: 'text', s: 'par' }, { t: 'text', s: 'tial' }], 'error'],
    ['the converter throws', [{ t: 'text', s: 'a' }, { t: 'throw' }], 'end'],
    ['the source stalls until the idle timeout', [{ t: 'text', s: 'a' }], 'stall'],
  ])('%s', async (_name, items, end) => {
    const run = async (make: (timers: ManualTimers) => AsyncIterable<ProviderEvent>) => {
      const timers = new ManualTimers();
      const events: ProviderEvent[] = [];
      const it = make(timers)[Symbol.asyncIterator]();
      for (;;) {
        const next = it.next();
        // A stalled step: let the watchdog fire.
        const r = await Promise.race([next, flush().then(() => flush()).then(() => undefined)]);
        if (r === undefined) {
          timers.advance(200);
          const settled = await next;
          if (settled.done) break;
          events.push(settled.value);
          continue;
        }
        if (r.done) break;
        events.push(r.value);
      }
      return events;
    };
    const viaGenerator = await run((timers) => runProviderStream(request(undefined, 100), generatorBody(items, end), { timers, now: () => 7 }));
    const viaConverter = await run((timers) => runConverterStream(request(undefined, 100), converterBody(items, end), { timers, now: () => 7 }));
    expect(plain(viaConverter)).toEqual(plain(viaGenerator));
    expect(terminals(viaConverter)).toHaveLength(1);
    const completes = end === 'end' && items.some((i) => i.t === 'stop') && !items.some((i) => i.t === 'throw');
    expect(viaConverter.at(-1)!.type).toBe(completes ? 'done' : 'error');
    if (end === 'stall') expect((viaConverter.at(-1) as { error: unknown }).error).toBeInstanceOf(IdleTimeoutError);
  });

  it('a caller abort mid-stream ends with aborted, like the generator runner', async () => {
    const results: ProviderEvent[][] = [];
    for (const make of [
      (s: AbortSignal) => runProviderStream(request(s), generatorBody([{ t: 'text', s: 'a' }], 'stall'), { timers: new ManualTimers(), now: () => 7 }),
      (s: AbortSignal) => runConverterStream(request(s), converterBody([{ t: 'text', s: 'a' }], 'stall'), { timers: new ManualTimers(), now: () => 7 }),
    ]) {
      const ac = new AbortController();
      const events: ProviderEvent[] = [];
      for await (const e of make(ac.signal)) {
        events.push(e);
        if (e.type === 'text_delta') ac.abort();
      }
      results.push(plain(events));
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[1]!.at(-1)).toMatchObject({ type: 'error', message: { stopReason: 'aborted' } });
  });

  it('does not open the request when the signal is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    let opened = false;
    const body: ConverterBody = () => ({
      open: async () => {
        opened = true;
        return sdkSource([], 'end');
      },
      convert: () => false,
      finish: () => 'stop',
    });
    const events = await collect(runConverterStream(request(ac.signal), body));
    expect(opened).toBe(false);
    expect(events).toEqual([expect.objectContaining({ type: 'error', message: expect.objectContaining({ stopReason: 'aborted', content: [] }) })]);
  });

  it('a failed request (before any event) is one error event', async () => {
    const body: ConverterBody = () => ({
      open: () => Promise.reject(new Error('401 invalid x-api-key')),
      convert: () => false,
      finish: () => 'stop',
    });
    const events = await collect(runConverterStream(request(), body));
    expect(plain(events)).toEqual([expect.objectContaining({ type: 'error', error: 'Error: 401 invalid x-api-key' })]);
  });

  it('aborts the HTTP request and ends the SDK stream when the consumer stops early', async () => {
    let httpSignal: AbortSignal | undefined;
    let ended = false;
    const source = {
      async *[Symbol.asyncIterator]() {
        try {
          yield { t: 'text', s: 'a' } as Sdk;
          yield { t: 'text', s: 'b' } as Sdk;
        } finally {
          ended = true;
        }
      },
    };
    const body: ConverterBody = (ctx) => {
      httpSignal = ctx.signal;
      return { open: async () => source, convert: (ev, out) => convertOne(ctx, ev as Sdk, out), finish: () => 'stop' };
    };
    for await (const e of runConverterStream(request(), body)) {
      if (e.type === 'text_delta') break;
    }
    await flush();
    expect(httpSignal!.aborted).toBe(true);
    expect(ended).toBe(true);
  });
});
