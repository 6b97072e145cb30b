import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalData } from '../../preload/contract.js';
import { approvalsConfigSchema } from '../../main/engine/config/schema.js';
import { ApprovalBroker } from '../../main/tools/approvals/broker.js';
import { commandSegments, decidePolicy } from '../../main/tools/approvals/policy.js';
import { runApprovalStep, type ApprovalRequestInfo } from '../../main/engine/attempt/approvals.js';

const cfg = (over: Record<string, unknown> = {}) => approvalsConfigSchema.parse(over);

describe('decidePolicy', () => {
  type Row = [label: string, config: Record<string, unknown>, tool: string, params: Record<string, unknown>, sandboxed: boolean, override: 'ask' | 'auto' | 'deny' | undefined, expected: string];
  const rows: Row[] = [
    ['read-only tools never ask', {}, 'read', { path: 'a' }, true, undefined, 'allow'],
    ['grep never asks, even with mode deny', { mode: 'deny' }, 'grep', {}, true, undefined, 'allow'],
    ['exec asks by default', {}, 'exec', { command: 'ls' }, true, undefined, 'ask'],
    ['write asks by default', {}, 'write', { path: 'a', content: '' }, true, undefined, 'ask'],
    ['edit asks by default', {}, 'edit', {}, true, undefined, 'ask'],
    ['apply_patch asks by default', {}, 'apply_patch', {}, true, undefined, 'ask'],
    ['mode auto allows sandboxed exec', { mode: 'auto' }, 'exec', { command: 'ls' }, true, undefined, 'allow'],
    ['mode auto still asks for unsandboxed exec', { mode: 'auto' }, 'exec', { command: 'ls' }, false, undefined, 'ask'],
    ['mode deny refuses', { mode: 'deny' }, 'write', {}, true, undefined, 'deny'],
    ['per-tool override', { tools: { write: 'auto' } }, 'write', {}, true, undefined, 'allow'],
    ['CLI override beats config', { mode: 'auto' }, 'edit', {}, true, 'deny', 'deny'],
    ['CLI auto', {}, 'edit', {}, true, 'auto', 'allow'],
    ['denyTools', { denyTools: ['read'] }, 'read', {}, true, undefined, 'deny'],
    ['allowTools', { allowTools: ['write'] }, 'write', {}, true, undefined, 'allow'],
    ['allowTools exec unsandboxed still asks', { allowTools: ['exec'] }, 'exec', { command: 'ls' }, false, undefined, 'ask'],
    ['allowCommands prefix', { allowCommands: ['npm test'] }, 'exec', { command: 'npm test -- --watch=false' }, true, undefined, 'allow'],
    ['allowCommands needs a word boundary', { allowCommands: ['npm test'] }, 'exec', { command: 'npm testify' }, true, undefined, 'ask'],
    ['allowCommands ignores chained commands', { allowCommands: ['git status'] }, 'exec', { command: 'git status; rm -rf .' }, true, undefined, 'ask'],
    ['allowCommands ignores substitutions', { allowCommands: ['echo'] }, 'exec', { command: 'echo $(cat ~/.ssh/id_rsa)' }, true, undefined, 'ask'],
    ['denyCommands prefix', { denyCommands: ['rm'] }, 'exec', { command: 'rm -rf build' }, true, 'auto', 'deny'],
    ['denyCommands in a chain', { denyCommands: ['git push'] }, 'exec', { command: 'git add . && git push origin' }, true, 'auto', 'deny'],
  ];
  it.each(rows)('%s', (_l, config, tool, params, sandboxed, override, expected) => {
    expect(decidePolicy(cfg(config), { tool, params, sandboxed, modeOverride: override }).verdict).toBe(expected);
  });

  it('deny reasons are one line the model can act on', () => {
    const v = decidePolicy(cfg({ denyCommands: ['rm'] }), { tool: 'exec', params: { command: 'rm x' }, sandboxed: true });
    expect(v).toEqual({ verdict: 'deny', reason: 'commands starting with "rm" are refused by the approval settings (denyCommands)' });
  });

  it.each([
    ['a && b || c', ['a', 'b', 'c']],
    ['x | y; z', ['x', 'y', 'z']],
    ['(cd d && make)', ['cd d', 'make)']],
  ])('commandSegments(%s)', (cmd, segs) => {
    expect(commandSegments(cmd)).toEqual(segs);
  });
});

