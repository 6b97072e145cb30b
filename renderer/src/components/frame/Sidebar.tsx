import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { ChatCost } from '../../usage/ChatCost.js';
import type { SessionSummary } from '../../../../preload/contract.js';
import { useChat } from '../../store/chat-store.js';
import { deleteSession, exportSession, newChat, openSession, renameSession, searchSessions, setInstructions, useSessions } from '../../store/sessions-store.js';
import { modelLabel, relativeTime, sessionTitle, tokenCount } from './format.js';

/** D3: every session, newest first; search by title and content; new, rename, delete (with undo), export. */
export function Sidebar() {
  const sessions = useSessions((s) => s.sessions);
  const hits = useSessions((s) => s.hits);
  const query = useSessions((s) => s.query);
  const [draft, setDraft] = useState(query);
  useEffect(() => {
    const t = setTimeout(() => void searchSessions(draft), 150);
    return () => clearTimeout(t);
  }, [draft]);
  const byKey = new Map(sessions.map((s) => [s.sessionKey, s]));
  const shown = hits ? hits.map((h) => ({ session: byKey.get(h.sessionKey), hit: h })).filter((x) => x.session) : sessions.map((s) => ({ session: s, hit: undefined }));
  return (
    <nav className="sidebar" aria-label="Chats">
      <div className="sidebar-head">
        <button type="button" className="btn btn-primary sidebar-new" onClick={() => void newChat()} title="New chat (Ctrl/Cmd+N)">
          New chat
        </button>
        <input
          type="search"
          className="sidebar-search"
          aria-label="Search chats"
          placeholder="Search chats…"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
      </div>
      <ul className="session-list" data-testid="session-list">
        {shown.map(({ session, hit }) => (
          <SessionRow key={session!.sessionKey} session={session!} snippet={hit?.where === 'content' ? hit.snippet : undefined} />
        ))}
        {shown.length === 0 && <li className="session-empty muted">{hits ? 'No chat matches.' : 'No chats yet.'}</li>}
      </ul>
    </nav>
  );
}

function SessionRow({ session, snippet }: { session: SessionSummary; snippet?: string }) {
  const active = useChat((s) => s.sessionKey === session.sessionKey);
  const [editing, setEditing] = useState(false);
  const [menu, setMenu] = useState(false);
  const [instructing, setInstructing] = useState(false);
  const instructions = useRef<HTMLTextAreaElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);
  const title = sessionTitle(session);
  const commit = (value: string) => {
    setEditing(false);
    if (value.trim() && value.trim() !== session.title) void renameSession(session.sessionKey, value);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') commit(e.currentTarget.value);
    if (e.key === 'Escape') setEditing(false);
  };
  return (
    <li className={`session${active ? ' session-active' : ''}`} data-testid="session-item" data-session-key={session.sessionKey}>
      {editing ? (
        <input ref={input} className="session-rename" aria-label="Chat title" defaultValue={session.title} onKeyDown={onKey} onBlur={(e) => commit(e.target.value)} />
      ) : (
        <button type="button" className="session-open" onClick={() => void openSession(session.sessionKey)} aria-current={active ? 'true' : undefined}>
          <span className="session-head">
            <span className="session-title" data-testid="session-title">{title}</span>
            <span className="session-time muted" title={new Date(session.updatedAt).toLocaleString()}>{relativeTime(session.updatedAt)}</span>
          </span>
          <span className="session-meta muted">
            {session.model ? <span title={session.model}>{modelLabel(session.model)}</span> : null}
            <span>{tokenCount(session.usage.total)}</span>
            <ChatCost sessionKey={session.sessionKey} />
          </span>
          {snippet && <span className="session-snippet muted" data-testid="session-snippet">{snippet}</span>}
        </button>
      )}
      <div className="session-actions">
        <button type="button" className="icon-btn" aria-label={`Actions for ${title}`} aria-expanded={menu} onClick={() => setMenu(!menu)}>
          ⋯
        </button>
        {menu && (
          <div className="session-menu" role="menu" onMouseLeave={() => setMenu(false)}>
            <button type="button" role="menuitem" onClick={() => (setMenu(false), setEditing(true))}>Rename</button>
            <button type="button" role="menuitem" onClick={() => (setMenu(false), setInstructing(true))}>Custom instructions…</button>
            <button type="button" role="menuitem" onClick={() => (setMenu(false), void exportSession(session.sessionKey, 'markdown'))}>Export Markdown</button>
            <button type="button" role="menuitem" onClick={() => (setMenu(false), void exportSession(session.sessionKey, 'json'))}>Export JSON</button>
            <button type="button" role="menuitem" className="danger" onClick={() => (setMenu(false), void deleteSession(session.sessionKey))}>Delete</button>
          </div>
        )}
      </div>
      {instructing && (
        <form
          className="session-instructions"
          onSubmit={(e) => {
            e.preventDefault();
            setInstructing(false);
            void setInstructions(session.sessionKey, instructions.current?.value ?? '');
          }}
        >
          <textarea
            ref={instructions}
            className="session-rename"
            aria-label="Custom instructions"
            rows={4}
            placeholder="Added to what the model is told in this chat (e.g. “Answer in French.”)"
            defaultValue={session.extraSystemPrompt ?? ''}
            autoFocus
            onKeyDown={(e) => e.key === 'Escape' && setInstructing(false)}
          />
          <div className="session-instructions-actions">
            <button type="submit" className="btn btn-primary">Save</button>
            <button type="button" className="btn" onClick={() => setInstructing(false)}>Cancel</button>
          </div>
        </form>
      )}
    </li>
  );
}
