/**
 * Providers people add most, with their base URLs (issue 18 item 16). Anthropic and OpenAI are built in: their
 * presets only point to the key form. A local server needs no key.
 */
import type { EndpointDto } from '../../../preload/contract.js';

export interface ProviderPreset {
  id: string;
  label: string;
  /** Built in: nothing to add but a key. */
  builtIn?: boolean;
  api: EndpointDto['api'];
  baseUrl: string;
  /** A hosted API that needs a key (a local server does not). */
  needsKey: boolean;
  /** A model or two to start with when the list cannot be fetched. */
  example: string;
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { id: 'anthropic', label: 'Anthropic', builtIn: true, api: 'anthropic', baseUrl: 'https://api.anthropic.com', needsKey: true, example: 'claude-sonnet-4-5' },
  { id: 'openai', label: 'OpenAI', builtIn: true, api: 'openai-responses', baseUrl: 'https://api.openai.com/v1', needsKey: true, example: 'gpt-4.1' },
  { id: 'openrouter', label: 'OpenRouter', api: 'openai-chat', baseUrl: 'https://openrouter.ai/api/v1', needsKey: true, example: 'anthropic/claude-sonnet-4.5' },
  { id: 'ollama', label: 'Ollama (this computer)', api: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', needsKey: false, example: 'llama3.1:8b' },
  { id: 'lmstudio', label: 'LM Studio (this computer)', api: 'openai-chat', baseUrl: 'http://127.0.0.1:1234/v1', needsKey: false, example: 'qwen2.5-7b-instruct' },
  { id: 'vllm', label: 'vLLM (this computer)', api: 'openai-chat', baseUrl: 'http://127.0.0.1:8000/v1', needsKey: false, example: 'Qwen/Qwen2.5-7B-Instruct' },
  { id: 'deepseek', label: 'DeepSeek', api: 'openai-chat', baseUrl: 'https://api.deepseek.com/v1', needsKey: true, example: 'deepseek-chat' },
  { id: 'groq', label: 'Groq', api: 'openai-chat', baseUrl: 'https://api.groq.com/openai/v1', needsKey: true, example: 'llama-3.3-70b-versatile' },
  { id: 'mistral', label: 'Mistral', api: 'openai-chat', baseUrl: 'https://api.mistral.ai/v1', needsKey: true, example: 'mistral-large-latest' },
  { id: 'xai', label: 'xAI', api: 'openai-chat', baseUrl: 'https://api.x.ai/v1', needsKey: true, example: 'grok-3' },
  { id: 'together', label: 'Together AI', api: 'openai-chat', baseUrl: 'https://api.together.xyz/v1', needsKey: true, example: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' },
];
