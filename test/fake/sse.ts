/** SSE framing and a writer that flushes one event at a time so faults land mid-stream. */
import type { ServerResponse } from 'node:http';

/** `event: NAME\ndata: JSON\n\n` (Anthropic) or `data: JSON\n\n` (OpenAI, name null). */
export function sseFrame(event: string | null, data: unknown): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event === null ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Splits text into pieces of `size` characters (at least one piece, even for ''). */
export function chunkText(text: string, size: number): string[] {
  const n = Math.max(1, Math.floor(size));
  if (text.length === 0) return [''];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
  return out;
}

/** Rough token estimate used for default usage numbers (chars / 4). */
export const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

export function isOpen(res: ServerResponse): boolean {
  return !res.destroyed && !res.writableEnded && !res.socket?.destroyed;
}

/** Writes one chunk and resolves once it has been handed to the socket (false if the client is gone). */
export function writeFlushed(res: ServerResponse, chunk: string): Promise<boolean> {
  if (!isOpen(res)) return Promise.resolve(false);
  return new Promise((resolve) => {
    res.write(chunk, (err) => resolve(!err));
  });
}
