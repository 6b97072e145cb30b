/**
 * The session dispatcher (E3 queue modes on top of the lanes and the runs registry). Every accepted message gets
 * its own runId and RunRecord; what happens to it depends on whether its session is busy and on its queue mode:
 *
 * - session idle, or `followup`: a run of its own, queued in the session lane behind the busy run.
 * - `collect`: merged into the session's queued collect run while that run has not started (cap 20 messages);
 *   the collect run starts only once no message has arrived for the debounce (500 ms).
 * - `steer`: handed to the running run's tool loop (steer.ts); if the run cannot take it (not streaming,
 *   compacting, or it ends before a tool boundary), it becomes a followup run.
 * - `interrupt`: the running run is aborted and this message runs next (ahead of the queue).
 *
 * Nothing is silently dropped: a merged or steered message's runId ends with the result of the run that answered
 * it (with a `queue` merged/steered event), and a removed or aborted queued run ends with an error result that
 * says so (its task never starts, nothing is written). A run that ends in error/timeout gets a failure marker in
 * the transcript when its turn would otherwise end with no assistant reply (unanswered.ts reads it).
 */
import type { AgentEvent, QueueMode, RunResult } from '../../../preload/contract.js';
import type { Timers } from './agent-run.js';
import type { BoundedLane, Lanes } from './lanes.js';
import type { RunRecord, RunRegistry } from './runs.js';
import type { SessionStore } from '../../sessions/store.js';
import type { AssistantMessage, Attachment } from '../messages.js';
import { emptyUsage } from '../messages.js';
import { createRunEmitter, type RunEmitter } from '../stream/run-emitter.js';
import { SteerInbox } from '../attempt/steer.js';
import { AbortError, abortError } from '../abort.js';

export const COLLECT_DEBOUNCE_MS = 500;
export const COLLECT_CAP = 20;

export interface DispatchRequest {
  runId: string;
  sessionKey: string;
  sessionId: string;
  acceptedAt: number;
  message: string;
  /** X3: the message's attachments (stored references). */
  attachments?: Attachment[];
  mode: QueueMode;
  lane?: BoundedLane;
  parent?: { runId: string; sessionKey: string };
  /** For results of runs that never started. */
  model: { provider: string; id: string };
}

/** Runs one started record (the gateway builds the RunSpec/RunDeps and calls executeRun). */
export type ExecuteFn = (record: RunRecord, message: string, inbox: SteerInbox, emitter: RunEmitter) => Promise<RunResult>;

export interface DispatcherDeps {
  lanes: Lanes;
  runs: RunRegistry;
  store: SessionStore;
  emit: (event: AgentEvent) => void;
  now: () => number;
  timers: Timers;
  execute: ExecuteFn;
  collectDebounceMs?: number;
  collectCap?: number;
}

export class InterruptedError extends AbortError {
  constructor() {
    super('The run was interrupted by a newer message.');
  }
}

export class Dispatcher {
  constructor(private readonly d: DispatcherDeps) {}

