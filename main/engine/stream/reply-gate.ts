/**
 * The reply gate (E16 on the streaming path): visible assistant text of one model call passes through here before
 * anything is shown. It holds back
 * - the start of a reply while it could still become a silent reply (`NO`, `No_Rep`, `{"action":"NO_`), and drops
 *   a token glued to the reply's first word (`NO_REPLYThe…`),
 * - a trailing `NO_…` tail after real text (a trailing token is stripped, the text is delivered),
 * - the start of a reply while it is still a prefix of a text the messaging tool already posted,
 * and at the end decides: silent (nothing is ever shown), a duplicate of a posted message (nothing shown), or the
 * rest of the text.
 */
import { couldBeMessagingDuplicate, isMessagingDuplicate } from './messaging-dedupe.js';
import { couldBeSilentReply, isSilentReply, silentTailLength, stripLeadingSilentToken, stripSilentToken } from './silent.js';

export interface GateEnd {
  /** Text released at the end (the held rest). */
  release: string;
  suppressed?: 'silent' | 'duplicate';
}

/** Enough of the shown text's end to judge a trailing token (`**NO_REPLY**` plus whitespace fits many times). */
const TAIL_WINDOW = 64;
/** The kept end grows to this before it is cut back to TAIL_WINDOW (one slice per many deltas, not per delta). */
const TAIL_KEEP = 4 * TAIL_WINDOW;

/**
 * False when `text` cannot end a trailing token, whatever came before it: silentTailLength's pattern ends in
 * `[A-Z_]`, `*` or whitespace. Anything else outside ASCII is left to the pattern itself.
 */
export function mayEndSilentTail(text: string): boolean {
  if (text === '') return true;
  const c = text.charCodeAt(text.length - 1);
  return (c >= 65 && c <= 90) || c === 95 || c === 42 || c <= 32 || c >= 127;
}

export class ReplyGate {
  // Only the end of the shown text is kept (at least TAIL_WINDOW characters of it, when there are that many):
  // every push costs O(delta), never O(reply so far).
  private shownLength = 0;
  private shownEnd = '';
  private held = '';

  constructor(private readonly sentNormalized: () => readonly string[] = () => []) {}

  /**
   * The shown tail plus what is held, with a non-space sentinel in front when earlier text was cut off, so a
   * pattern anchored at the start cannot match in the middle of the reply.
   */
  private window(): string {
    const tail = this.shownEnd.length > TAIL_WINDOW ? this.shownEnd.slice(-TAIL_WINDOW) : this.shownEnd;
    const cut = this.shownLength > tail.length;
    return `${cut ? 'x' : ''}${tail}${this.held}`;
  }

  private show(out: string): string {
    this.shownLength += out.length;
    this.shownEnd += out;
    if (this.shownEnd.length > TAIL_KEEP) this.shownEnd = this.shownEnd.slice(-TAIL_WINDOW);
    return out;
  }

  /** Adds visible text; returns what may be shown now. */
  push(delta: string): string {
    if (delta === '') return '';
    this.held += delta;
    if (this.shownLength === 0 && (couldBeSilentReply(this.held) || couldBeMessagingDuplicate(this.held, this.sentNormalized()))) {
      return '';
    }
    // The first text shown: a token glued to the reply's first word ("NO_REPLYThe…") is a slip, not the reply.
    if (this.shownLength === 0) this.held = stripLeadingSilentToken(this.held);
    // Most deltas end in a character no trailing token ends in: nothing to hold, no window to build.
    if (!mayEndSilentTail(delta)) {
      const out = this.held;
      this.held = '';
      return this.show(out);
    }
    const tail = Math.min(silentTailLength(this.window()), this.held.length);
    const out = this.held.slice(0, this.held.length - tail);
    this.held = this.held.slice(this.held.length - tail);
    return this.show(out);
  }

  private clear(end: GateEnd): GateEnd {
    this.held = '';
    return end;
  }

  /** The call ended: the decision and whatever was still held. */
  end(): GateEnd {
    let held = this.held;
    if (this.shownLength === 0 && held.trim() !== '') {
      if (isSilentReply(held)) return this.clear({ release: '', suppressed: 'silent' });
      if (isMessagingDuplicate(held, this.sentNormalized())) return this.clear({ release: '', suppressed: 'duplicate' });
      held = stripLeadingSilentToken(held);
      this.held = held;
    }
    const window = this.window();
    this.held = '';
    const removed = window.length - stripSilentToken(window).length;
    return { release: this.show(held.slice(0, Math.max(0, held.length - removed))) };
  }
}
