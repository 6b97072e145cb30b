/**
 * The shared shell of every StreamFn: it owns the HTTP AbortController, the idle watchdog and the assistant
 * builder, and guarantees the contract of types.ts — the stream never throws and ends with exactly one `done` or
 * one `error` event carrying the message as far as it got.
 *
 * A provider body is an async generator that yields the non-terminal events and returns the stop reason; it
 * throws on any failure (including "stream ended before the terminal event"). A body may instead be a
 * StreamConverter (run by `runConverterStream`): the runner then iterates the SDK stream itself and the body
 * converts each SDK event synchronously — the same events, without a generator's async steps per event.
 */
import type { StopReason } from '../engine/messages.js';
import { AssistantBuilder } from './assistant-builder.js';
import { EventQueue } from './event-queue.js';
import { AbortError, describeError } from './errors.js';
import { secretRedactor } from '../auth/redact.js';
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
  /** Sends the request; resolves with the SDK's event stream (await it under `ctx.watch`). */
  open(): Promise<AsyncIterable<S>>;
  /** Appends the engine events for one SDK event to `out`; true when it was the terminal one (stop reading). */
  convert(event: S, out: ProviderEvent[]): boolean;
  /** The stream is over: appends any last events, returns the stop reason; throws if it ended too early. */
  finish(out: ProviderEvent[]): DoneReason;
}

export type StreamBody = (ctx: StreamContext) => AsyncGenerator<ProviderEvent, DoneReason, undefined>;
export type ConverterBody = (ctx: StreamContext) => StreamConverter<unknown>;


export interface RunnerOptions {
  now?: () => number;
  timers?: Timers;
}

interface Run {
  builder: AssistantBuilder;
  dog: IdleWatchdog;
  ctx: StreamContext;
  /** Ends the watchdog, the abort forwarding and the HTTP request (idempotent). */
  cleanup(): void;
}

function startRun(req: StreamRequest, opts: RunnerOptions): Run {
  secretRedactor.add(req.apiKey); // X5: a provider that quotes this key back in an error does not get it stored
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
  const cleanup = () => {
    dog.stop();
    req.signal.removeEventListener('abort', onCallerAbort);
    if (!http.signal.aborted) http.abort();
  };
  return { builder, dog, ctx, cleanup };
}

/** Why a stream that ended without an error still failed: the SDKs end iteration silently when their signal aborts. */
const silentFailure = (run: Run, signal: AbortSignal): Error | undefined =>
  run.dog.fired ?? (signal.aborted ? new AbortError(undefined, { cause: signal.reason }) : undefined);

export async function* runProviderStream(
  req: StreamRequest,
  body: StreamBody,
  opts: RunnerOptions = {},
): AsyncGenerator<ProviderEvent, void, undefined> {
  const run = startRun(req, opts);
  let terminal: ProviderEvent;
  let inner: AsyncGenerator<ProviderEvent, DoneReason, undefined> | undefined;
  try {
    if (req.signal.aborted) throw new AbortError(undefined, { cause: req.signal.reason });
    inner = body(run.ctx);
    // Delegation rather than a next()/yield loop: one await less per streamed event.
    const reason = yield* inner;
    const failed = silentFailure(run, req.signal);
    if (failed) throw failed;
    terminal = { type: 'done', stopReason: reason, message: run.builder.snapshot(reason) };
  } catch (e) {
    terminal = errorTerminal(e, run.builder, run.dog, req.signal);
  } finally {
    // Runs also when the consumer stops iterating early: end the body and the HTTP request with it.
    if (inner) void inner.return('stop').catch(() => undefined);
    run.cleanup();
  }
  yield terminal;
}

/**
 * The runner for a converter body, with the same contract and the same events as `runProviderStream` would give
 * for the equivalent generator body. A plain iterator rather than an async generator: each streamed event costs
 * the watchdog's step and one `then`, not a generator's promises on top (which doubled the engine's allocation
 * per delta). `next` must not be called again before the previous call settled (for-await never does).
 */