  /** Accepts one message; synchronous so the caller can record the runId before anything else happens. */
  submit(req: DispatchRequest): RunRecord {
    const record: RunRecord = {
      runId: req.runId,
      sessionKey: req.sessionKey,
      sessionId: req.sessionId,
      acceptedAt: req.acceptedAt,
      controller: new AbortController(),
      done: undefined as unknown as Promise<RunResult>,
      message: req.message,
      ...(req.attachments?.length ? { attachments: [...req.attachments] } : {}),
      mode: req.mode,
      lane: req.lane ?? 'global',
      state: 'queued',
      model: req.model,
      ...(req.parent ? { parent: req.parent } : {}),
    };
    record.emitter = createRunEmitter(req.runId, req.sessionKey, (e) => this.observe(record, e), this.d.now);
    const ahead = this.d.runs.active().filter((r) => r.sessionId === req.sessionId && (r.state === 'queued' || r.state === 'running'));
    const busy = ahead.length > 0 || this.d.lanes.isBusy(req.sessionKey);

    if (busy && req.mode === 'collect') {
      const target = ahead
        .filter((r) => r.collected && !r.collected.sealed && r.collected.count < (this.d.collectCap ?? COLLECT_CAP))
        .at(-1);
      if (target) {
        target.message = `${target.message}\n\n${req.message}`;
        if (req.attachments?.length) target.attachments = [...(target.attachments ?? []), ...req.attachments];
        target.collected!.count++;
        target.collected!.lastAt = this.d.now();
        this.follow(record, target, 'merged');
        return record;
      }
    }
    // A message with attachments is never steered into a tool loop (a steered message is text): it runs after.
    if (busy && req.mode === 'steer' && !req.attachments?.length) {
      const outcome = this.d.runs.queueMessage(req.sessionId, req.message, req.runId);
      if (outcome.queued) {
        this.follow(record, this.d.runs.get(outcome.runId)!, 'steered');
        return record;
      }
    }
    if (busy && req.mode === 'interrupt') {
      for (const r of ahead) if (r.state === 'running') this.d.runs.abort(r.runId, new InterruptedError());
    }
    if (busy && req.mode === 'collect') record.collected = { count: 1, lastAt: this.d.now(), sealed: false };
    if (busy) record.emitter.emit('queue', { phase: 'queued', mode: req.mode, position: ahead.length });
    this.enqueue(record, { front: busy && req.mode === 'interrupt', wasQueued: busy });
    return record;
  }

  /** Removes a queued run (queue.remove): it ends with an error result and never starts. */
  remove(runId: string): boolean {
    const record = this.d.runs.get(runId);
    if (!record || record.state !== 'queued') return false;
    return this.d.lanes.remove(runId);
  }

  private observe(record: RunRecord, event: AgentEvent): void {
    if (event.stream === 'compaction') record.compacting = (event.data as { phase: string }).phase === 'start';
    this.d.emit(event);
  }

  /** `record` is answered by `host`'s run: it ends with host's result under its own runId. */
  private follow(record: RunRecord, host: RunRecord, how: 'merged' | 'steered'): void {
    record.state = how;
    record.intoRunId = host.runId;
    record.emitter!.emit('queue', { phase: how, intoRunId: host.runId });
    if (how === 'merged') record.done = this.settle(record, host.done.then((r) => ({ ...r, runId: record.runId })));
    else record.done = this.settle(record, new Promise<RunResult>((resolve) => (record.resolveSteered = resolve)));
    this.d.runs.add(record);
  }

  private enqueue(record: RunRecord, opts: { front: boolean; wasQueued: boolean }): void {
    record.state = 'queued';
    const emitter = record.emitter!;
    const started = this.d.lanes
      .run(record.sessionKey, () => this.start(record, opts.wasQueued), {
        id: record.runId,
        lane: record.lane,
        signal: record.controller.signal,
        front: opts.front,
        onWait: ({ waitedMs, lane }) => emitter.emit('queue', { phase: 'waiting', waitedMs, lane }),
        // `/stop` from another process: this session's runs here stop, queued ones included.
        onStopRequest: () => void this.d.runs.abortSession(record.sessionId, abortError('The run was stopped.')),
      })
      .catch((err: unknown) => this.neverStarted(record, err));
    record.done = this.settle(record, started);
    if (!this.d.runs.get(record.runId)) this.d.runs.add(record);
  }

  private async start(record: RunRecord, wasQueued: boolean): Promise<RunResult> {
    record.state = 'running';
    record.startedAt = this.d.now();
    if (wasQueued) record.emitter!.emit('queue', { phase: 'started' });
    if (record.collected) {
      await this.debounce(record);
      record.collected.sealed = true;
    }
    const inbox = new SteerInbox();
    record.inbox = inbox;
    let result: RunResult;
    try {
      result = await this.d.execute(record, record.message ?? '', inbox, record.emitter!);
    } finally {
      this.handOff(record, inbox);
    }
    if (result.status !== 'ok') await this.markUnanswered(record, result);
    return result;
  }

