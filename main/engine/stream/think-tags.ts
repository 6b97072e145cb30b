/**
 * E14: a stateful, streaming splitter for inline reasoning tags.
 *
 * Models served through OpenAI-compatible endpoints often put their reasoning inline as
 * `<think>…</think>` (also thinking / thought / antthinking, optionally `antml:` or `mm:` prefixed,
 * any case, with attributes). This filter routes such content to `thinking` and everything else to
 * `text`, one delta at a time:
 *
 * - `<final>` / `</final>` tags are removed, their content stays text. A `<final>` opening while a
 *   think block is still open ends the think block (fixes the "unclosed `<think>` followed by
 *   `<final>` leaks reasoning" bug class, OpenClaw #87712).
 * - A tag split across deltas (`<thi` + `nk>`) works: a trailing fragment that may still become a tag
 *   is held back until the next `push`; `flush` releases a held fragment as-is.
 * - Tags inside inline code (`…`) or fenced blocks (``` / ~~~) are literal text. That state is kept
 *   across deltas, including a backtick/tilde run split across deltas. An inline code span is code only
 *   if it closes (before a blank line or the end): a tag inside a span not yet closed is held back until
 *   that is clear (at most MAX_SPAN_HOLD characters), so a stray backtick (`Start `unclosed <think>…`)
 *   cannot show reasoning. Inside a think block inline code is NOT tracked (fences still are), so a stray
 *   backtick in reasoning (`<think>a ` b</think>The answer`) cannot swallow `</think>` and the answer.
 * - Tags may have blanks after `<` and `/` (`< /think >`) and well-formed attributes; `<final reason="a>b">`
 *   (a `>` in a quote) or `<final / x>` are not tags. A `<think>` inside a think block does not nest: the
 *   first `</think>` ends the reasoning, so a literal `<think>` in reasoning cannot swallow the answer.
 * - An orphan `</think>` (no opener): the text before it, back to the message start or the previous
 *   think boundary, was leaked reasoning and moves to `thinking`. A streaming filter cannot take back
 *   text it has already returned: when part of that text was returned by an earlier `push`, the tag is
 *   simply dropped and the text stays text. So for this one case the split matters; run
 *   `stripThinkTags` over the final message text to get the one-shot answer — or create the filter with
 *   `holdStart`, which holds the message start back until a think tag or the end makes it clear.
 * - Whitespace right after a think block is dropped while no visible text has been produced yet
 *   (`<think>x</think>\n\nAnswer` → `Answer`).
 * - An unclosed `<think>` at `flush`: its content stays thinking. Self-closing `<think/>` is removed.
 *
 * Cost is linear in the input: each character is looked at once, plus a bounded rescan of a held
 * fragment (a partial tag: at most MAX_TAG_LENGTH characters; a tag in a code span not yet closed: at most
 * MAX_SPAN_HOLD, rescanned per delta while it is held).
 */

import { BACKTICK, LT, MAX_SPAN_HOLD, NL, SPACE, TILDE, isBlank, isPlain, scanTag, spanVerdict } from './think-tag-scan.js';

export { MAX_SPAN_HOLD, MAX_TAG_LENGTH, isPlain } from './think-tag-scan.js';

export interface ThinkSplit {
  text: string;
  thinking: string;
}

export interface ThinkTagFilter {
  push(chunk: string): ThinkSplit;
  /** Ends the message: releases any held fragment and resets the filter for reuse. */
  flush(): ThinkSplit;
}

interface CoreFilter extends ThinkTagFilter {
  /** True once an opening or closing think tag was recognised since the last flush. */
  sawThinkTag(): boolean;
}

