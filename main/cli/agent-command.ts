/**
 * `agentdesk agent`: one run through the same gateway the app uses. `--json` prints every event as one JSON line
 * and then exactly one result line; otherwise the reply streams to stdout and progress goes to stderr.
 */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { AgentEvent, ApprovalData, AttachmentRef, BudgetData, RetryData, RunResult } from '../../preload/contract.js';
import { createCliApprover, terminalPromptIo, type PromptIo } from './approve.js';
import { escapeForTerminal } from './terminal-text.js';
import { createAppGateway, type AppGateway } from '../gateway/create.js';
import type { GatewayError } from '../gateway/types.js';
import { loadConfig } from '../engine/config/load.js';
import type { AppConfig } from '../engine/config/schema.js';
import { openSettings, type SettingsStore } from '../settings/store.js';
import { applySettings } from '../settings/effective.js';
import { resolveModel, defaultModelRef } from '../engine/models.js';
import { preloadProvider } from '../providers/registry.js';
import type { AgentArgs } from './args.js';
import { homeFrom } from './home.js';
import { prepareHome } from './home-check.js';
import { newSessionKey } from '../sessions/new-key.js';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from './usage-error.js';
import { parseCommand } from '../gateway/commands/parse.js';
import { visibleLine } from '../mcp/display-text.js';
import { retryLine } from '../../preload/messages/retry.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Approval prompts (default: the terminal). */
  prompt?: PromptIo;
}

