import { useLayoutEffect, useRef } from 'react';
import { create } from 'zustand';
import { SLASH_COMMANDS } from '../lib/commands.js';

const useHelp = create<{ open: boolean }>(() => ({ open: false }));
export const openHelp = (): void => useHelp.setState({ open: true });
export const closeHelp = (): void => useHelp.setState({ open: false });
export const isHelpOpen = (): boolean => useHelp.getState().open;

const MOD = /mac/i.test(globalThis.navigator?.platform ?? '') ? '⌘' : 'Ctrl';

/** The keys of the window (issue 18 item 14), one list: what people look for with `?`. */
export const SHORTCUTS: readonly [string, string][] = [
  ['Enter', 'Send the message'],
  ['Shift+Enter', 'New line in the message'],
  ['/', 'Commands (at the start of the message)'],
  ['↑ (empty box)', 'Bring back your last message to edit'],
  ['Esc', 'Stop the reply; close a menu or dialog'],
  [`${MOD}+K`, 'Command palette: chats, models and actions'],
  [`${MOD}+N`, 'New chat'],
  [`${MOD}+F`, 'Find in this chat'],
  [`${MOD}+B`, 'Show or hide the chat list'],
  [`${MOD}+,`, 'Settings'],
  [`${MOD}+Home / ${MOD}+End`, 'First / last message of the chat'],
  ['?', 'This list'],
];

/** `?` (or /help, or the palette): the keyboard shortcuts and the slash commands. Esc or the button closes it. */
export function HelpSheet() {
  const open = useHelp((s) => s.open);
  const close = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    if (!open) return;
    const back = document.activeElement as HTMLElement | null;
    close.current?.focus();
    return () => back?.focus?.();
  }, [open]);
  if (!open) return null;
  return (
    <div className="palette-backdrop" onMouseDown={closeHelp}>
      <div
        className="palette help-sheet"
        role="dialog"
        aria-modal="true"
        aria-labelledby="help-title"
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            closeHelp();
          }
        }}
        data-testid="help-sheet"
      >
        <div className="help-head">
          <h2 id="help-title">Keys and commands</h2>
          <button ref={close} type="button" className="btn btn-small" onClick={closeHelp}>
            Close
          </button>
        </div>
        <div className="help-body">
          <table className="help-table">
            <tbody>
              {SHORTCUTS.map(([key, what]) => (
                <tr key={key}>
                  <td>
                    <kbd>{key}</kbd>
                  </td>
                  <td>{what}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table className="help-table">
            <tbody>
              {SLASH_COMMANDS.map((c) => (
                <tr key={c.name}>
                  <td>
                    <code>
                      /{c.name}
                      {c.args ? ` ${c.args}` : ''}
                    </code>
                  </td>
                  <td>{c.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </div>
  );
}