function createCoreFilter(): CoreFilter {
  // Routing state.
  let thinking = false;
  let held = '';
  /** Text from a tag inside an open inline code span that may never close, held until it is clear (spanVerdict). */
  let spanHold: string | null = null;
  /** The open span was seen to close: tags in it are literal, no need to hold them. */
  let spanCloses = false;
  // Markdown code state.
  let fence: { ch: number; len: number } | null = null;
  let fenceCloseCandidate = false;
  let inlineLen = 0;
  let lineStart = true;
  let indent = 0;
  let runCh = 0;
  let runLen = 0;
  let runAtLineStart = false;
  // Visible-text state.
  let visibleStarted = false;
  let skipWs = false;
  // Segment = text since message start or the last think boundary (for orphan `</think>`).
  let segEmittedBefore = false;
  let segVisibleBefore = false;
  let thinkTagsSeen = 0;

  const reset = (): void => {
    thinking = false;
    held = '';
    spanHold = null;
    spanCloses = false;
    fence = null;
    fenceCloseCandidate = false;
    inlineLen = 0;
    lineStart = true;
    indent = 0;
    runCh = 0;
    runLen = 0;
    runAtLineStart = false;
    visibleStarted = false;
    skipWs = false;
    segEmittedBefore = false;
    segVisibleBefore = false;
    thinkTagsSeen = 0;
  };

  /** A backtick/tilde run has ended: decide what it meant for the code state. */
  const resolveRun = (): void => {
    if (fence) {
      if (runAtLineStart && runCh === fence.ch && runLen >= fence.len) fenceCloseCandidate = true;
    } else if (inlineLen > 0) {
      if (runCh === BACKTICK && runLen === inlineLen) {
        inlineLen = 0;
        spanCloses = false;
      }
    } else if (runAtLineStart && runLen >= 3) {
      fence = { ch: runCh, len: runLen };
    } else if (runCh === BACKTICK && !thinking) {
      // Inside a think block inline code is not tracked: a stray backtick in reasoning must not hide `</think>`.
      inlineLen = runLen;
    }
    runLen = 0;
  };

  const run = (input: string): ThinkSplit => {
    // Fast path (most deltas of a reply): in the middle of a visible line with nothing pending, a chunk without
    // `<`, a backtick, `~` or a newline changes no state and is all text — what the loop below would find.
    if (
      held === '' &&
      spanHold === null &&
      !thinking &&
      runLen === 0 &&
      !fenceCloseCandidate &&
      !skipWs &&
      visibleStarted &&
      !lineStart &&
      isPlain(input)
    ) {
      if (input !== '') segEmittedBefore = true;
      return { text: input, thinking: '' };
    }
    if (spanHold !== null) {
      // A tag in an open inline code span: wait until the span closes (the tag is code) or cannot (it is real).
      const pending = spanHold + input;
      const verdict = spanVerdict(pending, inlineLen);
      if (verdict === 'open' && pending.length <= MAX_SPAN_HOLD) {
        spanHold = pending;
        return { text: '', thinking: '' };
      }
      spanHold = null;
      if (verdict === 'closes') spanCloses = true;
      else inlineLen = 0; // the opening backtick was a literal one
      input = pending;
    }
    const s = held + input;
    held = '';
    let text = '';
    let thought = '';
    let segStartInText = 0; // where the current segment starts in `text` (0: before this call)

    const emit = (slice: string): void => {
      if (slice === '') return;
      if (thinking) {
        thought += slice;
        return;
      }
      let out = slice;
      if (skipWs) {
        let k = 0;
        while (k < out.length && isBlank(out.charCodeAt(k))) k++;
        if (k === out.length) return;
        out = out.slice(k);
        skipWs = false;
      }
      if (!visibleStarted) {
        for (let k = 0; k < out.length; k++) {
          if (!isBlank(out.charCodeAt(k))) {
            visibleStarted = true;
            break;
          }
        }
      }
      text += out;
    };
    const newSegment = (): void => {
      segStartInText = text.length;
      segEmittedBefore = false;
      segVisibleBefore = visibleStarted;
    };

    const n = s.length;
    let i = 0;
    let from = 0; // start of the not-yet-emitted slice
    while (i < n) {
      const c = s.charCodeAt(i);
      if (runLen > 0) {
        if (c === runCh) {
          runLen++;
          i++;
          continue;
        }
        resolveRun();
      }
      if (fenceCloseCandidate && !isBlank(c)) fenceCloseCandidate = false;
      if (c === NL) {
        if (fenceCloseCandidate) {
          fence = null;
          fenceCloseCandidate = false;
        }
        // An inline code span may run over lines, not over a paragraph break (a blank line).
        if (lineStart) inlineLen = 0;
        lineStart = true;
        indent = 0;
        i++;
        continue;
      }
      if (c === BACKTICK || (c === TILDE && lineStart)) {
        runCh = c;
        runLen = 1;
        runAtLineStart = lineStart;
        lineStart = false;
        i++;
        continue;
      }
      if (c === SPACE && lineStart) {
        if (indent < 3) indent++;
        else lineStart = false;
        i++;
        continue;
      }
      if (c === LT && fence === null && inlineLen > 0 && !spanCloses) {
        // A tag inside a span that may not be one (`Start \`unclosed <think>…`): is the span ever closed?
        const tag = scanTag(s, i);
        if (tag.status !== 'none') {
          const verdict = spanVerdict(s.slice(i), inlineLen);
          if (verdict === 'open' && n - i <= MAX_SPAN_HOLD) {
            emit(s.slice(from, i));
            spanHold = s.slice(i);
            from = n;
            break;
          }
          if (verdict === 'closes') spanCloses = true;
          else inlineLen = 0;
          continue; // look at this '<' again with the span decided
        }
      }
      if (c === LT && fence === null && inlineLen === 0) {
        const tag = scanTag(s, i);
        if (tag.status === 'partial') {
          emit(s.slice(from, i));
          held = s.slice(i);
          from = n;
          break;
        }
        if (tag.status === 'match') {
          emit(s.slice(from, i));
          if (tag.selfClosing) {
            // `<think/>`, `<final/>`: removed, no state change.
          } else if (tag.kind === 'think' && !tag.close) {
            thinkTagsSeen++;
            // A `<think>` inside a think block is not nested: the first `</think>` ends reasoning, so a literal
            // `<think>` in reasoning can never swallow the answer.
            if (!thinking) {
              thinking = true;
              newSegment();
            }
          } else if (tag.kind === 'think') {
            thinkTagsSeen++;
            if (!thinking && !segEmittedBefore) {
              // Orphan close: this segment's text was leaked reasoning.
              thought += text.slice(segStartInText);
              text = text.slice(0, segStartInText);
              visibleStarted = segVisibleBefore;
            }
            thinking = false;
            skipWs = !visibleStarted;
            newSegment();
          } else if (!tag.close && thinking) {
            // `<final>` inside an unclosed think block: the answer starts here.
            thinking = false;
            skipWs = !visibleStarted;
            newSegment();
          }
          lineStart = false;
          i = tag.end;
          from = i;
          continue;
        }
      }
      lineStart = false;
      i++;
    }
    emit(s.slice(from, n));
    if (text.length > segStartInText) segEmittedBefore = true;
    return { text, thinking: thought };
  };

  return {
    sawThinkTag: () => thinkTagsSeen > 0,
    push: (chunk) => run(chunk),
    flush: () => {
      // A span still open at the end never closed: its opening backtick was literal, the held tags are real.
      const out = { text: '', thinking: '' };
      while (spanHold !== null) {
        const pending = spanHold;
        spanHold = null;
        if (spanVerdict(pending, inlineLen, true) === 'closes') spanCloses = true;
        else inlineLen = 0; // never closed: the opening backtick was a literal one
        const r = run(pending); // may hold a shorter tail again (a new span opened in it)
        out.text += r.text;
        out.thinking += r.thinking;
      }
      // A held fragment never became a tag: release it as-is to the current stream.
      const fragment = held;
      held = '';
      if (fragment !== '') {
        if (thinking) out.thinking += fragment;
        else out.text += fragment;
      }
      reset();
      return out;
    },
  };
}