export function runConverterStream(req: StreamRequest, body: ConverterBody, opts: RunnerOptions = {}): AsyncIterable<ProviderEvent> {
  return {
    [Symbol.asyncIterator]: (): AsyncIterator<ProviderEvent> => {
      const run = startRun(req, opts);
      const queue = new EventQueue<ProviderEvent>();
      let state: 'new' | 'streaming' | 'ended' = 'new';
      let conv: StreamConverter<unknown> | undefined;
      let source: AsyncIterator<unknown> | undefined;
      /** `convert` saw the terminal SDK event: once its events are delivered, the stream ends. */
      let lastSeen = false;

      const end = (terminal: ProviderEvent | undefined): void => {
        state = 'ended';
        const it = source;
        // Do not await: a stalled source may never settle its return().
        if (it) void Promise.resolve().then(() => it.return?.()).catch(() => undefined);
        run.cleanup();
        if (terminal) queue.items.push(terminal);
      };
      /** A failure: the events of the step that failed are not delivered (a generator would not have yielded them). */
      const fail = (e: unknown, dropStep: boolean): IteratorResult<ProviderEvent> => {
        if (dropStep) queue.clear();
        end(errorTerminal(e, run.builder, run.dog, req.signal));
        return queue.take();
      };
      const finish = (): IteratorResult<ProviderEvent> => {
        let reason: DoneReason;
        try {
          reason = conv!.finish(queue.items);
        } catch (e) {
          return fail(e, true);
        }
        const failed = silentFailure(run, req.signal);
        if (failed) return fail(failed, false);
        end({ type: 'done', stopReason: reason, message: run.builder.snapshot(reason) });
        return queue.take();
      };
      const onStep = (r: IteratorResult<unknown>): IteratorResult<ProviderEvent> | Promise<IteratorResult<ProviderEvent>> => {
        if (state === 'ended') return { done: true, value: undefined };
        if (r.done) return finish();
        let last: boolean;
        try {
          last = conv!.convert(r.value, queue.items);
        } catch (e) {
          return fail(e, true);
        }
        if (last) {
          lastSeen = true;
          return queue.pending ? queue.take() : finish();
        }
        return queue.pending ? queue.take() : step();
      };
      const onError = (e: unknown): IteratorResult<ProviderEvent> =>
        state === 'ended' ? { done: true, value: undefined } : fail(e, true);
      // Each step raced by the idle watchdog and the caller's signal (what `ctx.events` does for generator bodies).
      const step = (): Promise<IteratorResult<ProviderEvent>> => run.dog.step(source!.next(), onStep, onError);
      const open = (): Promise<IteratorResult<ProviderEvent>> => {
        state = 'streaming';
        try {
          if (req.signal.aborted) throw new AbortError(undefined, { cause: req.signal.reason });
          conv = body(run.ctx);
          return conv.open().then((stream) => {
            if (state === 'ended') return { done: true, value: undefined };
            source = stream[Symbol.asyncIterator]();
            return step();
          }, onError);
        } catch (e) {
          return Promise.resolve(fail(e, true));
        }
      };
      return {
        next: () => {
          if (queue.pending) return Promise.resolve(queue.take());
          if (state === 'ended') return Promise.resolve({ done: true, value: undefined });
          // Events that `convert` queued with the terminal SDK event: their end comes after them.
          if (lastSeen) return Promise.resolve(finish());
          return state === 'new' ? open() : step();
        },
        // The consumer stops early: end the SDK stream and the HTTP request; no terminal event.
        return: () => {
          if (state !== 'ended') {
            queue.clear();
            end(undefined);
          }
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
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
  // X5: providers and proxies quote a rejected key back; every known key is cut out of the error in place (message,
  // stack, parsed body), so no copy made from here on — retry events, auth state, the transcript — carries it.
  secretRedactor.redactError(error);
  return { type: 'error', error, message: builder.snapshot(stopReason, secretRedactor.redact(describeError(error))) };
}
