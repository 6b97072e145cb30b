/**
 * The reply gate (E16 on the streaming path): visible assistant text of one model call passes through here before
 * anything is shown. It holds back
 * - the start of a reply while it could still become a silent reply (`NO`, `NO_REP`, `{"action":"NO_`),
 * - a trailing `NO_…` tail after real text (a trailing token is stripped, the text is delivered),
 * - the start of a reply while it is still a prefix of a text the messaging tool already posted,
 * and at the end decides: silent (nothing is ever shown), a duplicate of a posted message (nothing shown), or the
 * rest of the text.
 */
import { couldBeMessagingDuplicate, isMessagingDuplicate } from './messaging-dedupe.js';
import { couldBeSilentReply, isSilentReply, silentTailLength, stripSilentToken } from './silent.js';

export interface GateEnd {
  /** Text released at the end (the held rest). */
  release: string;
  suppressed?: 'silent' | 'duplicate';
}

export class ReplyGate {
  private shown = '';
  private held = '';

  constructor(private readonly sentNormalized: () => readonly string[] = () => []) {}

  /** Adds visible text; returns what may be shown now. */
  push(delta: string): string {
    if (delta === '') return '';
    this.held += delta;
    const full = this.shown + this.held;
    if (this.shown === '' && (couldBeSilentReply(full) || couldBeMessagingDuplicate(full, this.sentNormalized()))) {
      return '';
    }
    const tail = Math.min(silentTailLength(full), this.held.length);
    const out = this.held.slice(0, this.held.length - tail);
    this.held = this.held.slice(this.held.length - tail);
    this.shown += out;
    return out;
  }

  /** The call ended: the decision and whatever was still held. */
  end(): GateEnd {
    const full = this.shown + this.held;
    this.held = '';
    if (this.shown === '' && full.trim() !== '') {
      if (isSilentReply(full)) return { release: '', suppressed: 'silent' };
      if (isMessagingDuplicate(full, this.sentNormalized())) return { release: '', suppressed: 'duplicate' };
    }
    const kept = stripSilentToken(full);
    const release = kept.length > this.shown.length ? kept.slice(this.shown.length) : '';
    this.shown += release;
    return { release };
  }

  /** Everything shown so far. */
  get text(): string {
    return this.shown;
  }
}
