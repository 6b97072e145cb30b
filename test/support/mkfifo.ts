/** Test helper: a FIFO (named pipe) via the system's mkfifo — a special file the tools must never block on. */
import { execFileSync } from 'node:child_process';

export function mkfifoSync(p: string): void {
  execFileSync('mkfifo', [p]);
}
