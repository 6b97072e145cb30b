/**
 * Checks a request body as a provider would: every tool call the history sends is answered right after it, and no
 * result answers a call that is not there. Reads the Anthropic Messages, OpenAI Chat and OpenAI Responses shapes.
 * Returns the problems found (empty: the provider would accept the history).
 */
type Json = Record<string, unknown>;

function anthropicProblems(messages: Json[]): string[] {
  const problems: string[] = [];
  messages.forEach((m, i) => {
    const blocks = Array.isArray(m.content) ? (m.content as Json[]) : [];
    const prev = i > 0 && Array.isArray(messages[i - 1]!.content) ? (messages[i - 1]!.content as Json[]) : [];
    const calls = new Set(prev.filter((b) => b.type === 'tool_use').map((b) => String(b.id)));
    for (const b of blocks) if (b.type === 'tool_result' && !calls.has(String(b.tool_use_id))) problems.push(`orphan tool_result ${String(b.tool_use_id)}`);
    if (m.role !== 'assistant') return;
    const next = messages[i + 1];
    const results = new Set(
      (next && Array.isArray(next.content) ? (next.content as Json[]) : []).filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)),
    );
    for (const b of blocks) if (b.type === 'tool_use' && !results.has(String(b.id))) problems.push(`dangling tool_use ${String(b.id)}`);
  });
  return problems;
}

function chatProblems(messages: Json[]): string[] {
  const problems: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j]!.role === 'tool') j--;
      const calls = ((messages[j]?.tool_calls as Json[] | undefined) ?? []).map((c) => String(c.id));
      if (!calls.includes(String(m.tool_call_id))) problems.push(`orphan tool message ${String(m.tool_call_id)}`);
    }
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) return;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) answered.add(String(messages[j]!.tool_call_id));
    for (const c of m.tool_calls as Json[]) if (!answered.has(String(c.id))) problems.push(`dangling tool_call ${String(c.id)}`);
  });
  return problems;
}

function responsesProblems(input: Json[]): string[] {
  const problems: string[] = [];
  const calls = input.filter((x) => x.type === 'function_call').map((x) => String(x.call_id));
  const outputs = input.filter((x) => x.type === 'function_call_output').map((x) => String(x.call_id));
  for (const c of calls) if (!outputs.includes(c)) problems.push(`dangling function_call ${c}`);
  for (const o of outputs) if (!calls.includes(o)) problems.push(`orphan function_call_output ${o}`);
  input.forEach((x, i) => {
    if (x.type !== 'function_call_output') return;
    const at = input.findIndex((y) => y.type === 'function_call' && y.call_id === x.call_id);
    if (at > i) problems.push(`function_call_output before its call ${String(x.call_id)}`);
  });
  return problems;
}

export type WireApi = 'anthropic' | 'openai-chat' | 'openai-responses';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are arbitrary JSON
export function wirePairingProblems(api: WireApi, body: any): string[] {
  if (api === 'openai-responses') return responsesProblems((body?.input ?? []) as Json[]);
  const messages = (body?.messages ?? []) as Json[];
  return api === 'anthropic' ? anthropicProblems(messages) : chatProblems(messages);
}
