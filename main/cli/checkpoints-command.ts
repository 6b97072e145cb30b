/**
 * `agentdesk checkpoints list|restore|undo` (X2, SPEC "The headless command line"):
 *
 *   list --session KEY [--json]                    oldest first; --json: [{"id","createdAt","label","files",…}]
 *   restore --session KEY --id ID [--conversation] the workspace (and with --conversation the chat too) back to
 *                                                  just before checkpoint ID's turn; one line
 *   undo --session KEY                             takes the session's last restore back; one line
 *
 * All take --home like the other commands; the workspace is the one the session's checkpoints were taken in.
 * Exit status: 0 done, 1 refused or failed (a run is active, nothing to undo, a damaged store, a folder that cannot
 * be written: put back as it was), 2 bad usage or an unknown
 * session or checkpoint id (one line naming it).
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { loadConfig } from '../engine/config/load.js';
import { openCheckpoints } from '../checkpoints/open.js';
import { RestoreRefusedError } from '../checkpoints/service.js';
import { CheckpointNotFoundError } from '../checkpoints/store.js';
import { SessionStore } from '../sessions/store.js';
import type { Io } from './agent-command.js';
import { homeFrom } from './home.js';
import { escapeForTerminal } from './terminal-text.js';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from './usage-error.js';

export interface CheckpointsArgs {
  action: 'list' | 'restore' | 'undo';
  session: string;
  id?: string;
  conversation: boolean;
  json: boolean;
  home?: string;
}

export function parseCheckpointsArgs(argv: string[]): CheckpointsArgs {
  const [action, ...rest] = argv;
  if (action !== 'list' && action !== 'restore' && action !== 'undo') {
    throw new UsageError(action ? `unknown checkpoints action "${action}" (list, restore or undo)` : 'missing action: checkpoints list, restore or undo');
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: {
        session: { type: 'string' },
        id: { type: 'string' },
        conversation: { type: 'boolean' },
        json: { type: 'boolean' },
        home: { type: 'string' },
      },
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message.split('. ')[0]!.replace(/\.$/, ''));
  }
  const session = values.session as string | undefined;
  if (!session?.trim()) throw new UsageError('missing --session KEY');
  const id = values.id as string | undefined;
  if (action === 'restore' && !id?.trim()) throw new UsageError('missing --id ID (see `agentdesk checkpoints list --session KEY`)');
  if (action !== 'restore' && id !== undefined) throw new UsageError(`--id is only for checkpoints restore`);
  if (action !== 'restore' && values.conversation) throw new UsageError('--conversation is only for checkpoints restore');
  if (action !== 'list' && values.json) throw new UsageError('--json is only for checkpoints list');
  return {
    action,
    session,
    ...(id !== undefined ? { id } : {}),
    conversation: Boolean(values.conversation),
    json: Boolean(values.json),
    ...(values.home !== undefined ? { home: values.home as string } : {}),
  };
}

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/**
 * Text for one line of the terminal: control characters shown escaped (X5) — a label is the first line of a user
 * message and a file name may hold anything: neither may clear the screen, retitle the window or, with a new line,
 * add a line of its own (`restore` and `undo` print one line).
 */
const oneLine = (s: string) => escapeForTerminal(s).replace(/\n/g, '\\n');

export async function runCheckpointsCommand(args: CheckpointsArgs, io: Io): Promise<number> {
  const home = resolve(io.cwd, homeFrom(args.home, io.env).home);
  const config = await loadConfig(home);
  const sessions = new SessionStore(join(home, 'sessions'));
  let noticed = false;
  const cps = await openCheckpoints({
    home,
    sessions,
    config: () => config,
    onNotice: (l) => {
      noticed = true;
      io.err(`agentdesk: ${oneLine(l)}\n`);
    },
  });
  const known = (await sessions.get(args.session)) !== undefined || cps.store.records(args.session).length > 0;
  if (!known) throw new UsageError(`no session "${args.session}" in ${home}`);
  try {
    if (args.action === 'list') {
      const { checkpoints, lastRestore } = await cps.service.list(args.session);
      // A restore left partly done (it could neither be finished nor put back): said at every list, until undone.
      if (lastRestore?.incomplete && !noticed) io.err(`agentdesk: ${oneLine(lastRestore.incomplete)}\n`);
      if (args.json) io.out(`${JSON.stringify(checkpoints.map(({ id, createdAt, label, files, skipped }) => ({ id, createdAt, label, files, skipped })))}\n`);
      else if (checkpoints.length === 0) io.out(`No checkpoints in session "${args.session}" yet (one is made before a turn's first change).\n`);
      else {
        // What a checkpoint did not record is named, not only counted (too large, special, unreadable).
        const samples = new Map(cps.store.list(args.session).map((r) => [r.id, r.skippedSample ?? []]));
        for (const c of checkpoints) {
          const sample = samples.get(c.id) ?? [];
          const skipped = c.skipped ? ` (${c.skipped} skipped: ${sample.slice(0, 3).join(', ')}${c.skipped > 3 ? ', …' : ''})` : '';
          io.out(`${c.id}\t${when(c.createdAt)}\t${oneLine(`${c.files} files${skipped}`)}\t${oneLine(c.label).replace(/\t/g, '\\t')}\n`);
        }
      }
      return EXIT_OK;
    }
    const result = args.action === 'restore'
      ? await cps.service.restore(args.session, args.id!, args.conversation ? 'both' : 'files')
      : await cps.service.undo(args.session);
    io.out(`${oneLine(result.message)}\n`);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CheckpointNotFoundError) throw new UsageError(err.message.replace(/^No checkpoint/, 'no checkpoint').replace(/\.$/, ''));
    if (err instanceof RestoreRefusedError || (err as Error)?.name === 'CorruptObjectError' || (err as Error)?.name === 'RestoreFailedError') {
      io.err(`agentdesk: ${oneLine((err as Error).message)}\n`);
      return EXIT_RUN_FAILED;
    }
    throw err;
  }
}
