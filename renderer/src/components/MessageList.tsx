import { useCallback, useRef } from 'react';
import { Virtuoso } from 'react-virtuoso';
import { useChat } from '../store/chat-store.js';
import type { Turn } from '../store/types.js';
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

const itemContent = (_: number, turn: Turn) => (
  <div className="messages-inner">
    {turn.kind === 'user' ? <UserMessage turn={turn} /> : <AssistantMessage turn={turn} />}
  </div>
);
const itemKey = (_: number, turn: Turn) => turn.id;

/**
 * The transcript, virtualised (react-virtuoso): only what is on screen is rendered, so a session of thousands of
 * messages opens and scrolls at full speed. Follows new output only while the reader is at the bottom.
 */
export function MessageList() {
  const turns = useChat((s) => s.turns);
  const sessionKey = useChat((s) => s.sessionKey);
  const scroller = useRef<HTMLElement | null>(null);
  const atBottom = useRef(true);
  const follow = useCallback(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight; // a growing last message stays in view
  }, []);

  if (turns.length === 0) {
    return (
      <div className="messages" role="log" aria-label="Conversation">
        <Empty />
      </div>
    );
  }
  return (
    <Virtuoso
      key={sessionKey}
      className="messages"
      role="log"
      aria-label="Conversation"
      data={turns}
      computeItemKey={itemKey}
      itemContent={itemContent}
      initialTopMostItemIndex={{ index: turns.length - 1, align: 'end' }}
      followOutput={(bottom) => (bottom ? 'auto' : false)}
      atBottomThreshold={48}
      atBottomStateChange={(bottom) => (atBottom.current = bottom)}
      totalListHeightChanged={follow}
      scrollerRef={(el) => (scroller.current = el instanceof HTMLElement ? el : null)}
      increaseViewportBy={{ top: 400, bottom: 400 }}
    />
  );
}
