import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { findTurns } from '../lib/find.js';
import { listNav } from '../lib/list-nav.js';
import { useChat } from '../store/chat-store.js';
import { showEarlier } from '../store/sessions-store.js';

/** Opens the find bar (Ctrl/Cmd+F, the palette's "Find in this chat"). */
export const FIND_EVENT = 'agentdesk:find';

/**
 * Find in this chat (issue 18 item 18): matches anywhere in the conversation — the earlier part of a long chat is
 * loaded first — Enter / Shift+Enter (or ↓/↑) jump to the next / previous one, Esc closes.
 */
export function FindBar() {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const turns = useChat((s) => s.turns);
  const matches = useMemo(() => (open ? findTurns(turns, query) : []), [open, turns, query]);
  useEffect(() => {
    const show = () => {
      setOpen(true);
      void showEarlier();
      requestAnimationFrame(() => input.current?.select());
    };
    const onKey = (e: globalThis.KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        show();
      }
    };
    window.addEventListener(FIND_EVENT, show);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener(FIND_EVENT, show);
      window.removeEventListener('keydown', onKey);
    };
  }, []);
  const go = (i: number) => {
    if (matches.length === 0) return;
    const next = (i + matches.length) % matches.length;
    setAt(next);
    listNav()?.toTurn(turns[matches[next]!]!.id); // the turns the matches were found in
  };
  // a new query jumps to its last match (the one nearest the end of the chat, where the reader is)
  useEffect(() => {
    if (matches.length > 0) go(matches.length - 1);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query, matches.length > 0]);
  if (!open) return null;
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    } else if (e.key === 'Enter' || e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      go(at + (e.key === 'ArrowUp' || (e.key === 'Enter' && e.shiftKey) ? -1 : 1));
    }
  };
  return (
    <div className="find-bar" role="search" data-testid="find-bar">
      <input ref={input} aria-label="Find in this chat" placeholder="Find in this chat…" value={query} onChange={(e) => setQuery(e.target.value)} onKeyDown={onKey} />
      <span className="muted find-count" data-testid="find-count" aria-live="polite">
        {query.trim() === '' ? '' : matches.length === 0 ? 'No match' : `${at + 1} of ${matches.length}`}
      </span>
      <button type="button" className="icon-btn" aria-label="Previous match" disabled={matches.length === 0} onClick={() => go(at - 1)}>
        ↑
      </button>
      <button type="button" className="icon-btn" aria-label="Next match" disabled={matches.length === 0} onClick={() => go(at + 1)}>
        ↓
      </button>
      <button type="button" className="icon-btn" aria-label="Close find" onClick={() => setOpen(false)}>
        ×
      </button>
    </div>
  );
}
