/** Turns transcript messages into displayable history entries (think tags moved to the thinking text). */
import type { HistoryEntry } from '../../preload/contract.js';
import type { Message } from '../engine/messages.js';
import { createThinkTagFilter } from '../engine/stream/think-tags.js';

function splitTags(text: string): { text: string; thinking: string } {
  const filter = createThinkTagFilter();
  const a = filter.push(text);
  const b = filter.flush();
  return { text: a.text + b.text, thinking: a.thinking + b.thinking };
}

export function toHistory(messages: readonly Message[]): HistoryEntry[] {
  return messages.map((m): HistoryEntry => {
    if (m.role === 'user') return { role: 'user', text: m.content, timestamp: m.timestamp };
    if (m.role === 'toolResult') {
      return { role: 'toolResult', toolCallId: m.toolCallId, toolName: m.toolName, content: m.content, isError: m.isError, timestamp: m.timestamp };
    }
    let text = '';
    let thinking = '';
    const toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] = [];
    for (const block of m.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'thinking') thinking += block.thinking;
      else toolCalls.push({ id: block.id, name: block.name, arguments: block.arguments });
    }
    const split = splitTags(text);
    return {
      role: 'assistant',
      text: split.text,
      thinking: thinking + split.thinking,
      toolCalls,
      stopReason: m.stopReason,
      ...(m.errorMessage ? { errorMessage: m.errorMessage } : {}),
      timestamp: m.timestamp,
    };
  });
}
