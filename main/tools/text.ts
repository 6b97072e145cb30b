/** Pure text helpers shared by the tools: output caps and size formatting. */

export function omittedNote(chars: number): string {
  return `[… ${chars} chars omitted …]`;
}

/**
 * Collects streamed output with bounded memory, keeping the first and last `cap / 2` characters.
 * `text()` returns everything when it fits, otherwise head + "[… N chars omitted …]" + tail.
 */
export class HeadTailCollector {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(private readonly cap: number) {
    this.headCap = Math.ceil(cap / 2);
    this.tailCap = Math.floor(cap / 2);
  }

  push(chunk: string): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.head.length < this.headCap) {
      const take = this.headCap - this.head.length;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
    }
    if (rest === '' || this.tailCap === 0) return;
    this.tail = (this.tail + rest).slice(-this.tailCap);
  }

  /** Characters pushed so far. */
  get length(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.cap;
  }

  text(): string {
    if (!this.truncated) return this.head + this.tail;
    const omitted = this.total - this.head.length - this.tail.length;
    return `${this.head}\n${omittedNote(omitted)}\n${this.tail}`;
  }
}

/** Caps `text` to `cap` characters, keeping head and tail (same shape as HeadTailCollector). */
export function headTail(text: string, cap: number): string {
  const c = new HeadTailCollector(cap);
  c.push(text);
  return c.text();
}

/** 0 → "0 B", 1536 → "1.5 KB", 5_000_000 → "4.8 MB". */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
