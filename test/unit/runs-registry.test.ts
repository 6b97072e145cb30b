import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../preload/contract.js';
import { fakeTimers } from '../support/fake-timers.js';
import { RunRegistry, type RunRecord } from '../../main/engine/run/runs.js';
import { SteerInbox } from '../../main/engine/attempt/steer.js';
import { Subagents } from '../../main/engine/run/subagents.js';
import { IdempotencyCache } from '../../main/gateway/idempotency.js';

const okResult = (runId: string, text = 'done'): RunResult => ({
  runId,
  status: 'ok',
  payloads: [{ text }],
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  meta: { provider: 'p', model: 'm', profileId: null, attempts: 1, compactions: 0 },
});

function record(runId: string, sessionId = 's1', state: RunRecord['state'] = 'running') {
  let finish!: (r: RunResult) => void;
  const rec: RunRecord = {
    runId,
    sessionKey: 'k',
    sessionId,
    acceptedAt: 0,
    controller: new AbortController(),
    done: new Promise<RunResult>((r) => (finish = r)),
    state,
  };
  const end = (r: RunResult = okResult(runId)) => {
    rec.result = r;
    rec.state = 'ended';
    finish(r);
  };
  rec.controller.signal.addEventListener('abort', () => end({ ...okResult(runId), status: 'error' }));
  return { rec, end };
}

describe('RunRegistry', () => {
  it.each([
    [undefined, 15_000],
    [20, 100],
    [3000, 3000],
  ])('waitForRunEnd(timeout %s) waits %i ms and resolves false on timeout', async (timeout, ms) => {
    const t = fakeTimers();
    const runs = new RunRegistry(t.timers);
    runs.add(record('r1').rec);
    const waiting = runs.waitForRunEnd('s1', timeout);
    expect(t.pending.map((p) => p.ms)).toEqual([ms]);
    t.fireAll();
    expect(await waiting).toBe(false);
  });

  it('waitForRunEnd resolves true when the session has no run or its run ends', async () => {
    const runs = new RunRegistry(fakeTimers().timers);
    expect(await runs.waitForRunEnd('none')).toBe(true);
    const { rec, end } = record('r1');
    runs.add(rec);
    const waiting = runs.waitForRunEnd('s1');
    end();
    expect(await waiting).toBe(true);
  });

  it('queueMessage says why a run cannot take a message, and isStreaming/isCompacting follow the run', () => {
    const runs = new RunRegistry(fakeTimers().timers);
    expect(runs.queueMessage('s1', 'hi', 'x')).toEqual({ queued: false, reason: 'no_active_run' });
    const { rec } = record('r1');
    runs.add(rec);
    expect(runs.isStreaming('s1')).toBe(false);
    expect(runs.queueMessage('s1', 'hi', 'x')).toEqual({ queued: false, reason: 'not_streaming' });
    rec.inbox = new SteerInbox();
    expect(runs.isStreaming('s1')).toBe(true);
    rec.compacting = true;
    expect(runs.isCompacting('s1')).toBe(true);
    expect(runs.queueMessage('s1', 'hi', 'x')).toEqual({ queued: false, reason: 'compacting' });
    rec.compacting = false;
    expect(runs.queueMessage('s1', 'hi', 'x')).toEqual({ queued: true, runId: 'r1' });
    expect(rec.inbox.take()).toEqual([{ text: 'hi', fromRunId: 'x' }]);
    rec.inbox.close();
    expect(runs.queueMessage('s1', 'late', 'y')).toEqual({ queued: false, reason: 'not_streaming' });
  });

  it('aborts one run, the compacting ones, or all', () => {
    const runs = new RunRegistry(fakeTimers().timers);
    const a = record('a', 's1');
    const b = record('b', 's2');
    const c = record('c', 's3');
    for (const r of [a, b, c]) runs.add(r.rec);
    b.rec.compacting = true;
    expect(runs.abortCompacting()).toBe(1);
    expect(b.rec.controller.signal.aborted).toBe(true);
    expect(runs.abort('a')).toBe(true);
    expect(runs.abort('a')).toBe(false); // ended
    expect(runs.abortAll()).toBe(1);
    expect(c.rec.controller.signal.aborted).toBe(true);
  });
});

