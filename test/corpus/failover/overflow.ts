// OpenClaw src/agents/failover/failover-classification.overflow.cases.ts
import { OC_INTERNAL, SRC, type Group } from './types.js';

const CO = 'context_overflow';

export default [
  {
    src: SRC.billing,
    rows: [
      ['billing-context-request-too-large', 'request_too_large', CO],
      ['billing-context-maximum-size', 'Request exceeds the maximum size', CO],
      ['billing-context-length-exceeded', 'context length exceeded', CO],
      ['billing-context-maximum-length', 'Maximum context length', CO],
      ['billing-context-prompt-token-count', 'prompt is too long: 208423 tokens > 200000 maximum', CO],
      ['billing-context-compaction-failed', 'Context overflow: Summarization failed', CO, OC_INTERNAL('its compaction failure')],
      ['billing-context-413', '413 Request Entity Too Large', CO],
      [
        'billing-context-anthropic-json',
        { provider: 'anthropic', message: '{"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"}}' },
        CO,
      ],
      [
        'billing-context-anthropic-400-json',
        { provider: 'anthropic', message: '400 {"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"}}' },
        CO,
      ],
      ['billing-context-kimi-limit', 'Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)', CO],
      [
        'billing-context-kimi-status',
        'error, status code: 400, message: Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)',
        CO,
      ],
      ['billing-context-max-tokens-sum', 'input length and max_tokens exceed context limit (i.e 156321 + 48384 > 200000)', CO],
      ['billing-context-model-maximum', "This request exceeds the model's maximum context length", CO],
      ['billing-context-max-tokens-window', 'LLM request rejected: max_tokens would exceed context window', CO],
      ['billing-context-input-budget', 'input length would exceed context budget for this model', CO],
      ['billing-context-input-length-model-limit', 'input length 14295 tokens exceeds the model limit', CO],
      ['billing-context-stop-reason', 'Unhandled stop reason: model_context_window_exceeded', CO],
      ['billing-context-chinese-too-long', '错误：上下文过长，请减少输入', CO],
      ['billing-context-chinese-compress', '请压缩上下文后重试', CO],
      ['billing-context-404-vertex', 'HTTP 404: INVALID_ARGUMENT: input exceeds the maximum number of tokens', CO],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      ['patterns-context-bedrock-validation', 'ValidationException: The input is too long for the model', CO],
      ['patterns-context-bedrock-token-count', 'ValidationException: Input token count exceeds the maximum number of input tokens', CO],
      ['patterns-context-bedrock-stream', 'ModelStreamErrorException: Input is too long for this model', CO],
      ['patterns-context-vertex', 'INVALID_ARGUMENT: input exceeds the maximum number of tokens', CO],
      ['patterns-context-ollama', 'ollama error: context length exceeded, too many tokens', CO],
      ['patterns-context-mistral', 'mistral: input is too long for this model', CO],
      ['patterns-context-cohere', "total tokens exceeds the model's maximum limit of 4096", CO],
      ['patterns-context-llamacpp-exceeded', 'Context size has been exceeded.', CO],
      ['patterns-context-llamacpp-exceeded-400', '400 Context size has been exceeded.', CO],
      ['patterns-context-llamacpp-exceeded-500', '500 Context size has been exceeded.', CO],
      [
        'patterns-context-llamacpp-available',
        '400 request (66202 tokens) exceeds the available context size (65536 tokens), try increasing it',
        CO,
      ],
      ['patterns-context-llamacpp-no-the', 'request (130000 tokens) exceeds available context size (131072 tokens)', CO],
      [
        'patterns-context-llamacpp-prompt',
        'prompt (8500 tokens) exceeds the available context size (8192 tokens), try increasing it',
        CO,
      ],
      ['patterns-context-ds4', '400 Prompt has 256468 tokens, but the configured context size is 256000 tokens', CO],
      [
        'patterns-context-tgi-total',
        {
          status: 422,
          message:
            '422 Input validation error: `inputs` tokens + `max_new_tokens` must be <= 32768. Given: 28897 `inputs` tokens and 3872 `max_new_tokens`',
        },
        CO,
      ],
      [
        'patterns-context-tgi-input',
        { status: 422, message: '422 Input validation error: `inputs` must have less than 32768 tokens. Given: 40000' },
        CO,
      ],
    ],
  },
  {
    src: SRC.structured,
    rows: [
      [
        'structured-context-raw-invalid-request',
        { provider: 'anthropic', message: '{"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"}}' },
        CO,
      ],
      [
        'structured-context-typed-invalid-request',
        { provider: 'anthropic', errorType: 'invalid_request_error', message: 'Request size exceeds model context window' },
        CO,
      ],
    ],
  },
  {
    src: SRC.errors,
    rows: [
      [
        'errors-context-codex-prompt-window',
        "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
        CO,
      ],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      ['billing-context-model-token-limit-short', 'Your request exceeded model token limit', CO],
      ['billing-context-window-limit', 'The request size exceeds model context window limit', CO],
      ['billing-context-window-code', 'context_window_exceeded', CO],
      ['billing-context-chinese-exceeds', '上下文超出限制', CO],
      ['billing-context-chinese-model-max', '上下文长度超出模型最大限制', CO],
      ['billing-context-chinese-maximum', '超出最大上下文长度', CO],
      [
        'billing-context-compaction-json',
        'Context overflow: Summarization failed: 400 {"message":"prompt is too long"}',
        CO,
        OC_INTERNAL('its compaction failure'),
      ],
      ['billing-context-compaction-prompt', 'Compaction failed: prompt is too long', CO, OC_INTERNAL('its compaction failure')],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      ['patterns-context-generic-input', 'input is too long for model gpt-5.4', CO],
      ['patterns-context-ollama-short', 'ollama error: context length exceeded', CO],
      ['patterns-context-prompt-token-limit', 'prompt is too long: 150000 tokens > 128000 maximum', CO],
    ],
  },
] satisfies readonly Group[];
