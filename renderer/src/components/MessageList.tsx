import { useEffect, useLayoutEffect, useRef, useState, type PointerEvent } from 'react';
import { setListNav } from '../lib/list-nav.js';
import { FIRST_INDEX, listAtEnd, showEarlier, useSessions } from '../store/sessions-store.js';
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso';
import { useChat } from '../store/chat-store.js';
import type { AssistantTurn, Turn } from '../store/types.js';
import { AssistantMessage } from './AssistantMessage.js';
import { UserMessage } from './UserMessage.js';

function Empty() {
  return (
    <div className="empty">
      <h2>What should we work on?</h2>
      <p className="muted">The assistant can read and change files in the open folder. Ask it anything about them.</p>
    </div>
  );
}

function Item({ turn }: { turn: Turn }) {
  const found = useChat((s) => s.found === turn.id);
  return (
    <div className={found ? 'messages-inner msg-found' : 'messages-inner'} data-found={found ? 'true' : undefined}>
      {turn.kind === 'user' ? <UserMessage turn={turn} /> : <AssistantMessage turn={turn} />}
    </div>
  );
}
const itemContent = (_: number, turn: Turn) => <Item turn={turn} />;
const itemKey = (_: number, turn: Turn) => turn.id;

/** How long after the reader's wheel, touch or key a move off the end counts as theirs. */
const READER_SCROLL_MS = 800;
/** Within this of its end, the list is at its end. */
const AT_END_PX = 48;

/** The streaming run, if the conversation ends with one: it is drawn below the list, not as a list item. */
function liveTurn(turns: Turn[]): AssistantTurn | undefined {
  const last = turns[turns.length - 1];
  return last?.kind === 'assistant' && last.status === 'running' ? last : undefined;
}

interface ListContext {
  follow(): void;
}

/**
 * The run being streamed sits in the list's footer: its growth every frame then costs one re-render and one
 * scroll, not a re-measure of the virtualised items. Once it ends it joins the list.
 */
function LiveFooter({ context }: { context: ListContext }) {
  const turn = useChat((s) => liveTurn(s.turns));
  useLayoutEffect(() => context.follow(), [turn, context]);
  return <div className="messages-inner messages-live">{turn ? <AssistantMessage turn={turn} /> : null}</div>;
}
const components = { Footer: LiveFooter };

/** The id of the conversation's last message from the person (searched from the end: it is near it). */
function lastUserTurnId(turns: Turn[]): string | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.kind === 'user') return turns[i]!.id;
  return undefined;
}

/** Keeps the same array while the finished turns are the same objects (the list's data must not churn per frame). */
function useStableSettled(turns: Turn[]): Turn[] {
  const prev = useRef<Turn[]>([]);
  const n = liveTurn(turns) ? turns.length - 1 : turns.length;
  const old = prev.current;
  if (old.length !== n || old.some((t, i) => t !== turns[i])) prev.current = turns.slice(0, n);
  return prev.current;
}

/**
 * The transcript, virtualised (react-virtuoso): only what is on screen is rendered, so a session of thousands of
 * messages opens and scrolls at full speed. Follows new output only while the reader is at the bottom.
 */
