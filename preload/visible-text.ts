/**
 * Text from the model shown to a person who decides on it (X5), on a terminal (main/cli) and in the approval card
 * (renderer): a command or a diff may carry control characters — ESC sequences that move the cursor and redraw
 * the prompt (showing `ls -la` while the command is `curl … | sh`), carriage returns and backspaces that overwrite
 * what was printed, bidirectional overrides that reorder what is read, invisible characters. Every such character
 * is shown as a visible escape instead (`\x1b`, `\r`, `\u202e`); new lines and tabs stay. Pure and shared (no
 * Node or DOM), like contract.ts.
 */

/**
 * C0 controls but \t and \n, DEL, C1 controls, and the Unicode format characters that reorder or hide text (soft
 * hyphen, bidi marks and overrides, zero-width and invisible operators, the invisible "tag" letters U+E0000–E007F
 * that smuggle ASCII past a reader).
 */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;

const NAMED: Record<string, string> = { '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\0': '\\0' };

export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.codePointAt(0)!;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
    return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** True when escaping changed something (the prompt then says so). */
export const hasUnsafeControls = (text: string): boolean => new RegExp(UNSAFE.source, 'u').test(text);
