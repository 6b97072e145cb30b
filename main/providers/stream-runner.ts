/**
 * The shared shell of every StreamFn: it owns the HTTP AbortController, the idle watchdog and the assistant
 * builder, and guarantees the contract of types.ts — the stream never throws and ends with exactly one `done` or
 * one `error` event carrying the message as far as it got.
 *
 * A provider body is an async generator that yields the non-terminal events and returns the stop reason; it
 * throws on any failure (including "stream ended before the terminal event"). A body may instead be a
 * StreamConverter: the runner then iterates the SDK stream itself and the body converts each SDK event
 * synchronously — the same events, one async step per streamed event less than a generator body.
 */
import type { StopReason } from '../engine/messages.js';
import { AssistantBuilder } from './assistant-builder.js';
import { AbortError, describeError } from './errors.js';
import { IdleWatchdog, realTimers, type Timers } from './idle-timeout.js';
import type { ProviderEvent, StreamRequest } from './types.js';

export type DoneReason = Exclude<StopReason, 'error' | 'aborted'>;

export interface StreamContext {
  builder: AssistantBuilder;
  /** Pass to the SDK: fires on the caller's abort and on an idle timeout. */
  signal: AbortSignal;
  /** Awaits a promise (e.g. the request until headers) under the watchdog and the caller's signal. */
  watch<T>(p: Promise<T>): Promise<T>;
  /** Iterates an SDK stream under the watchdog and the caller's signal. */
  events<T>(source: AsyncIterable<T>): AsyncIterable<T>;
}

/** A provider body that converts SDK events one at a time (see above). */
export interface StreamConverter<S> {
  readonly kind: 'converter';
  /** Sends the request; resolves with the SDK's event stream (await it under `ctx.watch`). */
  open(): Promise<AsyncIterable<S>>;
  /** Appends the engine events for one SDK event to `out`; true when it was the terminal one (stop reading). */
  convert(event: S, out: ProviderEvent[]): boolean;
  /** The stream is over: appends any last events, returns the stop reason; throws if it ended too early. */
  finish(out: ProviderEvent[]): DoneReason;
}

export type StreamBody = (ctx: StreamContext) => AsyncGenerator<ProviderEvent, DoneReason, undefined>;
export type ConverterBody = (ctx: StreamContext) => StreamConverter<unknown>;

type Made = AsyncGenerator<ProviderEvent, DoneReason, undefined> | StreamConverter<unknown>;
const isConverter = (b: Made): b is StreamConverter<unknown> => (b as StreamConverter<unknown>).kind === 'converter';

export interface RunnerOptions {
  now?: () => number;
  timers?: Timers;
}

export async function* runProviderStream(
  req: StreamRequest,
  body: StreamBody | ConverterBody,
  opts: RunnerOptions = {},
): AsyncGenerator<ProviderEvent, void, undefined> {
  const builder = new AssistantBuilder(req.model, opts.now);
  const http = new AbortController();
  const onCallerAbort = () => http.abort(req.signal.reason);
  req.signal.addEventListener('abort', onCallerAbort, { once: true });
  const dog = new IdleWatchdog(req.idleTimeoutMs, req.signal, (err) => http.abort(err), opts.timers ?? realTimers);
  const ctx: StreamContext = {
    builder,
    signal: http.signal,
    watch: (p) => dog.race(p),
    events: (source) => dog.watch(source),
  };

  let terminal: ProviderEvent;
  let inner: AsyncGenerator<ProviderEvent, DoneReason, undefined> | undefined;
  try {
    if (req.signal.aborted) throw new AbortError(undefined, { cause: req.signal.reason });
    const made: Made = body(ctx);
    let reason: DoneReason;
    if (isConverter(made)) {
      const out: ProviderEvent[] = [];
      for await (const event of ctx.events(await made.open())) {
        const last = made.convert(event, out);
        for (let i = 0; i < out.length; i++) yield out[i]!;
        out.length = 0;
        if (last) break;
      }
      reason = made.finish(out);
      for (const e of out) yield e;
    } else {
      inner = made;
      // Delegation rather than a next()/yield loop: one await less per streamed event.
      reason = yield* inner;
    }
    // The SDKs end iteration silently when their signal aborts: check why the body ended.
    const failed = dog.fired ?? (req.signal.aborted ? new AbortError(undefined, { cause: req.signal.reason }) : undefined);
    if (failed) throw failed;
    terminal = { type: 'done', stopReason: reason, message: builder.snapshot(reason) };
  } catch (e) {
    terminal = errorTerminal(e, builder, dog, req.signal);
  } finally {
    // Runs also when the consumer stops iterating early: end the body and the HTTP request with it.
    if (inner) void inner.return('stop').catch(() => undefined);
    dog.stop();
    req.signal.removeEventListener('abort', onCallerAbort);
    if (!http.signal.aborted) http.abort();
  }
  yield terminal;
}

function errorTerminal(e: unknown, builder: AssistantBuilder, dog: IdleWatchdog, signal: AbortSignal): ProviderEvent {
  let error: unknown = e;
  let stopReason: StopReason = 'error';
  if (dog.fired) {
    error = dog.fired;
  } else if (signal.aborted) {
    stopReason = 'aborted';
    error = e instanceof AbortError ? e : new AbortError(undefined, { cause: signal.reason });
  }
  return { type: 'error', error, message: builder.snapshot(stopReason, describeError(error)) };
}
