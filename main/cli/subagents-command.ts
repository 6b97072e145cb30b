/**
 * `agentdesk subagents list|abort|steer`: the subagents of every process using this home folder (the app, other
 * `agentdesk agent` commands), reached through the home folder (main/gateway/subagent-control.ts).
 */
import { resolve } from 'node:path';
import { listSubagentsInHome, requestSubagentAction } from '../gateway/subagent-control.js';
import type { SubagentsArgs } from './args.js';
import { defaultHome } from './home.js';
import type { Io } from './agent-command.js';
import { EXIT_OK, EXIT_RUN_FAILED } from './usage-error.js';

const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export async function runSubagentsCommand(args: SubagentsArgs, io: Io): Promise<number> {
  const home = resolve(io.cwd, args.home ?? defaultHome(io.env));
  if (args.action === 'list') {
    const all = await listSubagentsInHome(home);
    if (args.json) io.out(`${JSON.stringify(all)}\n`);
    else if (all.length === 0) io.out('No subagents.\n');
    else for (const s of all) io.out(`${s.id}\t${s.status}\tparent ${s.parentSessionKey}\t${s.sessionKey}\t${oneLine(s.task, 60)}\n`);
    return EXIT_OK;
  }
  const res =
    args.action === 'abort'
      ? await requestSubagentAction(home, { id: args.id!, action: 'abort' })
      : await requestSubagentAction(home, { id: args.id!, action: 'steer', message: args.message! });
  if (args.json) io.out(`${JSON.stringify(res)}\n`);
  if (!res.ok) {
    io.err(`agentdesk: ${res.error}\n`);
    return EXIT_RUN_FAILED;
  }
  if (args.action === 'abort') {
    if (!args.json) io.out(res.aborted ? `Stopped subagent ${args.id}.\n` : `Subagent ${args.id} had already ended.\n`);
    return res.aborted ? EXIT_OK : EXIT_RUN_FAILED;
  }
  const steer = res.steer!;
  if (steer.status === 'rate_limited') {
    io.err(`agentdesk: subagent ${args.id} was steered less than 2 s ago; try again in ${Math.ceil(steer.retryAfterMs / 100) / 10} s\n`);
    return EXIT_RUN_FAILED;
  }
  if (!args.json) io.out(`Steered subagent ${args.id}: now run ${steer.runId}.\n`);
  return EXIT_OK;
}
