/** Shared types of the stream wrapper layers. */

export type TextTransform = (text: string) => string;

export interface ToolNameOptions {
  /** The tools offered to the model this call (the allow-list). */
  allowed: readonly string[];
}

/** Placeholder name for a call whose own name cannot be sent back to a provider (blank, over-long, bad characters). */
export const INVALID_TOOL_NAME = 'invalid_tool_call';

/** A tool name longer than this is malformed (inventory §11, §21 item 8). */
export const MAX_TOOL_NAME_LENGTH = 80;

/** The allow-listed spelling of `name` (trimmed, then exact or case-insensitive), if any. */
export function allowedName(allowed: readonly string[], name: string): string | undefined {
  const wanted = name.trim();
  return allowed.find((a) => a === wanted) ?? allowed.find((a) => a.toLowerCase() === wanted.toLowerCase());
}
