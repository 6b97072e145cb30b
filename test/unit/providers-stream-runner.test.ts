import { describe, expect, it } from 'vitest';
import { AbortError, IdleTimeoutError, StreamTruncatedError } from '../../main/providers/errors.js';
import type { Timers } from '../../main/providers/idle-timeout.js';
import { runProviderStream, type StreamBody, type StreamContext } from '../../main/providers/stream-runner.js';
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
