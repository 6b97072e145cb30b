import { useLayoutEffect, useRef } from 'react';
import { useChat } from '../store/chat-store.js';
import { AssistantMessage } from './AssistantMessage.js';
import { UserMessage } from './UserMessage.js';

const NEAR_BOTTOM_PX = 48;

/** The transcript. Follows new output only while the reader is at the bottom (never fights scrolling up). */
export function MessageList() {
  const turns = useChat((s) => s.turns);
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [turns]);

  return (
    <div
      className="messages"
      ref={scroller}
      role="log"
      aria-label="Conversation"
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
      }}
    >
      <div className="messages-inner">
        {turns.length === 0 && (
          <div className="empty">
            <h2>What should we work on?</h2>
            <p className="muted">The assistant can read and change files in the open folder. Ask it anything about them.</p>
          </div>
        )}
        {turns.map((turn) =>
          turn.kind === 'user' ? <UserMessage key={turn.id} turn={turn} /> : <AssistantMessage key={turn.id} turn={turn} />,
        )}
      </div>
    </div>
  );
}
