import { useEffect, useMemo, useRef } from 'react';
import type { SlashMenuState } from '../lib/commands.js';
import { THINKING_LEVELS } from '../lib/words.js';
import { useChat } from '../store/chat-store.js';
import { modelLabel } from '../lib/format.js';

export interface SlashItem {
  id: string;
  /** What is put in the box (`/model ` for a command with an argument; the whole line for one without). */
  insert: string;
  /** Run it at once (a command without an argument, or a chosen argument). */
  run: boolean;
  label: string;
  hint: string;
}

/** The menu's rows for the box's text. */
export function useSlashItems(menu: SlashMenuState): SlashItem[] {
  const models = useChat((s) => s.models);
  return useMemo(() => {
    if (!menu) return [];
    if (menu.kind === 'commands') {
      return menu.items.map((c) => ({
        id: c.name,
        insert: c.args ? `/${c.name} ` : `/${c.name}`,
        run: !c.args,
        label: `/${c.name}${c.args ? ` ${c.args}` : ''}`,
        hint: c.description,
      }));
    }
    const { command, prefix } = menu;
    const choices =
      command.choices === 'models'
        ? models.filter((m) => m.hasKey || m.demo).map((m) => ({ value: m.ref, hint: modelLabel(m) }))
        : command.choices === 'levels'
          ? THINKING_LEVELS.map((t) => ({ value: t.level, hint: t.label }))
          : (command.choices ?? []).map((v) => ({ value: v, hint: '' }));
    const p = prefix.toLowerCase();
    return choices
      .filter((c) => c.value.toLowerCase().includes(p))
      .map((c) => ({ id: `${command.name}:${c.value}`, insert: `/${command.name} ${c.value}`, run: true, label: c.value, hint: c.hint }));
  }, [menu, models]);
}

/** The list above the composer while a `/` command is typed: ↑/↓ move, Enter or Tab takes one, Esc closes. */
export function SlashMenu({ items, index, onPick }: { items: SlashItem[]; index: number; onPick: (item: SlashItem) => void }) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.querySelector(`#slash-${index}`)?.scrollIntoView({ block: 'nearest' });
  }, [index]);
  if (items.length === 0) return null;
  return (
    <ul className="slash-menu" id="slash-menu" role="listbox" aria-label="Commands" ref={list} data-testid="slash-menu">
      {items.map((item, i) => (
        <li
          key={item.id}
          id={`slash-${i}`}
          role="option"
          aria-selected={i === index}
          className={`slash-item${i === index ? ' active' : ''}`}
          onMouseDown={(e) => {
            e.preventDefault(); // keep the focus in the box
            onPick(item);
          }}
        >
          <span className="slash-name">{item.label}</span>
          <span className="slash-hint">{item.hint}</span>
        </li>
      ))}
    </ul>
  );
}