export interface ThinkTagFilterOptions {
  /**
   * Hold the start of the message back until it is clear whether it is reasoning: until a think tag (opening or
   * orphan closing) shows up, or the message ends. For models that may answer DeepSeek-R1 style — reasoning first,
   * closed by a lone `</think>` whose opener was in the prompt template — so that reasoning never streams as reply.
   * Costs streaming latency (nothing shows until the tag or the end), so it is only on where that style is possible.
   */
  holdStart?: boolean;
  /** Held text beyond this many characters is released as-is (bounded memory and latency). */
  maxHoldChars?: number;
}

/** Held start longer than this is no longer plausible as a reasoning preamble we can wait for. */
export const MAX_HOLD_START_CHARS = 64_000;

export function createThinkTagFilter(opts: ThinkTagFilterOptions = {}): ThinkTagFilter {
  const real = createCoreFilter();
  if (!opts.holdStart) return real;
  const maxHold = opts.maxHoldChars ?? MAX_HOLD_START_CHARS;
  // A second filter only watches for the first think tag; the real one then sees the held text in ONE push, which
  // lets its orphan-close rule move the whole preamble to thinking.
  let probe = createCoreFilter();
  let deciding = true;
  let held = '';
  const release = (): ThinkSplit => {
    deciding = false;
    const out = real.push(held);
    held = '';
    return out;
  };
  return {
    push(chunk) {
      if (!deciding) return real.push(chunk);
      held += chunk;
      probe.push(chunk);
      if (probe.sawThinkTag() || held.length > maxHold) return release();
      return { text: '', thinking: '' };
    },
    flush() {
      const a = deciding && held !== '' ? release() : { text: '', thinking: '' };
      const b = real.flush();
      probe = createCoreFilter();
      deciding = true;
      held = '';
      return { text: a.text + b.text, thinking: a.thinking + b.thinking };
    },
  };
}

/** One-shot form: the authoritative split of a whole message text. */
export function stripThinkTags(text: string): ThinkSplit {
  const filter = createThinkTagFilter();
  const a = filter.push(text);
  const b = filter.flush();
  return { text: a.text + b.text, thinking: a.thinking + b.thinking };
}
