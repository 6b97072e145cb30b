/**
 * Keys for new sessions. A new app chat and a CLI run without `--session` each start their own session
 * (`chat-20261130-141502-3fa9`, `cli-…`) instead of piling everything into one ever-growing "main".
 */
import { randomBytes } from 'node:crypto';

const pad = (n: number): string => String(n).padStart(2, '0');

export function newSessionKey(prefix: 'chat' | 'cli', now: number = Date.now(), rand: () => string = () => randomBytes(2).toString('hex')): string {
  const d = new Date(now);
  const stamp = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  return `${prefix}-${stamp}-${rand()}`;
}
