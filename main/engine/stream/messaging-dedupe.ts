/**
 * Messaging-tool duplicate suppression (E16, inventory §14): a final reply that repeats what the model already
 * posted with `send_message` is not delivered again. Texts are compared normalised (lower case, no emoji,
 * whitespace collapsed); a duplicate is when both are at least 10 characters, one contains the other, and the
 * shorter is at least half the longer.
 */
export const MIN_DUPLICATE_CHARS = 10;
export const MIN_DUPLICATE_RATIO = 0.5;

const EMOJI = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{FE0F}\u{200D}\u{20E3}\u{1F3FB}-\u{1F3FF}]/gu;

export function normalizeForComparison(text: string): string {
  return text.toLowerCase().replace(EMOJI, '').replace(/\s+/g, ' ').trim();
}

/** `sentNormalized` holds texts already passed through normalizeForComparison. */
export function isMessagingDuplicate(text: string, sentNormalized: readonly string[]): boolean {
  const n = normalizeForComparison(text);
  if (n.length < MIN_DUPLICATE_CHARS) return false;
  return sentNormalized.some((s) => {
    if (s.length < MIN_DUPLICATE_CHARS) return false;
    const [short, long] = n.length <= s.length ? [n, s] : [s, n];
    return long.includes(short) && short.length / long.length >= MIN_DUPLICATE_RATIO;
  });
}

/** True while a streamed reply is still a prefix of a sent text (held back until it is clear). */
export function couldBeMessagingDuplicate(soFar: string, sentNormalized: readonly string[]): boolean {
  const n = normalizeForComparison(soFar);
  return n.length > 0 && sentNormalized.some((s) => s.startsWith(n));
}

/**
 * Two-phase record of texts posted by the messaging tool: `pending` at tool start, `commit` only when the tool
 * succeeded, `discard` when it failed (a failed send must not suppress the reply).
 */
export class MessagingLedger {
  private readonly pending = new Map<string, string>();
  private readonly sent: string[] = [];

  begin(toolCallId: string, text: string): void {
    this.pending.set(toolCallId, text);
  }

  end(toolCallId: string, ok: boolean): void {
    const text = this.pending.get(toolCallId);
    this.pending.delete(toolCallId);
    if (ok && text !== undefined && text.trim()) this.sent.push(normalizeForComparison(text));
  }

  /** Committed texts, normalised. */
  sentNormalized(): readonly string[] {
    return this.sent;
  }
}
