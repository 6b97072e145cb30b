/**
 * What each engine-owned command does (E22; parse.ts says what is one). The same code answers the chat, the CLI
 * (`agentdesk agent --message /stop`) and the web UI, and fires its command hook (`command:new`, `command:reset`,
 * `command:stop`, `command:compact`, … — E19 internal hooks). Nothing here reaches the model or the transcript.
 *
 * - `/new`: a new session (a new key) on the defaults for new chats (Settings › Defaults: model, thinking, verbose),
 *   not the current session's choices — what a person set as the default is what a new chat uses (issue 18).
 * - `/reset`: the key starts over with a fresh transcript; the earlier conversation is kept as a chat of its own
 *   ("Before reset: …": listed, searchable; `sessions.undoReset` puts it back while the fresh one is empty);
 *   refused while a run of the session is in progress anywhere (stop it first).
 * - `/stop`: stops the session's runs in this process (the running one and those queued behind it) and asks the
 *   process that holds the session's run lock, if it is another one, to stop its run (session-lock.ts).
 * - `/compact`: a compaction run in the session's lane (the caller starts it; see `start`).
 * - `/model`, `/think`, `/verbose`: the session's choice for its next turns (alone: shows it).
 * - `/status`: the session's model, thinking, verbose, context used and billed tokens.
 */
import type { CommandOutcome } from '../../../preload/contract.js';
import type { HookRunner } from '../../engine/attempt/hook-runner.js';
import type { AppConfig } from '../../engine/config/schema.js';
import { abortError } from '../../engine/abort.js';
import type { RunRegistry } from '../../engine/run/runs.js';
import type { ModelDef } from '../../providers/types.js';
import { keepAsChat } from '../../sessions/keep-earlier.js';
import { newSessionKey } from '../../sessions/new-key.js';
import type { SessionEntry, SessionStore } from '../../sessions/store.js';
import type { StopRequestOutcome } from '../../sessions/session-lock.js';
import { toSummary } from '../methods/sessions.js';
import type { Command, ParsedCommand } from './parse.js';

export interface CommandDeps {
  store: SessionStore;
  runs: RunRegistry;
  /** Live (a settings change applies to the next command). */
  config: AppConfig;
  hooks: HookRunner;
  now: () => number;
  /** Throws (with a message naming the problem) when `ref` is not a model of the catalogue. */
  resolveModel: (ref: string) => ModelDef;
  /** The model a session without its own choice uses. */
  defaultModelRef: () => string;
  /** The window every budget decision uses for `model` (agent.contextTokens caps it). */
  contextTokens: (model: ModelDef) => number;
  /** True while a run of `sessionKey` is accepted and not ended in this process. */
  busyHere: (sessionKey: string) => boolean;
  /** The live holder of the session's run lock, if another process's run holds it. */
  busyElsewhere: (sessionKey: string) => Promise<boolean>;
  /** Asks the holder of the session's run lock (another process) to stop. */
  stopElsewhere: (sessionKey: string) => Promise<StopRequestOutcome>;
  /** Starts the `/compact` run of a session; resolves with its runId. */
  compact: (sessionKey: string) => Promise<string>;
}

const THINKING_WORD = { off: 'off', minimal: 'minimal', low: 'low', medium: 'medium', high: 'high' } as const;

export async function runCommand(parsed: ParsedCommand, sessionKey: string, deps: CommandDeps): Promise<CommandOutcome> {
  if (parsed.kind === 'invalid') return { command: parsed.name, ok: false, notice: parsed.message };
  const cmd = parsed.command;
  const before = await deps.store.get(sessionKey);
  const outcome = await execute(cmd, sessionKey, before, deps);
  // E19 command hooks: fire-and-forget, like the seeds' internal hooks.
  const after = outcome.session;
  void deps.hooks.fire(`command:${cmd.name}`, {
    command: cmd.name,
    ...(args(cmd) ? { args: args(cmd) } : {}),
    sessionKey,
    ...(before ? { sessionId: before.sessionId } : {}),
    ok: outcome.ok,
    ...(after && after.sessionKey !== sessionKey ? { newSessionKey: after.sessionKey } : {}),
  }, { sessionKey, ...(before ? { sessionId: before.sessionId } : {}) });
  return outcome;
}

const args = (cmd: Command): string | undefined =>
  cmd.name === 'model' ? cmd.ref : cmd.name === 'think' ? cmd.level : cmd.name === 'verbose' && cmd.on !== undefined ? (cmd.on ? 'on' : 'off') : undefined;