describe('IdempotencyCache', () => {
  it('shares one start between concurrent calls with one key', async () => {
    const cache = new IdempotencyCache<string>(() => 0);
    let starts = 0;
    const start = async () => {
      starts++;
      await new Promise((r) => setTimeout(r, 5));
      return `run${starts}`;
    };
    const [x, y] = await Promise.all([cache.run('k', start), cache.run('k', start)]);
    expect([x, y, starts]).toEqual(['run1', 'run1', 1]);
  });

  it('is bounded: least recently used keys go first, expired keys are forgotten, failures are not remembered', async () => {
    let t = 0;
    const cache = new IdempotencyCache<number>(() => t, 2, 1000);
    let n = 0;
    const start = () => Promise.resolve(++n);
    await cache.run('a', start);
    await cache.run('b', start);
    await cache.run('a', start); // a is now the most recently used
    await cache.run('c', start); // evicts b
    expect(cache.size).toBe(2);
    expect(await cache.run('a', start)).toBe(1);
    expect(await cache.run('b', start)).toBe(4); // b was forgotten: a new start
    t = 5000;
    expect(await cache.run('a', start)).toBe(5); // expired
    await expect(cache.run('bad', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await cache.run('bad', start)).toBe(6);
  });
});

describe('Subagents', () => {
  function setup() {
    let t = 1000;
    const timers = fakeTimers();
    const runs = new RunRegistry(timers.timers);
    const started: { sessionKey: string; message: string; end: (r?: RunResult) => void; rec: RunRecord }[] = [];
    let cleared = 0;
    const subagents = new Subagents({
      runs,
      now: () => t,
      newId: () => 'sub1',
      clearQueue: () => ++cleared,
      start: async (req) => {
        const { rec, end } = record(`run${started.length + 1}`, `sid-${req.sessionKey}`);
        rec.sessionKey = req.sessionKey;
        runs.add(rec);
        started.push({ sessionKey: req.sessionKey, message: req.message, end, rec });
        return rec;
      },
    });
    return { subagents, started, setTime: (v: number) => (t = v), cleared: () => cleared, runs };
  }

  it('steer: abort, clear the queue, start the new message, and the parent gets the steered run’s reply', async () => {
    const { subagents, started, setTime, cleared } = setup();
    const parent = { runId: 'p1', sessionKey: 'main' };
    const spawned = subagents.spawn(parent, 'count the files');
    await new Promise((r) => setTimeout(r, 0));
    expect(subagents.list()).toMatchObject([{ id: 'sub1', parentSessionKey: 'main', sessionKey: 'subagent/sub1', runId: 'run1', status: 'running', steers: 0 }]);
    const steer = await subagents.steer('sub1', 'count only .ts files');
    expect(steer).toEqual({ status: 'restarted', runId: 'run2', replacedRunId: 'run1' });
    expect(started[0]!.rec.controller.signal.aborted).toBe(true);
    expect(cleared()).toBe(1);
    expect(started[1]).toMatchObject({ sessionKey: 'subagent/sub1', message: 'count only .ts files' });
    setTime(2500); // 1.5 s later: rate limited
    expect(await subagents.steer('sub1', 'again')).toEqual({ status: 'rate_limited', retryAfterMs: 500 });
    started[1]!.end(okResult('run2', '12 files'));
    const result = await spawned;
    expect(result.payloads).toEqual([{ text: '12 files' }]);
    expect(subagents.list()[0]).toMatchObject({ runId: 'run2', status: 'ok', steers: 1 });
  });

  it('the parent’s abort stops the subagent; abort by id too', async () => {
    const { subagents, started } = setup();
    const controller = new AbortController();
    const spawned = subagents.spawn({ runId: 'p', sessionKey: 'main' }, 'task', controller.signal);
    await new Promise((r) => setTimeout(r, 0));
    controller.abort();
    expect((await spawned).status).toBe('error');
    expect(started[0]!.rec.controller.signal.aborted).toBe(true);
    expect(subagents.abort('sub1')).toBe(false); // already ended
    await expect(subagents.steer('nope', 'x')).rejects.toThrow('No subagent');
  });
});