export async function runAgentCommand(args: AgentArgs, io: Io): Promise<number> {
  const { home: homeArg, label } = homeFrom(args.home, io.env);
  const home = await prepareHome(resolve(io.cwd, homeArg), label);
  const fileConfig = await loadConfig(home).catch((err: Error) => {
    throw new UsageError(err.message);
  });
  // settings.json (the app's Settings) over config.json; flags over both.
  let settings: SettingsStore;
  let config: AppConfig;
  try {
    settings = openSettings(home);
    config = applySettings(fileConfig, settings.get());
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  // A command the gateway owns (`/stop`, `/model …`) calls no model: nothing to resolve or load for it.
  const isCommand = parseCommand(args.message) !== undefined;
  try {
    const model = resolveModel(config, args.model ?? defaultModelRef(config, io.env));
    // The model's SDK loads while the session, keys and prompt are prepared (it is most of a turn's start-up) —
    // unless an existing session may remember another model.
    if (!isCommand && (args.model || !args.session)) preloadProvider(model.api);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  // Without --session every run starts its own session (named on stderr, so it can be continued).
  const sessionKey = args.session ?? newSessionKey('cli');
  // The CLI works where it is started (or --workspace, or config.json's agent.workspace) — not in the app's folder.
  const workspace = resolve(io.cwd, args.workspace ?? fileConfig.agent.workspace ?? io.cwd);
  const approvalMode = args.approve === 'unsandboxed' ? 'auto' : args.approve;
  // config.json and settings.json are read and merged once per turn: the gateway starts from this config.
  const gateway = await createAppGateway({
    home,
    workspace,
    env: io.env,
    config: fileConfig,
    effectiveConfig: config,
    settings,
    approvalMode,
  }).catch((err: Error) => {
    throw new UsageError(err.message);
  });

  const printer = args.json ? jsonPrinter(io) : textPrinter(io, args.verbose);
  // X1: a server that cannot start, a tool budget warning — one stderr line each (also with --json).
  const stopNotices = gateway.mcp.onNotice((n) => io.err(`agentdesk: ${escapeForTerminal(n.message)}\n`));
  const approver = createCliApprover(
    approvalMode ?? config.agent.approvals.mode,
    io.prompt ?? terminalPromptIo(io.err),
    (approvalId, decision, reason, unasked) =>
      gateway.request('approvals.respond', { approvalId, decision, ...(reason ? { reason } : {}), ...(unasked ? { unasked: true } : {}) }),
    { allowUnsandboxed: args.approve === 'unsandboxed' || config.agent.approvals.allowUnsandboxed },
  );
  // Events can arrive before `agent` returns the runId: buffer them until it is known.
  let runId: string | undefined;
  const early: AgentEvent[] = [];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stopNotices();
      try {
        await gateway.close(); // the run's events until then are printed (a checkpoint committed after its end)
      } finally {
        unsubscribe();
      }
    })());
  const unsubscribe = gateway.onEvent((event) => {
    if (runId === undefined) early.push(event);
    else if (event.runId === runId) printer.event(event);
    if (event.stream === 'approval') approver(event.data as ApprovalData);
  });
  try {
    const attachments = await attachFiles(gateway, args.attach, io.cwd);
    const accepted = await gateway.request('agent', {
      message: args.message,
      ...(attachments.length ? { attachments } : {}),
      sessionKey,
      // Unset: the session's remembered model, else the default.
      ...(args.model ? { model: args.model } : {}),
      ...(args.thinking ? { thinking: args.thinking } : {}),
      ...(args.timeoutSeconds ? { timeoutSeconds: args.timeoutSeconds } : {}),
      ...(args.verbose ? { verbose: true } : {}),
    }).catch((err: Error) => {
      // X3: an attachment the model cannot take (an image to a text-only model) is refused before any request.
      if (attachments.length && (err as GatewayError).code === 'bad_request' && /does not take images/.test(err.message)) throw new UsageError(err.message);
      throw err;
    });
    runId = accepted.runId;
    // Which session this run used. With --json, stderr stays quiet unless the key is new (the caller cannot know it).
    if (!args.session) io.err(`agentdesk: session ${accepted.sessionKey} (new; continue it with --session ${accepted.sessionKey})\n`);
    else if (!args.json) io.err(`agentdesk: session ${accepted.sessionKey}\n`);
    for (const event of early) if (event.runId === runId) printer.event(event);
    early.length = 0;
    const runTimeoutMs = (args.timeoutSeconds ?? config.agent.timeoutSeconds) * 1000;
    // The run's own timeout ends it; the wait only needs to outlast that.
    await gateway.request('agent.wait', { runId, timeoutMs: Math.min(runTimeoutMs + 30_000, 24 * 3600 * 1000) });
    const result = await gateway.request('agent.result', { runId });
    if (!result) throw new Error('The run did not finish.');
    // X2: the run's end does not wait for a checkpoint still committing; closing does — its event comes before the result.
    await close();
    printer.result(result);
    return result.status === 'ok' ? EXIT_OK : EXIT_RUN_FAILED;
  } finally {
    await close();
  }
}

/** X3: `--attach FILE`s read and stored; a file that cannot be read or attached is a usage error (nothing is sent). */
async function attachFiles(gateway: AppGateway, files: readonly string[], cwd: string): Promise<AttachmentRef[]> {
  const refs: AttachmentRef[] = [];
  for (const file of files) {
    const full = resolve(cwd, file);
    const bytes = await readFile(full).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`--attach ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a folder' : err.message}`);
    });
    const dto = await gateway.request('attachments.add', { name: basename(full), data: bytes.toString('base64') }).catch((err: Error) => {
      throw new UsageError(`--attach ${file}: ${err.message}`);
    });
    refs.push({ id: dto.id, name: dto.name });
  }
  return refs;
}

interface Printer {
  event(e: AgentEvent): void;
  result(r: RunResult): void;
}

function jsonPrinter(io: Io): Printer {
  return {
    event: (e) => io.out(`${JSON.stringify({ type: 'event', runId: e.runId, seq: e.seq, stream: e.stream, data: e.data })}\n`),
    result: (r) =>
      io.out(
        `${JSON.stringify({ type: 'result', runId: r.runId, status: r.status, payloads: r.payloads.map((p) => ({ text: p.text })), usage: r.usage, meta: r.meta })}\n`,
      ),
  };
}

