/**
 * before_prompt_build (E19) as the seeds define it: it runs once per run, after the session is loaded, and sees the
 * real prompt (the person's message), the session's messages and the assembled system prompt. What it returns:
 * - `systemPrompt` replaces the system prompt; `prependSystemContext` / `appendSystemContext` go before / after it —
 *   for stable instructions that belong in the system prompt space;
 * - `prependContext` is placed before the user's message of this turn — for dynamic per-turn text. It is stored with
 *   that message (`context`, never shown as what the person typed), so later requests carry the turn exactly as the
 *   model saw it, and the system prompt stays the same from turn to turn (prompt caching).
 */
import type { Message, UserMessage } from '../messages.js';
import type { HookContext, PromptBuildResult } from './hooks.js';
import type { HookRunner } from './hook-runner.js';

/** The hook's result (empty when no hook is registered). */
export async function runPromptBuild(
  hooks: HookRunner,
  event: { prompt: string; systemPrompt: string; messages: readonly Message[] },
  ctx: HookContext,
): Promise<PromptBuildResult> {
  if (!hooks.has('before_prompt_build')) return {};
  return hooks.buildPrompt(event, ctx);
}

/** The system prompt after the hook: replaced, then framed by the system contexts. */
export function shapeSystemPrompt(base: string, r: PromptBuildResult): string {
  const prompt = r.systemPrompt ?? base;
  if (!r.prependSystemContext?.trim() && !r.appendSystemContext?.trim()) return prompt;
  return [r.prependSystemContext, prompt, r.appendSystemContext].filter((s): s is string => !!s && s.trim() !== '').join('\n\n');
}

/** A user message as the model receives it: its turn's context (if any) before what the person wrote. Pure. */
export function withTurnContext(m: UserMessage): UserMessage {
  if (m.context === undefined) return m;
  const { context, ...rest } = m;
  return context.trim() ? { ...rest, content: `${context.trim()}\n\n${m.content}` } : rest;
}
