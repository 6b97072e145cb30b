/** Runtime validation of tool arguments: zod schemas, failures turned into one plain ToolError for the model. */
import type { z } from 'zod';
import { ToolError } from './types.js';

/**
 * Parses `args` with `schema` (a z.strictObject whose fields carry their own messages, e.g. "`path` must be a
 * string"). Errors read like "read: `path` is required; unknown argument `foo` (allowed: path, offset, limit)".
 */
export function parseArgs<T extends z.ZodObject>(toolName: string, schema: T, args: unknown): z.infer<T> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ToolError(`${toolName}: arguments must be a JSON object`);
  }
  const result = schema.safeParse(args);
  if (result.success) return result.data;

  const given = args as Record<string, unknown>;
  const allowed = Object.keys(schema.shape).join(', ');
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const names = issue.keys.map((k) => `\`${k}\``).join(', ');
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${names} (allowed: ${allowed})`;
    }
    const key = issue.path.map(String).join('.');
    if (issue.code === 'invalid_type' && issue.path.length === 1 && given[key] === undefined) {
      return `\`${key}\` is required`;
    }
    return issue.message;
  });
  throw new ToolError(`${toolName}: ${problems.join('; ')}`);
}
