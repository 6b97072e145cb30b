/**
 * Subagents across processes (E20, for `agentdesk subagents list|abort|steer`): a subagent lives in the process
 * whose run spawned it (the app, or an `agentdesk agent` command), so another process reaches it through the home
 * folder:
 *
 *   <home>/subagents/<pid>.json              the owner's current list (atomic rename on every change)
 *   <home>/subagents/requests/<pid>/<id>.json   an abort/steer request for that owner
 *   <home>/subagents/responses/<id>.json        the owner's answer
 *
 * The owner polls its request folder (and refreshes its list) every 200 ms while it has an active subagent. A list file whose process is
 * gone is ignored and removed. Nothing secret is written: ids, session keys, the task text, statuses.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SteerResultDto, SubagentDto } from '../../preload/contract.js';
import type { Subagents } from '../engine/run/subagents.js';

export const CONTROL_POLL_MS = 200;

export type ControlRequest = { id: string; action: 'abort' } | { id: string; action: 'steer'; message: string };
export type ControlResponse = { ok: true; aborted?: boolean; steer?: SteerResultDto } | { ok: false; error: string };

const controlDir = (home: string) => join(home, 'subagents');

async function writeAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.tmp-${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, JSON.stringify(value));
  await rename(tmp, file);
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The owner side, attached to one gateway. */
export class SubagentControl {
  private timer: NodeJS.Timeout | undefined;
  private publishing = Promise.resolve();
  private closed = false;
  private lastWritten = '';

  constructor(
    private readonly home: string,
    private readonly subagents: Subagents,
    private readonly pid = process.pid,
  ) {}

  /** Writes the current list and polls for requests while a subagent is active. */
  changed(): void {
    if (this.closed) return;
    this.publishing = this.publishing.then(() => this.publish()).catch((err: Error) => console.error(`[agentdesk] subagent list: ${err.message}`));
    if (this.subagents.hasActive && !this.timer) this.timer = setInterval(() => void this.poll(), CONTROL_POLL_MS);
    if (!this.subagents.hasActive && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.publishing;
    await unlink(join(controlDir(this.home), `${this.pid}.json`)).catch(() => undefined);
  }

  private async publish(): Promise<void> {
    const body = { pid: this.pid, subagents: this.subagents.list() };
    const text = JSON.stringify(body);
    if (text === this.lastWritten) return;
    await mkdir(controlDir(this.home), { recursive: true });
    await writeAtomic(join(controlDir(this.home), `${this.pid}.json`), body);
    this.lastWritten = text;
  }

  private async poll(): Promise<void> {
    // A child's queued → running change has no event of its own: the list is refreshed on every tick.
    this.publishing = this.publishing.then(() => this.publish()).catch(() => undefined);
    const dir = join(controlDir(this.home), 'requests', String(this.pid));
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return;
    }
    for (const name of names) {
      const file = join(dir, name);
      const req = await readJson<ControlRequest>(file);
      await unlink(file).catch(() => undefined);
      if (!req) continue;
      let res: ControlResponse;
      try {
        res =
          req.action === 'abort'
            ? { ok: true, aborted: this.subagents.abort(req.id) }
            : { ok: true, steer: await this.subagents.steer(req.id, req.message) };
      } catch (err) {
        res = { ok: false, error: (err as Error).message };
      }
      await mkdir(join(controlDir(this.home), 'responses'), { recursive: true });
      await writeAtomic(join(controlDir(this.home), 'responses', name), res);
    }
  }
}

/** Every live process's subagents in this home folder (lists of dead processes are removed). */
export async function listSubagentsInHome(home: string): Promise<(SubagentDto & { pid: number })[]> {
  let names: string[];
  try {
    names = (await readdir(controlDir(home))).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: (SubagentDto & { pid: number })[] = [];
  for (const name of names) {
    const file = join(controlDir(home), name);
    const data = await readJson<{ pid: number; subagents: SubagentDto[] }>(file);
    if (!data) continue;
    if (!alive(data.pid)) {
      await unlink(file).catch(() => undefined);
      continue;
    }
    out.push(...data.subagents.map((s) => ({ ...s, pid: data.pid })));
  }
  return out.sort((a, b) => a.startedAt - b.startedAt);
}

export class SubagentControlError extends Error {
  override name = 'SubagentControlError';
}

/** Sends a request to the process that owns subagent `req.id` and waits for its answer. */
export async function requestSubagentAction(home: string, req: ControlRequest, timeoutMs = 10_000): Promise<ControlResponse> {
  const owner = (await listSubagentsInHome(home)).find((s) => s.id === req.id);
  if (!owner) throw new SubagentControlError(`no subagent with id ${req.id} (see \`agentdesk subagents list\`)`);
  const name = `${randomBytes(8).toString('hex')}.json`;
  const dir = join(controlDir(home), 'requests', String(owner.pid));
  await mkdir(dir, { recursive: true });
  await writeAtomic(join(dir, name), req);
  const responseFile = join(controlDir(home), 'responses', name);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await readJson<ControlResponse>(responseFile);
    if (res) {
      await unlink(responseFile).catch(() => undefined);
      return res;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await unlink(join(dir, name)).catch(() => undefined);
  throw new SubagentControlError(`the process running subagent ${req.id} did not answer within ${Math.round(timeoutMs / 1000)} s`);
}
