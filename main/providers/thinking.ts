/**
 * E21 thinking levels per provider and model. OpenAI's reasoning effort has no `minimal` on every model (o-series
 * and gpt-5.1+ reject it; gpt-5, gpt-5-mini, gpt-5-nano accept it); Anthropic's budgets live in
 * anthropic-convert.ts. A level the provider still rejects is retried one level lower (`lowerThinkingLevel`).
 */
import type { ModelDef, ThinkingLevel } from './types.js';

export type OpenAIEffort = 'minimal' | 'low' | 'medium' | 'high';

/** Order from most to least thinking; `off` is the floor. */
export const THINKING_ORDER: readonly ThinkingLevel[] = ['high', 'medium', 'low', 'minimal', 'off'];

/** The next level down (`off` stays `off`). */
export function lowerThinkingLevel(level: ThinkingLevel): ThinkingLevel {
  const i = THINKING_ORDER.indexOf(level);
  return THINKING_ORDER[Math.min(i + 1, THINKING_ORDER.length - 1)]!;
}

/** OpenAI model ids known to accept `minimal`: the gpt-5 family before 5.1 (dated snapshots included). */
const MINIMAL_OK = /^(?:openai\/)?gpt-5(?:-mini|-nano|-codex)?(?:-\d{4}-\d{2}-\d{2})?$/i;
/** Known OpenAI reasoning families that reject `minimal` (o1/o3/o4 and gpt-5.1 and later). */
const MINIMAL_REJECTED = /^(?:openai\/)?(?:o\d|gpt-5\.\d)/i;

/**
 * The reasoning effort to send (Chat `reasoning_effort`, Responses `reasoning.effort`), or undefined for none:
 * thinking off, or a model that does not reason. `minimal` becomes `low` on the models known to reject it;
 * other models (OpenAI-compatible servers) get the level as asked.
 */
export function openAIEffort(model: Pick<ModelDef, 'id' | 'reasoning'>, level: ThinkingLevel): OpenAIEffort | undefined {
  if (level === 'off' || !model.reasoning) return undefined;
  if (level === 'minimal' && MINIMAL_REJECTED.test(model.id) && !MINIMAL_OK.test(model.id)) return 'low';
  return level;
}
