/**
 * E22 unanswered turns. A turn that failed, timed out, was stopped or whose process was killed stays in the
 * transcript (the user's message is never lost), but the model must not see two user messages run together —
 * Anthropic merges consecutive user messages into one, so "hang" + "plain again" would read as one prompt.
 *
 * Choice: before every send, a short synthetic assistant note — "(no reply: the run timed out)" — is placed where
 * the reply should have been, i.e. before a user message whose turn so far ended without a completed assistant
 * reply (it ends with a user message or a tool result). The note is built for the provider request only and is
 * never written to the transcript. It keeps user/assistant alternation valid for the Anthropic and OpenAI APIs
 * alike (a plain text assistant message, no tool calls, so pairing repair leaves it alone), and it tells the
 * model plainly that the earlier message got no answer. The reason comes from the turn's failed assistant marker
 * (stopReason error/aborted with errorMessage), which the run writes when it ends badly; a process killed
 * mid-run leaves no marker, and its turn reads "ended before answering".
 *
 * A user message injected into a running tool loop by steering (`steered: true`) follows tool results by design
 * and gets no note.
 */
import type { AssistantMessage, Message } from '../messages.js';
import { emptyUsage } from '../messages.js';

const isFailed = (m: Message): m is AssistantMessage =>
  m.role === 'assistant' && (m.stopReason === 'error' || m.stopReason === 'aborted');

/** The note's text for a turn whose last failure marker is `failure` (undefined: the process died). */
export function unansweredNote(failure: AssistantMessage | undefined): string {
  if (!failure) return '(no reply: the run ended before answering)';
  const why = (failure.errorMessage ?? '').split('\n')[0]!.trim();
  if (/timed out/i.test(why)) return '(no reply: the run timed out)';
  if (failure.stopReason === 'aborted' || /stopped|interrupted|aborted/i.test(why)) return '(no reply: the run was stopped)';
  return why ? `(no reply: the run failed: ${why.slice(0, 200)})` : '(no reply: the run failed)';
}

function note(text: string, timestamp: number): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    provider: 'agentdesk',
    model: 'unanswered-note',
    api: 'none',
    usage: emptyUsage(),
    stopReason: 'stop',
    timestamp,
  };
}

/** Inserts a note before each user message that follows an unanswered turn. Pure; the input is not mutated. */
export function annotateUnanswered(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let last: Message | undefined; // last message that is not a failure marker
  let failure: AssistantMessage | undefined; // last failure marker since `last`'s turn began
  for (const m of messages) {
    if (isFailed(m)) {
      failure = m;
      out.push(m);
      continue;
    }
    if (m.role === 'user' && last && (last.role === 'user' || last.role === 'toolResult')) {
      const steeredIntoToolLoop = m.steered === true && last.role === 'toolResult';
      if (!steeredIntoToolLoop) out.push(note(unansweredNote(failure), m.timestamp));
    }
    if (m.role === 'user' && !m.steered) failure = undefined;
    out.push(m);
    last = m;
  }
  return out;
}
