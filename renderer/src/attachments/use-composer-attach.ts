/**
 * X3 for the message box, as hooks the Composer wires in a few lines: paste and drop of files, the Attach button's
 * file picker, and the `@` path completion (↑/↓ move, Enter or Tab picks — the path is attached as text — Esc closes).
 */
import { useEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react';
import type { PathCompletion } from '../../../preload/contract.js';
import { addFiles, addMention, completePaths, mentionAt } from './attach-store.js';

export function useFileDrop() {
  const [over, setOver] = useState(false);
  const hasFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  return {
    over,
    onPaste: (e: ClipboardEvent) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (files.length === 0) return; // plain text pastes as usual
      e.preventDefault();
      void addFiles(files);
    },
    onDragOver: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setOver(true);
    },
    onDragLeave: () => setOver(false),
    onDrop: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setOver(false);
      void addFiles([...e.dataTransfer.files]);
    },
  };
}

export function useMention(text: string, setText: (t: string) => void, box: React.RefObject<HTMLTextAreaElement | null>) {
  const [at, setAt] = useState<{ start: number; query: string } | undefined>();
  const [items, setItems] = useState<PathCompletion[]>([]);
  const [active, setActive] = useState(0);
  const asked = useRef(0);

  /** Call after each change or caret move: opens, updates or closes the list. */
  const update = () => {
    const el = box.current;
    const m = el ? mentionAt(el.value, el.selectionStart ?? el.value.length) : undefined;
    setAt(m);
    if (!m) {
      setItems([]);
      return;
    }
    const n = ++asked.current;
    void completePaths(m.query).then((list) => {
      if (n !== asked.current) return; // a newer query answered first
      // The highlighted path stays highlighted when it is still listed (an answer may land after an arrow key).
      setItems((prev) => {
        setActive((i) => Math.max(0, list.findIndex((c) => c.path === prev[i]?.path)));
        return list;
      });
    });
  };
  useEffect(() => {
    if (!text.includes('@')) {
      setAt(undefined);
      setItems([]);
    }
  }, [text]);

  const pick = (c: PathCompletion) => {
    if (!at) return;
    const end = at.start + 1 + at.query.length;
    const next = `${text.slice(0, at.start)}@${c.path}${c.path.endsWith('/') ? '' : ' '}${text.slice(end)}`;
    setText(next);
    setItems([]);
    setAt(undefined);
    if (!c.path.endsWith('/')) void addMention(c.path);
    else {
      // A folder: keep completing inside it; Enter on the same folder again attaches its listing.
      if (at.query === c.path) void addMention(c.path);
    }
    requestAnimationFrame(() => {
      const el = box.current;
      if (!el) return;
      const caret = at.start + 1 + c.path.length + (c.path.endsWith('/') ? 0 : 1);
      el.focus();
      el.setSelectionRange(caret, caret);
      if (c.path.endsWith('/')) update();
    });
  };

  /** True when the key was the list's. */
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (items.length === 0) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
      return true;
    }
    if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      pick(items[active]!);
      return true;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      setItems([]);
      return true;
    }
    return false;
  };
  return { items, active, pick, update, onKeyDown };
}
