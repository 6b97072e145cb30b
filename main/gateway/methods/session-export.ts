/** Session export (D3): a readable Markdown document or the raw JSON of the summary and its history. */
import type { AttachmentDto, HistoryEntry, SessionExport, SessionSummary } from '../../../preload/contract.js';

const fence = (text: string): string => {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
};

/** A file name from the title: letters, digits and dashes only. */
export function exportFileName(session: SessionSummary, ext: string): string {
  const base = (session.title || session.sessionKey)
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .slice(0, 60)
    .toLowerCase();
  return `${base || 'session'}.${ext}`;
}

type Files = ReadonlyMap<string, { mimeType: string; data: string }>;

/** X3: an attachment in the Markdown export: an image inline (data URL), a text file fenced with its name. */
function attachmentMarkdown(a: AttachmentDto, files: Files): string[] {
  const f = files.get(a.id);
  if (!f) return [`_(attachment ${a.name}: missing from the data folder)_`, ''];
  if (a.type === 'image') return [`![${a.name.replace(/[[\]]/g, '')}](data:${f.mimeType};base64,${f.data})`, ''];
  return [`**${a.mention === 'folder' ? 'Folder' : 'File'}** \`${a.name}\``, '', fence(Buffer.from(f.data, 'base64').toString('utf8')), ''];
}

export function toMarkdown(session: SessionSummary, history: HistoryEntry[], files: Files = new Map()): string {
  const out: string[] = [`# ${session.title || 'Untitled chat'}`, ''];
  const meta = [`session \`${session.sessionKey}\``, session.model ? `model ${session.model}` : '', `${session.usage.total} tokens`];
  out.push(`_${meta.filter(Boolean).join(' · ')} · last activity ${new Date(session.updatedAt).toISOString()}_`, '');
  for (const entry of history) {
    if (entry.role === 'user') {
      out.push('## You', '', entry.text, '');
      for (const a of entry.attachments ?? []) out.push(...attachmentMarkdown(a, files));
    } else if (entry.role === 'assistant') {
      out.push(`## Assistant${entry.model ? ` (${entry.model}${entry.demo ? ', demo' : ''})` : ''}`, '');
      if (entry.thinking) out.push('<details><summary>Thinking</summary>', '', entry.thinking, '', '</details>', '');
      if (entry.text) out.push(entry.text, '');
      for (const call of entry.toolCalls) out.push(`**Tool call** \`${call.name}\``, '', fence(JSON.stringify(call.arguments, null, 2)), '');
      if (entry.errorMessage) out.push(`> **Error:** ${entry.errorMessage}`, '');
    } else if (entry.role === 'compaction') {
      out.push(`> _Earlier messages were summarised (${entry.tokensBefore} → ${entry.tokensAfter} tokens):_ ${entry.summary.replace(/\n+/g, ' ')}`, '');
    } else {
      out.push(`**Tool result** \`${entry.toolName}\`${entry.isError ? ' (error)' : ''}`, '', fence(entry.content), '');
    }
  }
  return out.join('\n');
}

/** X3: the export includes the attachments it refers to (JSON: `attachments` by id, base64; Markdown: inline). */
export async function exportSession(
  session: SessionSummary,
  history: HistoryEntry[],
  format: 'markdown' | 'json',
  readAttachment?: (id: string) => Promise<{ mimeType: string; data: string } | undefined>,
): Promise<SessionExport> {
  const files = new Map<string, { mimeType: string; data: string }>();
  for (const entry of history) {
    if (entry.role !== 'user') continue;
    for (const a of entry.attachments ?? []) {
      if (files.has(a.id) || !readAttachment) continue;
      const f = await readAttachment(a.id).catch(() => undefined);
      if (f) files.set(a.id, f);
    }
  }
  if (format === 'json') {
    const attachments = Object.fromEntries(files);
    return {
      filename: exportFileName(session, 'json'),
      mime: 'application/json',
      content: `${JSON.stringify({ session, history, ...(files.size ? { attachments } : {}) }, null, 2)}\n`,
    };
  }
  return { filename: exportFileName(session, 'md'), mime: 'text/markdown', content: toMarkdown(session, history, files) };
}
