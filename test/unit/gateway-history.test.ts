import { describe, expect, it } from 'vitest';
import { storedErrorLine } from '../../main/gateway/history.js';

describe('storedErrorLine: the same error wording after a reload as live', () => {
  it.each([
    ['anthropic', 'error', '401 invalid x-api-key (authentication_error)', 'Anthropic rejected the API key (401): invalid x-api-key'],
    ['openai-chat', 'error', '429 Rate limit reached for requests', 'OpenAI rate limit reached (429): Rate limit reached for requests'],
    ['anthropic', 'error', 'Anthropic rate limit reached (429): slow down', 'Anthropic rate limit reached (429): slow down'],
    ['anthropic', 'aborted', 'The run was stopped.', 'The run was stopped.'],
    ['anthropic', 'error', 'something nobody classifies', 'something nobody classifies'],
    ['anthropic', 'error', undefined, undefined],
  ])('%s %s %j → %j', (api, stop, raw, line) => {
    expect(storedErrorLine(api, stop, raw)).toBe(line);
  });
});
