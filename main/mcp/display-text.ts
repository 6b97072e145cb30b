/**
 * X1: text an MCP server controls that a person reads — tool names, titles and descriptions (Settings, the approval
 * card and prompt, `agentdesk mcp test`), its version, its stderr lines and progress messages (status lines, error
 * messages, the tool row). A server is untrusted: in a terminal an escape sequence in a tool name can erase the
 * approval prompt's line and write another (`\x1b[2K\r`), set the clipboard (OSC 52) or the window title; in the
 * window, bidi overrides reorder what is shown and Unicode tag characters (U+E0000–E007F) carry text a model reads
 * but nobody sees ("ASCII smuggling" in a tool description). Pure functions, table-tested.
 */
import type { McpToolDef } from './types.js';

/**
 * C0 controls but tab and newline, DEL, C1 controls, the bidi embeddings / overrides / isolates and marks, zero-width
 * and invisible format characters, line / paragraph separators, interlinear annotation marks, and tag characters.
 */
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;
// eslint-disable-next-line no-control-regex
const HIDDEN_OR_LINE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;

/** `s` without what would be hidden or act as a terminal control (tabs and newlines kept). */
export const visibleText = (s: string): string => s.replace(HIDDEN, '');

/** `s` on one line: hidden characters dropped, tabs and newlines as spaces. */
export const visibleLine = (s: string): string => s.replace(/[\t\n]/g, ' ').replace(HIDDEN, '');

/**
 * Why a server's tool name cannot be offered (it would show as something else than it is), or undefined. The name
 * is what the call sends back to the server, so it is never rewritten: such a tool is left out.
 */
export function badToolName(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.trim() === '') return 'an empty name';
  if (name.length > 256) return 'a name over 256 characters';
  if (HIDDEN_OR_LINE.test(name)) return `a name with control or invisible characters (${JSON.stringify(visibleLine(name).slice(0, 60))})`;
  return undefined;
}

/**
 * The tools of a listing a person can be shown as they are: names checked (bad ones left out and counted), titles
 * and descriptions with hidden characters dropped — so what Settings shows is what the model is told.
 */
export function visibleToolDefs(defs: readonly McpToolDef[]): { tools: McpToolDef[]; leftOut: number } {
  const tools: McpToolDef[] = [];
  let leftOut = 0;
  for (const d of defs) {
    if (!d || typeof d !== 'object' || badToolName(d.name)) {
      leftOut++;
      continue;
    }
    tools.push({
      ...d,
      ...(typeof d.title === 'string' ? { title: visibleLine(d.title) } : {}),
      description: typeof d.description === 'string' ? visibleText(d.description) : '',
    });
  }
  return { tools, leftOut };
}
