/**
 * The offline demo model's script, as a pure function of the conversation: look at the workspace (`list`), read
 * the most relevant text file (`read`), then summarise. It decides only from the messages of the current user turn.
 */
import type { Message, ToolResultMessage, UserMessage } from '../engine/messages.js';

export type DemoStep =
  | { kind: 'tool'; thinking: string; text?: string; tool: 'list' | 'read'; args: Record<string, unknown> }
  | { kind: 'reply'; thinking?: string; text: string };

export interface ListingEntry {
  name: string;
  isDir: boolean;
}

const KEY_HINT =
  'This is the offline demo model: it follows a fixed script and calls no real LLM. To chat with a real model, ' +
  'give AgentDesk an API key — set ANTHROPIC_API_KEY or OPENAI_API_KEY before starting it, or store one in the ' +
  'OS keychain with `agentdesk auth add --provider anthropic --label default` — and pick that model.';

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** Parses the `list` tool's output (`name/`, `name  (size)`, `name -> target`; `[…]` lines are notes). */
export function parseListing(content: string): ListingEntry[] {
  const out: ListingEntry[] = [];
  for (const raw of content.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('[')) continue;
    const name = line.split('  (')[0]!.split(' -> ')[0]!.trim();
    if (name === '') continue;
    out.push(name.endsWith('/') ? { name: name.slice(0, -1), isDir: true } : { name, isDir: false });
  }
  return out;
}

/** README* › AGENTS.md › package.json › first *.md › first *.txt (files only). */
export function pickRelevantFile(entries: ListingEntry[]): string | undefined {
  const files = entries.filter((e) => !e.isDir).map((e) => e.name);
  const readmes = files.filter((f) => /^readme/i.test(f));
  const rules: Array<(f: string) => boolean> = [
    (f) => f === (readmes.find((r) => /^readme\.md$/i.test(r)) ?? readmes[0]),
    (f) => f === 'AGENTS.md',
    (f) => f === 'package.json',
    (f) => /\.md$/i.test(f),
    (f) => /\.txt$/i.test(f),
  ];
  for (const rule of rules) {
    const hit = files.find(rule);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

function currentTurn(messages: Message[]): { prompt: UserMessage | undefined; after: Message[] } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') return { prompt: m, after: messages.slice(i + 1) };
  }
  return { prompt: undefined, after: messages };
}

function describeEntries(entries: ListingEntry[]): string {
  if (entries.length === 0) return 'The folder is empty.';
  const names = entries.slice(0, 8).map((e) => (e.isDir ? `${e.name}/` : e.name));
  const more = entries.length > names.length ? `, and ${entries.length - names.length} more` : '';
  const n = entries.length;
  return `The folder has ${n} ${n === 1 ? 'entry' : 'entries'}: ${names.join(', ')}${more}.`;
}

function firstLines(content: string, count: number): string[] {
  return content
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, count)
    .map((l) => clip(l, 120));
}

export function planDemoTurn(messages: Message[], toolNames: readonly string[]): DemoStep {
  const { prompt, after } = currentTurn(messages);
  const asked = prompt ? clip(prompt.content.trim().replace(/\s+/g, ' '), 80) : '';
  const results = after.filter((m): m is ToolResultMessage => m.role === 'toolResult');
  const listResult = results.find((r) => r.toolName === 'list');
  const readResult = results.find((r) => r.toolName === 'read');

  if (results.length === 0) {
    if (!toolNames.includes('list')) {
      return { kind: 'reply', text: `[Demo model] You said: "${asked}". I have no workspace tools in this chat, so I can only echo. ${KEY_HINT}` };
    }
    return {
      kind: 'tool',
      thinking: `The user asked "${asked}". I'll look at the workspace first.`,
      text: 'Let me look at the files in this folder first.',
      tool: 'list',
      args: { path: '.' },
    };
  }

  if (listResult?.isError) {
    return {
      kind: 'reply',
      text: `[Demo model] I tried to list the workspace, but the list tool reported an error: ${clip(listResult.content, 300)}\n\n${KEY_HINT}`,
    };
  }
  const entries = listResult ? parseListing(listResult.content) : [];
  const summary = describeEntries(entries);

  if (!readResult) {
    const file = pickRelevantFile(entries);
    if (file !== undefined && toolNames.includes('read')) {
      return {
        kind: 'tool',
        thinking: `${summary} ${file} looks like the most relevant file, so I'll read it.`,
        tool: 'read',
        args: { path: file },
      };
    }
    return {
      kind: 'reply',
      thinking: 'There is no text file worth reading here, so I will summarise the listing.',
      text: `[Demo model] I looked at the workspace. ${summary} I found no README or other text file to read.\n\n${KEY_HINT}`,
    };
  }

  const path = String(readCallPath(messages, readResult.toolCallId) ?? 'the file');
  if (readResult.isError) {
    return {
      kind: 'reply',
      text: `[Demo model] I looked at the workspace. ${summary} I tried to read ${path}, but the read tool reported an error: ${clip(readResult.content, 300)}\n\n${KEY_HINT}`,
    };
  }
  const lines = firstLines(readResult.content, 3);
  const quoted = lines.length > 0 ? `${path} starts with:\n\n${lines.map((l) => `> ${l}`).join('\n')}` : `${path} is empty.`;
  return {
    kind: 'reply',
    thinking: `I have the listing and the start of ${path}; time to summarise.`,
    text: `[Demo model] I looked at the workspace. ${summary}\n\n${quoted}\n\n${KEY_HINT}`,
  };
}

/** The `path` argument of the tool call a result answers. */
function readCallPath(messages: Message[], toolCallId: string): unknown {
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const b of m.content) {
      if (b.type === 'toolCall' && b.id === toolCallId) return b.arguments.path;
    }
  }
  return undefined;
}