describe('ApprovalBroker', () => {
  let ws = '';
  beforeAll(async () => {
    ws = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-approve-')));
    await writeFile(path.join(ws, 'a.txt'), 'one\ntwo\n');
  });
  afterAll(async () => {
    await rm(ws, { recursive: true, force: true });
  });

  const info = (over: Partial<ApprovalRequestInfo> & { events: ApprovalData[] }): ApprovalRequestInfo => ({
    runId: 'r1',
    sessionKey: 's1',
    toolCallId: 't1',
    toolName: 'exec',
    params: { command: 'ls' },
    workspace: ws,
    signal: new AbortController().signal,
    emit: (d) => over.events.push(d),
    ...over,
  });
  const broker = (over: Record<string, unknown> = {}, sandboxed = true) =>
    new ApprovalBroker({ config: cfg(over), sandboxed: async () => sandboxed });
  const nextRequest = async (events: ApprovalData[]) => {
    for (let i = 0; i < 100 && !events.some((e) => e.phase === 'request'); i++) await new Promise((r) => setTimeout(r, 5));
    return events.find((e) => e.phase === 'request') as Extract<ApprovalData, { phase: 'request' }>;
  };

  it('asks with the full arguments, cwd and sandbox flag; allow once runs it and asks again next time', async () => {
    const b = broker();
    const events: ApprovalData[] = [];
    const outcome = b.gate(info({ events }));
    const req = await nextRequest(events);
    expect(req).toMatchObject({ tool: 'exec', args: { command: 'ls' }, cwd: ws, sandboxed: true, toolCallId: 't1' });
    expect(b.respond(req.approvalId, 'allow_once')).toBe(true);
    expect(await outcome).toEqual({ allow: true });
    expect(events[1]).toEqual({ phase: 'resolved', approvalId: req.approvalId, toolCallId: 't1', decision: 'allow_once' });
    expect(b.respond(req.approvalId, 'allow_once')).toBe(false);
    const again: ApprovalData[] = [];
    void b.gate(info({ events: again }));
    expect(await nextRequest(again)).toBeDefined();
  });

  it('deny carries the reason to the model', async () => {
    const b = broker();
    const events: ApprovalData[] = [];
    const outcome = b.gate(info({ events }));
    b.respond((await nextRequest(events)).approvalId, 'deny', 'use the test script instead');
    expect(await outcome).toEqual({
      allow: false,
      reason: 'The person denied this exec call: use the test script instead. It did not run; do not retry it unchanged.',
    });
  });

  it('allow for this session is not asked again in that session, but is in another', async () => {
    const b = broker();
    const events: ApprovalData[] = [];
    const first = b.gate(info({ events }));
    b.respond((await nextRequest(events)).approvalId, 'allow_session');
    expect(await first).toEqual({ allow: true });
    const quiet: ApprovalData[] = [];
    expect(await b.gate(info({ events: quiet, params: { command: 'rm -rf build' } }))).toEqual({ allow: true });
    expect(quiet).toEqual([]);
    const other: ApprovalData[] = [];
    void b.gate(info({ events: other, sessionKey: 's2' }));
    expect(await nextRequest(other)).toBeDefined();
  });

  it('an unanswered request is refused at its expiry with a reason naming the wait (injected clock and timers)', async () => {
    let fire: (() => void) | undefined;
    let delay = 0;
    const b = new ApprovalBroker({
      config: cfg(),
      sandboxed: async () => true,
      timeoutMs: () => 90_000,
      now: () => 1_000,
      timers: { setTimeout: (fn, ms) => ((fire = fn), (delay = ms), 1), clearTimeout: () => undefined },
    });
    const events: ApprovalData[] = [];
    const outcome = b.gate(info({ events }));
    const req = await nextRequest(events);
    expect(req.expiresAt).toBe(91_000);
    expect(delay).toBe(90_000);
    fire!();
    expect(await outcome).toEqual({
      allow: false,
      reason: 'Nobody answered the request to approve this exec call within 90 s, so it did not run. Do not retry it now; say in your reply what you wanted to do, so the person can allow it next time.',
    });
    expect(events[1]).toMatchObject({ phase: 'resolved', decision: 'deny', reason: 'no answer within 90 s' });
    expect(b.respond(req.approvalId, 'allow_once')).toBe(false); // the request is closed
  });

  it('an abort while waiting refuses the call and closes the request', async () => {
    const b = broker();
    const events: ApprovalData[] = [];
    const controller = new AbortController();
    const outcome = b.gate(info({ events, signal: controller.signal }));
    await nextRequest(events);
    controller.abort();
    expect(await outcome).toEqual({ allow: false, reason: 'The run was stopped while waiting for approval; the call did not run.' });
    expect(events[1]).toMatchObject({ phase: 'resolved', decision: 'deny' });
    expect(b.respond((events[0] as { approvalId: string }).approvalId, 'allow_once')).toBe(false); // no longer pending
  });

  it('shows the diff an edit would make', async () => {
    const b = broker();
    const events: ApprovalData[] = [];
    void b.gate(info({ events, toolName: 'edit', params: { path: 'a.txt', edits: [{ oldText: 'two', newText: 'TWO' }] } }));
    const req = await nextRequest(events);
    expect(req.diff).toContain('-two\n+TWO');
    expect(req.sandboxed).toBe(true);
  });

  it('a subagent run is refused at once instead of waiting for an answer nobody sees', async () => {
    const events: ApprovalData[] = [];
    expect(await broker().gate(info({ events, sessionKey: 'subagent/ab12cd34' }))).toEqual({
      allow: false,
      reason: 'Not run: a subagent cannot ask the person to approve exec; report what you need and let the main conversation do it.',
    });
    expect(events).toEqual([]);
    expect(await broker({ mode: 'auto' }).gate(info({ events, sessionKey: 'subagent/ab12cd34' }))).toEqual({ allow: true });
  });

  it('marks exec without an OS sandbox', async () => {
    const b = broker({ mode: 'auto' }, false);
    const events: ApprovalData[] = [];
    void b.gate(info({ events }));
    expect((await nextRequest(events)).sandboxed).toBe(false);
  });

  it('runApprovalStep throws the refusal for the model and passes when allowed', async () => {
    const denyAll = broker({ mode: 'deny' });
    await expect(runApprovalStep(denyAll.gate, info({ events: [] }))).rejects.toThrow(
      'Not run: approvals are set to deny: exec calls are refused without asking.',
    );
    await expect(runApprovalStep(undefined, info({ events: [] }))).resolves.toBeUndefined();
  });
});
