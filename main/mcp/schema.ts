/**
 * X1: an MCP tool's `inputSchema` made acceptable to both providers. Passed through as it is except where a provider
 * rejects a construct: the top level must be `{"type": "object"}` (OpenAI refuses anything else, and a missing
 * `properties`), `$schema` / `$id` at the top are dropped, and a top-level `oneOf` / `anyOf` / `allOf` / `enum` / `not`
 * (Anthropic: "input_schema does not support oneOf, allOf, or anyOf at the top level") is folded into an object
 * schema with the merged properties. Nested schemas stay as the server wrote them.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const TOP_COMBINATORS = ['oneOf', 'anyOf', 'allOf'] as const;

export function normalizeInputSchema(schema: unknown): Json {
  if (!isObject(schema)) return { type: 'object', properties: {} };
  const { $schema: _s, $id: _i, not: _n, enum: _e, const: _c, ...rest } = schema;
  const out: Json = { ...rest };
  const branches = TOP_COMBINATORS.flatMap((k) => (Array.isArray(schema[k]) ? (schema[k] as unknown[]).filter(isObject) : []));
  for (const k of TOP_COMBINATORS) delete out[k];
  if (branches.length > 0) {
    // The model sees every property any branch allows; which combination is valid is left to the server to check.
    const properties: Json = { ...(isObject(out.properties) ? out.properties : {}) };
    for (const b of branches) if (isObject(b.properties)) Object.assign(properties, b.properties);
    out.properties = properties;
    const allOfRequired = Array.isArray(schema.allOf)
      ? (schema.allOf as unknown[]).filter(isObject).flatMap((b) => (Array.isArray(b.required) ? (b.required as string[]) : []))
      : [];
    const required = [...new Set([...(Array.isArray(out.required) ? (out.required as string[]) : []), ...allOfRequired])];
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  out.type = 'object';
  if (!isObject(out.properties)) out.properties = {};
  return out;
}