  /** Steered messages the run took share its result; the rest become followup runs. */
  private handOff(host: RunRecord, inbox: SteerInbox): void {
    const left = inbox.close();
    const taken = new Set(inbox.taken.map((m) => m.fromRunId));
    void host.done.then((result) => {
      for (const runId of taken) {
        const r = this.d.runs.get(runId);
        if (r?.resolveSteered) r.resolveSteered({ ...result, runId });
      }
    });
    for (const m of left) {
      const r = this.d.runs.get(m.fromRunId);
      if (!r?.resolveSteered) continue;
      const resolve = r.resolveSteered;
      delete r.resolveSteered;
      delete r.intoRunId;
      r.emitter!.emit('queue', { phase: 'queued', mode: 'followup', position: 0 });
      this.enqueue(r, { front: false, wasQueued: true });
      void r.done.then(resolve);
    }
  }

  private async debounce(record: RunRecord): Promise<void> {
    const wait = this.d.collectDebounceMs ?? COLLECT_DEBOUNCE_MS;
    for (;;) {
      const remaining = record.collected!.lastAt + wait - this.d.now();
      if (remaining <= 0 || record.controller.signal.aborted) return;
      await new Promise<void>((resolve) => {
        const onAbort = () => {
          this.d.timers.clearTimeout(handle);
          resolve();
        };
        const handle = this.d.timers.setTimeout(() => {
          record.controller.signal.removeEventListener('abort', onAbort);
          resolve();
        }, remaining);
        record.controller.signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** A run that ended badly with no assistant reply after its prompt gets a failure marker (unanswered.ts). */
  private async markUnanswered(record: RunRecord, result: RunResult): Promise<void> {
    try {
      const messages = await this.d.store.loadMessages(record.sessionId);
      const last = messages.at(-1);
      if (!last) return;
      if (last.role === 'assistant') {
        const failed = last.stopReason === 'error' || last.stopReason === 'aborted';
        // A provider call cut off by the run timeout only says "aborted": the marker records that it timed out.
        if (!failed || result.status !== 'timeout' || /timed out/i.test(last.errorMessage ?? '')) return;
      }
      const stopped = record.controller.signal.aborted && result.status === 'error';
      const marker: AssistantMessage = {
        role: 'assistant',
        content: [],
        provider: result.meta.provider,
        model: result.meta.model,
        api: 'none',
        usage: emptyUsage(),
        stopReason: stopped ? 'aborted' : 'error',
        errorMessage: result.meta.error ?? (result.status === 'timeout' ? 'The run timed out.' : 'The run failed.'),
        timestamp: this.d.now(),
      };
      await this.d.store.append(record.sessionId, marker);
    } catch (err) {
      console.error(`[agentdesk] could not mark the unanswered turn: ${(err as Error).message}`);
    }
  }

  private neverStarted(record: RunRecord, err: unknown): RunResult {
    if (record.state === 'running') throw err; // the run itself failed: executeRun never throws, so this is a bug
    const text = stoppedText(err);
    const result: RunResult = {
      runId: record.runId,
      status: 'error',
      payloads: [{ text, isError: true }],
      usage: emptyUsage(),
      meta: { provider: record.model?.provider ?? '', model: record.model?.id ?? '', profileId: null, attempts: 0, compactions: 0, error: text },
    };
    record.emitter!.emit('queue', { phase: 'removed' });
    record.emitter!.emit('lifecycle', { phase: 'error', endedAt: this.d.now(), error: text, result });
    return result;
  }

  private settle(record: RunRecord, p: Promise<RunResult>): Promise<RunResult> {
    return p.then((result) => {
      record.result = result;
      record.endedAt = this.d.now();
      record.state = 'ended';
      return result;
    });
  }
}

function stoppedText(err: unknown): string {
  const e = err as Error | undefined;
  if (e?.name === 'LaneEntryRemovedError') return e.message;
  if (e instanceof InterruptedError) return 'The queued run was replaced by a newer message before it started.';
  return `The queued run was stopped before it started${e?.message ? ` (${e.message.replace(/\.$/, '')})` : ''}.`;
}
