/**
 * X1: an MCP `tools/call` result in the transcript's terms. Text blocks become the result text; images go out as
 * image data (`toolImages`, the one function issue 19's attachments share) with a one-line placeholder in the text
 * for models that are given no images; embedded resources give their text (or a note for binary ones); resource
 * links and audio become one line each; `structuredContent` is added as JSON when no text block carries it.
 * `isError: true` turns into an error result the model sees. Size caps and per-result truncation are the engine's
 * (tool-lifecycle), the same as for built-in tools.
 */
import type { ImageData } from '../engine/messages.js';
import { ToolError, type ToolOutput } from '../tools/types.js';

type Json = Record<string, unknown>;

/** Anthropic's limit for one image (base64 characters of ~5 MB of bytes); larger ones are named, not sent. */
export const MAX_IMAGE_BASE64 = Math.floor((5 * 1024 * 1024 * 4) / 3);
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const bytesOf = (base64: string): number => Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
const size = (n: number): string => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} bytes`);

/**
 * The images a result block list carries that a vision model can be given (PNG, JPEG, GIF, WebP within the size
 * cap), in order, and a text line for each image block (sent or not).
 */
export function toolImages(blocks: readonly unknown[]): { images: ImageData[]; lines: string[] } {
  const images: ImageData[] = [];
  const lines: string[] = [];
  for (const b of blocks) {
    const block = b as Json;
    if (block?.type !== 'image' || typeof block.data !== 'string') continue;
    const mimeType = typeof block.mimeType === 'string' ? block.mimeType : 'application/octet-stream';
    const what = `${mimeType}, ${size(bytesOf(block.data))}`;
    if (!IMAGE_TYPES.has(mimeType)) lines.push(`[image ${what}: a type models are not given]`);
    else if (block.data.length > MAX_IMAGE_BASE64) lines.push(`[image ${what}: too large to give to the model]`);
    else {
      images.push({ type: 'image', mimeType, data: block.data });
      lines.push(`[image ${what}]`);
    }
  }
  return { images, lines };
}

function resourceLine(block: Json): string {
  const r = (block.resource ?? {}) as Json;
  const uri = String(r.uri ?? '');
  if (typeof r.text === 'string') return `[resource ${uri}${typeof r.mimeType === 'string' ? ` (${r.mimeType})` : ''}]\n${r.text}`;
  const bytes = typeof r.blob === 'string' ? `, ${size(bytesOf(r.blob))}` : '';
  return `[resource ${uri} (${typeof r.mimeType === 'string' ? r.mimeType : 'binary'}${bytes}): binary content not shown]`;
}

export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** The ToolOutput of a result (throws a ToolError for `isError`, so the lifecycle records an error result). */
export function mapToolResult(result: McpCallResult, info: { server: string; tool: string }): ToolOutput {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const { images, lines: imageLines } = toolImages(blocks);
  const parts: string[] = [];
  let imageIndex = 0;
  for (const b of blocks) {
    const block = b as Json;
    switch (block?.type) {
      case 'text':
        if (typeof block.text === 'string') parts.push(block.text);
        break;
      case 'image':
        parts.push(imageLines[imageIndex++] ?? '[image]');
        break;
      case 'audio':
        parts.push(`[audio ${typeof block.mimeType === 'string' ? block.mimeType : ''}, ${size(bytesOf(String(block.data ?? '')))}: not given to the model]`);
        break;
      case 'resource':
        parts.push(resourceLine(block));
        break;
      case 'resource_link':
        parts.push(`[resource link ${String(block.name ?? '')}: ${String(block.uri ?? '')}${typeof block.description === 'string' ? ` — ${block.description}` : ''}]`);
        break;
      default:
        parts.push(JSON.stringify(block));
    }
  }
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    if (!parts.some((p) => p.includes(json))) parts.push(json);
  }
  const content = parts.join('\n');
  if (result.isError) throw new ToolError(content || `${info.tool} on MCP server "${info.server}" reported an error.`);
  return {
    content,
    ...(images.length > 0 ? { images } : {}),
    details: { mcp: { server: info.server, tool: info.tool } },
  };
}
