/** Strict flag parsing for the CLI contract (SPEC "The headless command line"). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { tryParseModelRef } from '../engine/models.js';
import type { ThinkingLevel } from '../providers/types.js';
import { UsageError } from './usage-error.js';

export interface AgentArgs {
  message: string;
  session?: string;
  home?: string;
  workspace?: string;
  model?: string;
  thinking?: ThinkingLevel;
  timeoutSeconds?: number;
  json: boolean;
  /** How calls that need approval are answered (default: config agent.approvals.mode). */
  approve?: 'ask' | 'auto' | 'deny' | 'unsandboxed';
  /** E16/E21: this run's replies carry reasoning and tool summaries. */
  verbose: boolean;
  /** X3: files sent with the message (`--attach FILE`, repeatable): images and text files. */
  attach: string[];
}

const THINKING: readonly string[] = ['off', 'minimal', 'low', 'medium', 'high'];

/** Longest accepted --timeout: one week (the gateway's limit). */
export const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
const SESSION_KEY_MAX = 200;

/**
 * `--timeout -1`: node's parser calls a value starting with "-" ambiguous. A negative number after an option that
 * takes a value is joined to it (`--timeout=-1`) so the option's own check can name the problem.
 */
function joinNegativeValues(args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    const next = args[i + 1];
    if (name && options[name]?.type === 'string' && next !== undefined && /^-\d|^-\.\d|^-Infinity$/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>, allowPositionals = false) {
  try {
    return parseArgs({ args: joinNegativeValues(args, options), options, strict: true, allowPositionals });
  } catch (err) {
    // node's messages are long ("Unknown option '--x'. To specify a positional argument…"): keep the first sentence.
    throw new UsageError((err as Error).message.split('. ')[0]!.replace(/\.$/, ''));
  }
}

export function parseAgentArgs(args: string[]): AgentArgs {
  const { values } = parse(args, {
    message: { type: 'string', short: 'm' },
    session: { type: 'string' },
    home: { type: 'string' },
    workspace: { type: 'string' },
    model: { type: 'string' },
    thinking: { type: 'string' },
    timeout: { type: 'string' },
    json: { type: 'boolean' },
    approve: { type: 'string' },
    verbose: { type: 'boolean' },
    attach: { type: 'string', multiple: true },
  });
  const attach = (values as { attach?: string[] }).attach ?? [];
  if (attach.some((f) => !f.trim())) throw new UsageError('--attach needs a file name');
  const v = values as Record<string, string | boolean | undefined>;
  const approve = v.approve as string | undefined;
  if (approve !== undefined && !['ask', 'auto', 'deny', 'unsandboxed'].includes(approve)) {
    throw new UsageError(`--approve must be one of ask, auto, deny, unsandboxed (got "${approve}")`);
  }
  const message = v.message as string | undefined;
  if (message === undefined) throw new UsageError('missing --message TEXT');
  if (!message.trim()) throw new UsageError('--message must not be empty');
  const thinking = v.thinking as string | undefined;
  if (thinking !== undefined && !THINKING.includes(thinking)) {
    throw new UsageError(`--thinking must be one of ${THINKING.join(', ')} (got "${thinking}")`);
  }
  let timeoutSeconds: number | undefined;
  if (v.timeout !== undefined) {
    timeoutSeconds = Number(v.timeout);
    if (String(v.timeout).trim() === '' || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
      throw new UsageError(`--timeout must be a positive number of seconds (got "${String(v.timeout)}")`);
    }
    if (timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      throw new UsageError(`--timeout is too long: at most ${MAX_TIMEOUT_SECONDS} seconds (one week), got "${String(v.timeout)}"`);
    }
  }
  const model = v.model as string | undefined;
  if (model !== undefined && !tryParseModelRef(model)) {
    throw new UsageError(`--model must look like PROVIDER/MODEL (got "${model}")`);
  }
  const session = v.session as string | undefined;
  if (session !== undefined && !session.trim()) throw new UsageError('--session must not be empty');
  if (session !== undefined && session.length > SESSION_KEY_MAX) {
    throw new UsageError(`--session is too long: at most ${SESSION_KEY_MAX} characters, got ${session.length}`);
  }
  // eslint-disable-next-line no-control-regex
  if (session !== undefined && /[\u0000-\u001f\u007f]/.test(session)) throw new UsageError('--session must not contain control characters');
  for (const flag of ['home', 'workspace'] as const) {
    if (v[flag] !== undefined && !(v[flag] as string).trim()) throw new UsageError(`--${flag} must not be empty`);
  }
  return {
    message,
    session,
    home: v.home as string | undefined,
    workspace: v.workspace as string | undefined,
    model,
    thinking: thinking as ThinkingLevel | undefined,
    timeoutSeconds,
    json: v.json === true,
    approve: approve as AgentArgs['approve'],
    verbose: v.verbose === true,
    attach,
  };
}

export interface AuthArgs {
  action: 'add' | 'list' | 'remove';
  provider?: string;
  label?: string;
  id?: string;
  home?: string;
}

export function parseAuthArgs(args: string[]): AuthArgs {
  const [action, ...rest] = args;
  if (action === 'add') {
    const { values } = parse(rest, { provider: { type: 'string' }, label: { type: 'string' }, home: { type: 'string' } });
    const v = values as Record<string, string | undefined>;
    if (!v.provider) throw new UsageError('auth add needs --provider NAME');
    if (!v.label) throw new UsageError('auth add needs --label LABEL');
    if (!/^[\w.-]+$/.test(v.label)) throw new UsageError('--label may only contain letters, digits, "_", "-" and "."');
    return { action, provider: v.provider, label: v.label, home: v.home };
  }
  if (action === 'list') {
    const { values } = parse(rest, { home: { type: 'string' } });
    return { action, home: (values as Record<string, string | undefined>).home };
  }
  if (action === 'remove') {
    const { values, positionals } = parse(rest, { home: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new UsageError('auth remove needs exactly one profile ID (see `agentdesk auth list`)');
    return { action, id: positionals[0], home: (values as Record<string, string | undefined>).home };
  }
  throw new UsageError(action ? `unknown auth command "${action}" (use add, list or remove)` : 'auth needs a command: add, list or remove');
}

export interface SubagentsArgs {
  action: 'list' | 'abort' | 'steer';
  id?: string;
  message?: string;
  home?: string;
  json: boolean;
}

/** `subagents list [--json]`, `subagents abort ID`, `subagents steer ID --message TEXT` (all take --home). */
export function parseSubagentsArgs(args: string[]): SubagentsArgs {
  const [action, ...rest] = args;
  if (action === 'list') {
    const { values } = parse(rest, { home: { type: 'string' }, json: { type: 'boolean' } });
    const v = values as Record<string, string | boolean | undefined>;
    return { action, home: v.home as string | undefined, json: v.json === true };
  }
  if (action === 'abort' || action === 'steer') {
    const options: NonNullable<ParseArgsConfig['options']> = { home: { type: 'string' }, json: { type: 'boolean' } };
    if (action === 'steer') options.message = { type: 'string', short: 'm' };
    const { values, positionals } = parse(rest, options, true);
    const v = values as Record<string, string | boolean | undefined>;
    if (positionals.length !== 1) throw new UsageError(`subagents ${action} needs exactly one subagent ID (see \`agentdesk subagents list\`)`);
    const message = v.message as string | undefined;
    if (action === 'steer' && (message === undefined || !message.trim())) throw new UsageError('subagents steer needs --message TEXT');
    return { action, id: positionals[0], home: v.home as string | undefined, json: v.json === true, ...(message !== undefined ? { message } : {}) };
  }
  throw new UsageError(action ? `unknown subagents command "${action}" (use list, abort or steer)` : 'subagents needs a command: list, abort or steer');
}

export interface PluginsArgs {
  action: 'list';
  home?: string;
}

export function parsePluginsArgs(args: string[]): PluginsArgs {
  const [action, ...rest] = args;
  if (action === 'list') {
    const { values } = parse(rest, { home: { type: 'string' } });
    return { action, home: (values as Record<string, string | undefined>).home };
  }
  throw new UsageError(action ? `unknown plugins command "${action}" (use list)` : 'plugins needs a command: list');
}
