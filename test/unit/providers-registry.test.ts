import { describe, expect, it } from 'vitest';
import { streamFnFor } from '../../main/providers/registry.js';

describe('streamFnFor', () => {
  it('serves every API kind with its own StreamFn (the real APIs wrapped in the thinking fallback)', () => {
    const fns = (['anthropic', 'openai-chat', 'openai-responses', 'demo'] as const).map((api) => streamFnFor(api));
    for (const fn of fns) expect(typeof fn).toBe('function');
    expect(new Set(fns).size).toBe(4);
    for (const fn of fns.slice(0, 3)) expect(fn.name).toBe('thinkingFallback');
    expect(streamFnFor('openai-responses')).toBe(streamFnFor('openai-responses'));
  });
});
