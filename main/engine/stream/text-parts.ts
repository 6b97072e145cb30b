/**
 * A string built from many small appends (streamed deltas) that is read rarely (at the end of a message). `a += b`
 * makes a rope with one heap node per append that lives as long as the text, which the garbage collector copies
 * again and again while a long reply streams; here the pieces wait in an array and are joined in batches.
 */
const BATCH = 512;

export class TextParts {
  private readonly parts: string[] = [];
  private joined = '';
  private size = 0;

  push(piece: string): void {
    if (piece === '') return;
    this.parts.push(piece);
    this.size += piece.length;
    if (this.parts.length >= BATCH) this.collapse();
  }

  get length(): number {
    return this.size;
  }

  get text(): string {
    if (this.parts.length > 0) this.collapse();
    return this.joined;
  }

  private collapse(): void {
    this.joined += this.parts.join('');
    this.parts.length = 0;
  }
}