export function MessageList() {
  const turns = useChat((s) => s.turns);
  const sessionKey = useChat((s) => s.sessionKey);
  const settled = useStableSettled(turns);
  const scroller = useRef<HTMLElement | null>(null);
  /**
   * Whether the list follows the conversation's end. Left only by the reader (a scroll of theirs that leaves the end,
   * find, Ctrl+Home): a reply that grows, or ends and moves from the live footer into the list (its height known only
   * once drawn), also takes the list off its end for a moment — that must not stop the following.
   */
  const atBottom = useRef(true);
  /** When the reader last scrolled or pressed a key in the list, and whether a pointer is down on it (scrollbar). */
  const readerInput = useRef(-Infinity);
  const pointerDown = useRef(false);
  // The list was taken to a turn (find, Ctrl+Home): it stays there — react-virtuoso can still report "at bottom"
  // from before the jump, and a piece of the earlier part put above would then follow it back to the end — until
  // the reader moves the list, goes to the end or sends a message.
  const held = useRef(false);
  const context = useRef<ListContext>({
    follow() {
      const el = scroller.current;
      if (el && atBottom.current) el.scrollTop = el.scrollHeight; // a growing last message stays in view
    },
  }).current;
  const list = useRef<VirtuosoHandle>(null);
  // Sending a message brings the end of the conversation back into view and follows the reply again, even when
  // the list had stopped following (a tall message can outgrow the at-bottom margin before the scroll catches up).
  const firstItemIndex = useChat((s) => s.firstItemIndex ?? FIRST_INDEX);
  // find-in-chat and Ctrl+Home / Ctrl+End move the list (the earlier part of a long chat is loaded first)
  useEffect(() => {
    const toStart = async () => {
      moved.current = true;
      held.current = true;
      await showEarlier();
      atBottom.current = false;
      list.current?.scrollToIndex({ index: 0, align: 'start' });
      // heights are measured as items render: settle on the top once they are
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => requestAnimationFrame(r));
        if (scroller.current && scroller.current.scrollTop > 0) scroller.current.scrollTop = 0;
      }
    };
    const toEnd = () => {
      held.current = false;
      atBottom.current = true;
      list.current?.scrollToIndex({ index: 'LAST', align: 'end' });
      requestAnimationFrame(() => context.follow());
    };
    setListNav({
      toTurn(id) {
        moved.current = true;
        held.current = true;
        useChat.setState({ found: id });
        atBottom.current = false;
        // A scroll asked for while the list takes in the earlier part can be dropped or undone, and a piece put
        // above moves the turn down: the turn is brought back into view, at where it stands now, until it has
        // stayed there for a few frames with the whole chat in — or the reader moves the list or finds another.
        const go = (frames: number, stable: number, waited: number) => {
          if (!held.current || useChat.getState().found !== id) return;
          const box = scroller.current?.getBoundingClientRect();
          const r = scroller.current?.querySelector('[data-found="true"]')?.getBoundingClientRect();
          const inView = !!(r && box && r.bottom > box.top && r.top < box.bottom);
          if (!inView && waited >= 2) {
            const at = useChat.getState().turns.findIndex((t) => t.id === id);
            if (at >= 0) list.current?.scrollToIndex({ index: at, align: 'center' });
            waited = 0;
          }
          const still = inView ? stable + 1 : 0;
          if (frames > 0 && (still < 3 || useSessions.getState().omitted > 0)) requestAnimationFrame(() => go(frames - 1, still, waited + 1));
        };
        go(240, 0, 2);
      },
      toStart: () => void toStart(),
      toEnd,
    });
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || (e.key !== 'Home' && e.key !== 'End')) return;
      const t = e.target;
      // in a text field with text, Ctrl+Home moves the caret; an empty one (the composer, mostly) does not need it
      if (t instanceof HTMLTextAreaElement || t instanceof HTMLInputElement) {
        if (t.value !== '') return;
      }
      e.preventDefault();
      if (e.key === 'Home') void toStart();
      else toEnd();
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      setListNav(undefined);
    };
  }, [context]);
  // The earlier part put above: a reader who has not moved the list yet sees it start again at the end (a new
  // mount — the list's own first scroll may still be pending, and would land on the old index); one who scrolled
  // keeps the view (firstItemIndex).
  const moved = useRef(false);
  const [generation, setGeneration] = useState(0);
  const prepended = useRef(firstItemIndex);
  // The list has placed the end of the chat it opened with (its first scroll is done): what is put above from then
  // on keeps the view where it is (firstItemIndex), without a new mount.
  const placed = useRef(false);
  useEffect(() => {
    moved.current = false;
    placed.current = false;
    held.current = false;
  }, [sessionKey]);
  useLayoutEffect(() => {
    if (firstItemIndex === prepended.current) return;
    const grew = firstItemIndex < prepended.current;
    prepended.current = firstItemIndex;
    if (grew && !moved.current && !placed.current) {
      atBottom.current = true;
      setGeneration((g) => g + 1);
    }
  }, [firstItemIndex]);
  const onReader = () => {
    readerInput.current = performance.now();
    onMove();
  };
  /** On the list itself (its scrollbar) the reader scrolls; on a message (a button, a link, text) they do not. */
  const onPointerDown = (e: PointerEvent) => {
    if (e.target !== e.currentTarget) return onMove();
    pointerDown.current = true;
    const up = () => {
      pointerDown.current = false;
      for (const type of ['pointerup', 'pointercancel', 'blur']) window.removeEventListener(type, up);
    };
    for (const type of ['pointerup', 'pointercancel', 'blur']) window.addEventListener(type, up);
    onReader();
  };
  /** A scroll the reader just made (wheel, touch, key, scrollbar): the list follows again only from its end. */
  const onScroll = useRef(() => {
    const el = scroller.current;
    if (!el || !(pointerDown.current || performance.now() - readerInput.current < READER_SCROLL_MS)) return;
    atBottom.current = !held.current && el.scrollHeight - el.scrollTop - el.clientHeight <= AT_END_PX;
  }).current;
  const onMove = () => {
    moved.current = true;
    held.current = false;
  };
  const lastUser = useChat((s) => lastUserTurnId(s.turns));
  const seenUser = useRef(lastUser);
  useEffect(() => {
    if (lastUser === seenUser.current) return;
    seenUser.current = lastUser;
    held.current = false;
    atBottom.current = true;
    list.current?.scrollToIndex({ index: 'LAST', align: 'end' });
    requestAnimationFrame(() => context.follow());
  }, [lastUser, context]);

  if (turns.length === 0) {
    return (
      <div className="messages" role="log" aria-label="Conversation">
        <Empty />
      </div>
    );
  }
  return (
    <Virtuoso
      ref={list}
      key={`${sessionKey}:${generation}`}
      onWheel={onReader}
      onTouchStart={onReader}
      onPointerDown={onPointerDown}
      onKeyDown={onReader}
      className="messages"
      role="log"
      aria-label="Conversation"
      data={settled}
      firstItemIndex={firstItemIndex}
      context={context}
      components={components}
      computeItemKey={itemKey}
      itemContent={itemContent}
      initialTopMostItemIndex={settled.length > 0 ? { index: settled.length - 1, align: 'end' } : 0}
      followOutput={() => (atBottom.current && !held.current ? 'auto' : false)}
      atBottomThreshold={AT_END_PX}
      atBottomStateChange={(bottom) => {
        // Off the end is the reader's doing only (onScroll): a reply that grows or ends moves the list as well.
        if (bottom) atBottom.current = !held.current;
        if (bottom && !placed.current) {
          placed.current = true;
          listAtEnd();
        }
      }}
      totalListHeightChanged={context.follow}
      scrollerRef={(el) => {
        const next = el instanceof HTMLElement ? el : null;
        if (next === scroller.current) return;
        scroller.current?.removeEventListener('scroll', onScroll);
        next?.addEventListener('scroll', onScroll, { passive: true });
        scroller.current = next;
      }}
      increaseViewportBy={{ top: 400, bottom: 400 }}
      defaultItemHeight={96}
    />
  );
}