async function execute(cmd: Command, sessionKey: string, entry: SessionEntry | undefined, deps: CommandDeps): Promise<CommandOutcome> {
  const { store } = deps;
  const name = cmd.name;
  const done = (notice: string, session?: SessionEntry): CommandOutcome => ({ command: name, ok: true, notice, ...(session ? { session: toSummary(session) } : {}) });
  const refused = (notice: string): CommandOutcome => ({ command: name, ok: false, notice });
  const modelOf = (e: SessionEntry | undefined) => e?.model ?? deps.defaultModelRef();
  const thinkingOf = (e: SessionEntry | undefined) => e?.thinking ?? deps.config.agent.thinking;
  const verboseOf = (e: SessionEntry | undefined) => e?.verbose ?? deps.config.agent.verbose;

  switch (cmd.name) {
    case 'stop': {
      const here = entry ? deps.runs.abortSession(entry.sessionId, abortError('The run was stopped.')) : 0;
      const elsewhere = await deps.stopElsewhere(sessionKey);
      if (elsewhere.status === 'no_answer') {
        return refused(`The reply running in another AgentDesk process (pid ${elsewhere.pid}) did not answer the stop request; try again.`);
      }
      if (here === 0 && elsewhere.status === 'none') return done('Nothing to stop: no reply is running in this session.');
      const where = here === 0 ? ' (it was running in another AgentDesk process)' : '';
      return done(`Stopped the reply${here > 1 ? ' and the messages queued behind it' : ''}${where}.`);
    }
    case 'new': {
      const prefix = sessionKey.startsWith('cli-') ? 'cli' : 'chat';
      let key = newSessionKey(prefix, deps.now());
      while (await store.get(key)) key = newSessionKey(prefix, deps.now());
      const created = await store.resolve(key, {});
      return done(`Started a new session: ${key} (${deps.defaultModelRef()}).`, created);
    }
    case 'reset': {
      if (deps.busyHere(sessionKey) || (await deps.busyElsewhere(sessionKey))) {
        return refused('A reply is running in this session: stop it first (/stop), then /reset.');
      }
      const fresh = await store.reset(sessionKey);
      const kept = entry ? await keepAsChat(store, entry, 'reset', deps.now()) : undefined;
      if (!kept) return done('Started this session over.', fresh);
      return { ...done(`Started this session over. The earlier conversation is kept as “${kept.title}” (${kept.sessionKey}).`, fresh), kept: toSummary(kept) };
    }
    case 'compact': {
      const runId = await deps.compact(sessionKey);
      return { command: name, ok: true, notice: 'Compacting the conversation…', runId };
    }
    case 'model': {
      if (cmd.ref === undefined) return done(`Model: ${modelOf(entry)}${entry?.model ? '' : ' (the default)'}. Change it with /model PROVIDER/MODEL.`, entry);
      let model: ModelDef;
      try {
        model = deps.resolveModel(cmd.ref);
      } catch (err) {
        return refused((err as Error).message);
      }
      const ref = `${model.provider}/${model.id}`;
      await store.resolve(sessionKey, { model: ref });
      const updated = await store.update(sessionKey, { model: ref });
      return done(`The next turn uses ${ref}.`, updated);
    }
    case 'think': {
      if (cmd.level === undefined) return done(`Thinking: ${thinkingOf(entry)}${entry?.thinking ? '' : ' (the default)'}. Change it with /think off|minimal|low|medium|high.`, entry);
      await store.resolve(sessionKey, { model: modelOf(entry) });
      const updated = await store.update(sessionKey, { thinking: cmd.level });
      const model = safeModel(deps, modelOf(updated));
      const note = model && !model.reasoning && cmd.level !== 'off' ? ` (${model.provider}/${model.id} does not reason: it applies to models that do)` : '';
      return done(`Thinking is ${THINKING_WORD[cmd.level]} from the next turn${note}.`, updated);
    }
    case 'verbose': {
      if (cmd.on === undefined) return done(`Verbose replies are ${verboseOf(entry) ? 'on' : 'off'}${entry?.verbose === undefined ? ' (the default)' : ''}. Change it with /verbose on|off.`, entry);
      await store.resolve(sessionKey, { model: modelOf(entry) });
      const updated = await store.update(sessionKey, { verbose: cmd.on });
      return done(cmd.on ? 'Verbose replies on: reasoning and tool summaries are added to the replies.' : 'Verbose replies off.', updated);
    }
    case 'status':
      return done(statusText(sessionKey, entry, deps), entry);
  }
}

function safeModel(deps: CommandDeps, ref: string): ModelDef | undefined {
  try {
    return deps.resolveModel(ref);
  } catch {
    return undefined;
  }
}

const n = (x: number) => x.toLocaleString('en-US');

/** `/status`: one short paragraph about the session. */
export function statusText(sessionKey: string, entry: SessionEntry | undefined, deps: Pick<CommandDeps, 'config' | 'defaultModelRef' | 'resolveModel' | 'contextTokens'>): string {
  const ref = entry?.model ?? deps.defaultModelRef();
  const model = safeModel(deps as CommandDeps, ref);
  const lines = [
    `Session ${sessionKey}${entry ? '' : ' (no messages yet)'}.`,
    `Model ${ref}${entry?.model ? '' : ' (default)'}, thinking ${entry?.thinking ?? deps.config.agent.thinking}, verbose ${(entry?.verbose ?? deps.config.agent.verbose) ? 'on' : 'off'}.`,
  ];
  if (entry) {
    const window = model ? deps.contextTokens(model) : undefined;
    if (entry.context !== undefined) lines.push(`Context: about ${n(entry.context)}${window ? ` of ${n(window)}` : ''} tokens.`);
    const u = entry.usage;
    const cost = u.cost !== undefined ? `, $${u.cost < 0.01 ? u.cost.toFixed(4) : u.cost.toFixed(2)}` : '';
    lines.push(`Billed so far: ${n(u.input)} in, ${n(u.output)} out, ${n(u.cacheRead)} cache read, ${n(u.cacheWrite)} cache write${cost}.`);
  }
  return lines.join(' ');
}