/** Plain output: the reply block by block as it streams; with --verbose, the whole shaped reply at the end (reasoning, tool summaries and text in order). */
function textPrinter(io: Io, verbose = false): Printer {
  let lastTurn = -1;
  let atLineStart = true;
  const printedTurns = new Set<number>();
  // X5: what the model or a tool wrote reaches the terminal with control characters escaped — an ESC sequence in
  // a reply could otherwise conceal or recolour the approval prompt printed after it (--json keeps the exact text).
  const write = (s: string) => {
    if (!s) return;
    io.out(escapeForTerminal(s));
    atLineStart = s.endsWith('\n');
  };
  const err = (s: string) => io.err(`${escapeForTerminal(s)}\n`);
  return {
    event(e) {
      const d = e.data as Record<string, unknown>;
      if (e.stream === 'lifecycle' && d.phase === 'start') {
        if (d.command) return; // a command the gateway answered: its notice is the result
        err(`agentdesk: ${String(d.provider)}/${String(d.model)}${d.demo ? ' (offline demo model)' : ''}`);
        if (typeof d.warning === 'string') err(`agentdesk: warning: ${d.warning}`);
      } else if (e.stream === 'budget' && (e.data as BudgetData).level === 'warning') {
        // X4: 80 % of a budget (the stop itself is the run's error line).
        err(`agentdesk: warning: ${(e.data as BudgetData).message}`);
      } else if (e.stream === 'retry') {
        const r = e.data as RetryData;
        if (!atLineStart) write('\n');
        // Printed text cannot be taken back: say that the cut-off part above does not count.
        if (r.discardTurn !== undefined && printedTurns.has(r.discardTurn)) io.err('agentdesk: (the partial reply above was cut off; it is discarded)\n');
        err(`agentdesk: ${retryLine(r)}`);
      } else if (!verbose && e.stream === 'assistant' && (typeof d.block === 'string' || d.interim)) {
        // E15: the reply is printed block by block as blocks complete (and interim send_message posts at once);
        // raw deltas are not printed, so nothing the engine holds back or suppresses (NO_REPLY) reaches stdout.
        const turn = typeof d.turn === 'number' ? d.turn : 0;
        if ((d.interim || turn !== lastTurn) && lastTurn !== -1 && !atLineStart) write('\n\n');
        lastTurn = turn;
        printedTurns.add(turn);
        write(d.interim ? String(d.delta) : String(d.block));
      } else if (e.stream === 'tool' && d.phase === 'start') {
        if (!atLineStart) write('\n');
        err(`→ ${String(d.name)} ${JSON.stringify(d.args)}`);
      } else if (e.stream === 'compaction') {
        if (!atLineStart) write('\n');
        if (d.phase === 'start') io.err('agentdesk: compacting the conversation (the model summarises older turns)…\n');
        else if (d.error) err(`agentdesk: compaction failed: ${String(d.error)}`);
        else io.err(`agentdesk: compacted the conversation: about ${String(d.tokensBefore)} → ${String(d.tokensAfter)} tokens\n`);
      } else if (e.stream === 'tool' && d.phase === 'end') {
        err(`${d.isError ? '✗' : '✓'} ${String(d.name)} (${String(d.durationMs)} ms)${d.isError ? `: ${visibleLine(String(d.result).split('\n')[0]!)}` : ''}`);
      } else if (e.stream === 'queue' && d.phase === 'waiting') {
        const what = d.lane === 'session' ? 'another run on this session to finish' : 'a free run slot';
        io.err(`agentdesk: waiting for ${what} (${Math.round(Number(d.waitedMs) / 1000)} s so far)\n`);
      }
    },
    result(r) {
      if (!atLineStart) write('\n');
      if (r.meta.command && r.status !== 'ok') err(`agentdesk: ${r.meta.error ?? 'the command failed'}`);
      else if (r.status !== 'ok') err(`agentdesk: run ${r.status}: ${r.meta.error ?? 'unknown error'}`);
      else if (lastTurn === -1) for (const p of r.payloads) write(`${p.text}\n${verbose ? '\n' : ''}`);
    },
  };
}
