/**
 * Background commands started by `exec {background: true}`, kept per run: a run sees, reads and kills only its
 * own children (`process {action: list|output|kill}`), and they are killed when the run ends, when their time
 * limit passes, or when the app exits.
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import type { HeadTailCollector } from './text.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export interface BackgroundProcess {
  id: string;
  pid: number | undefined;
  command: string;
  startedAt: number;
  output: HeadTailCollector;
  /** Set once it ended: "exit code N", "killed: …". */
  status?: string;
  kill(): void;
  /** Resolves when the process has ended and its output is complete. */
  done: Promise<void>;
}

/** The scope used when a tool context carries no run id (unit tests, scripts). */
export const NO_RUN = '(no run)';

export class ProcessTable {
  private readonly runs = new Map<string, Map<string, BackgroundProcess>>();
  private next = 1;

  newId(): string {
    return `p${this.next++}`;
  }

  add(runId: string, p: BackgroundProcess): void {
    let mine = this.runs.get(runId);
    if (!mine) this.runs.set(runId, (mine = new Map()));
    mine.set(p.id, p);
  }

  list(runId: string): BackgroundProcess[] {
    return [...(this.runs.get(runId)?.values() ?? [])];
  }

  get(runId: string, id: string): BackgroundProcess | undefined {
    return this.runs.get(runId)?.get(id);
  }

  /** Kills every still-running process of the run and forgets them. */
  endRun(runId: string): void {
    for (const p of this.list(runId)) if (p.status === undefined) p.kill();
    this.runs.delete(runId);
  }

  killAll(): void {
    for (const runId of [...this.runs.keys()]) this.endRun(runId);
  }
}

/** One table per process (the app and the CLI each have one). */
export const processTable = new ProcessTable();
process.once('exit', () => processTable.killAll());

const Args = lazy(() => z.strictObject({
  action: z.enum(['list', 'output', 'kill'], { error: '`action` must be "list", "output" or "kill"' }),
  id: z.string({ error: '`id` must be a string like "p1"' }).nullish(),
}));

export function createProcessTool(table: ProcessTable = processTable): Tool {
  return {
    name: 'process',
    mutating: false, // lists and stops this run's own commands; the exec call that started them was checkpointed
    description:
      'Manage commands started with exec {background: true} in this run: "list" them, read one\'s "output" ' +
      '(head and tail kept), or "kill" it (the whole process tree).',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['list', 'output', 'kill'] },
        id: { type: 'string', description: 'Process handle from exec, e.g. "p1" (for output and kill).' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runProcess(args, ctx, table),
  };
}

async function runProcess(rawArgs: unknown, ctx: ToolContext, table: ProcessTable): Promise<ToolOutput> {
  const args = parseArgs('process', Args, rawArgs);
  const runId = ctx.run?.runId ?? NO_RUN;
  if (args.action === 'list') {
    const all = table.list(runId);
    if (all.length === 0) return { content: 'No background processes in this run.' };
    return {
      content: all.map((p) => `${p.id}  ${p.status ?? 'running'}  ${p.command}`).join('\n'),
      details: { count: all.length },
    };
  }
  if (!args.id) throw new ToolError(`process: \`id\` is required for "${args.action}"`);
  const p = table.get(runId, args.id);
  if (!p) {
    const ids = table.list(runId).map((x) => x.id);
    throw new ToolError(`process: no background process "${args.id}" in this run${ids.length ? ` (known: ${ids.join(', ')})` : ''}`);
  }
  if (args.action === 'kill') {
    if (p.status === undefined) {
      p.kill();
      await p.done;
    }
    return { content: `${p.id}: ${p.status ?? 'killed'}\n${p.output.text() || '(no output)'}` };
  }
  return { content: `${p.id}: ${p.status ?? 'running'}\n${p.output.text() || '(no output yet)'}` };
}
