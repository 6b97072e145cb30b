import { useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { modelLabel } from '../lib/format.js';
import { sessionTitle } from './frame/format.js';
import { activeRun, closePalette, newChat, openSession, selectModel, sendMessage, stopRun, useChat } from '../store/chat-store.js';
import { exportSession, showView, toggleSidebar } from '../store/sessions-store.js';
import { effectiveTheme, toggleTheme } from '../lib/theme.js';
import { NARROW_QUERY } from '../lib/media.js';
import { openHelp } from './HelpSheet.js';
import { undoRestore, useCheckpoints } from '../checkpoints/checkpoint-store.js';

interface Item {
  id: string;
  group: 'Actions' | 'Conversations' | 'Models';
  label: string;
  hint?: string;
  disabled?: boolean;
  run(): void;
}

/** Ctrl/Cmd+K: type to find a conversation or a model; Enter switches, Esc closes. Focus returns where it was. */
export function CommandPalette() {
  const mode = useChat((s) => s.palette);
  const models = useChat((s) => s.models);
  const sessions = useChat((s) => s.sessions);
  const current = useChat((s) => s.sessionKey);
  const running = useChat((s) => activeRun(s.turns) !== undefined);
  // the last restore of this chat can be undone from here too (its notice may have been dismissed)
  const canUndo = useCheckpoints((s) => s.lastRestore !== null && s.sessionKey === current);
  const [query, setQuery] = useState('');
  const [index, setIndex] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const returnFocus = useRef<Element | null>(null);

  // before the first paint: a key typed the moment the palette shows goes into its field
  useLayoutEffect(() => {
    if (!mode) return;
    returnFocus.current = document.activeElement;
    setQuery('');
    setIndex(0);
    input.current?.focus();
    return () => (returnFocus.current as HTMLElement | null)?.focus?.();
  }, [mode]);

  const items = useMemo<Item[]>(() => {
    const out: Item[] = [];
    if (mode === 'all') {
      // issue 18 item 14: the palette also runs the window's actions
      out.push(
        { id: 'a:new', group: 'Actions', label: 'New chat', hint: 'Ctrl+N', run: newChat },
        { id: 'a:settings', group: 'Actions', label: 'Open settings', hint: 'Ctrl+,', run: () => showView('settings') },
        { id: 'a:theme', group: 'Actions', label: `Switch to the ${effectiveTheme() === 'dark' ? 'light' : 'dark'} theme`, run: toggleTheme },
        { id: 'a:sidebar', group: 'Actions', label: 'Show or hide the chat list', hint: 'Ctrl+B', run: () => toggleSidebar(window.matchMedia(NARROW_QUERY).matches) },
        { id: 'a:find', group: 'Actions', label: 'Find in this chat', hint: 'Ctrl+F', run: () => window.dispatchEvent(new CustomEvent('agentdesk:find')) },
        { id: 'a:export-md', group: 'Actions', label: 'Export this chat as Markdown', run: () => void exportSession(current, 'markdown') },
        { id: 'a:export-json', group: 'Actions', label: 'Export this chat as JSON', run: () => void exportSession(current, 'json') },
        { id: 'a:compact', group: 'Actions', label: 'Compact this conversation', hint: '/compact', run: () => void sendMessage('/compact') },
        ...(running ? [{ id: 'a:stop', group: 'Actions' as const, label: 'Stop the reply', hint: 'Esc', run: () => void stopRun() }] : []),
        ...(canUndo && !running ? [{ id: 'a:undo-restore', group: 'Actions' as const, label: 'Undo the last restore', run: () => void undoRestore() }] : []),
        { id: 'a:help', group: 'Actions', label: 'Keyboard shortcuts and commands', hint: '?', run: openHelp },
      );
      for (const s of sessions) {
        out.push({
          id: `s:${s.sessionKey}`,
          group: 'Conversations',
          label: sessionTitle(s),
          hint: s.sessionKey === current ? 'current' : new Date(s.updatedAt).toLocaleDateString(),
          run: () => void openSession(s.sessionKey),
        });
      }
    }
    for (const m of models) {
      out.push({ id: `m:${m.ref}`, group: 'Models', label: modelLabel(m), disabled: !m.hasKey && !m.demo, run: () => selectModel(m.ref) });
    }
    const q = query.trim().toLowerCase();
    return q === '' ? out : out.filter((i) => i.label.toLowerCase().includes(q) || i.id.toLowerCase().includes(q));
  }, [mode, sessions, models, current, query, running, canUndo]);

  if (!mode) return null;
  const pick = (item: Item | undefined): void => {
    if (!item || item.disabled) return;
    useChat.setState({ palette: undefined }); // a model picked after "Switch model" still retries (selectModel)
    item.run();
    useChat.setState({ retryOnPick: undefined });
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closePalette();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      setIndex((i) => Math.min(items.length - 1, i + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setIndex((i) => Math.max(0, i - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      pick(items[index]);
    }
  };
  return (
    <div className="palette-backdrop" onMouseDown={closePalette}>
      <div
        className="palette"
        role="dialog"
        aria-modal="true"
        aria-label={mode === 'models' ? 'Switch model' : 'Switch conversation or model'}
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={onKeyDown}
      >
        <input
          ref={input}
          className="palette-input"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={items[index] ? `pal-${index}` : undefined}
          placeholder={mode === 'models' ? 'Switch to model…' : 'Find a chat, a model or an action…'}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setIndex(0);
          }}
        />
        <ul id="palette-list" role="listbox" className="palette-list">
          {items.map((item, i) => (
            <li
              key={item.id}
              id={`pal-${i}`}
              role="option"
              aria-selected={i === index}
              aria-disabled={item.disabled}
              className={`palette-item ${i === index ? 'active' : ''}`}
              onMouseEnter={() => setIndex(i)}
              onClick={() => pick(item)}
            >
              <span className="palette-group muted">{item.group === 'Models' ? 'Model' : item.group === 'Actions' ? 'Do' : 'Chat'}</span>
              <span className="palette-label">{item.label}</span>
              {item.hint && <span className="muted palette-hint">{item.hint}</span>}
            </li>
          ))}
          {items.length === 0 && <li className="muted palette-empty">Nothing matches.</li>}
        </ul>
      </div>
    </div>
  );
}
