/**
 * Anthropic Messages API StreamFn. Consumes the SDK's RAW event stream (the MessageStream helper throws on invalid
 * tool JSON and loses the turn), so tool arguments are parsed and repaired here.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { emptyUsage } from '../engine/messages.js';
import { mapAnthropicStopReason, mergeAnthropicUsage, toAnthropicParams } from './anthropic-convert.js';
import { ClientCache } from './client-cache.js';
import { StreamTruncatedError } from './errors.js';
import { runConverterStream, type StreamContext, type StreamConverter } from './stream-runner.js';
import type { ProviderEvent, StreamFn, StreamRequest } from './types.js';

// The SDK is loaded on first use: a run that never talks to Anthropic (demo, OpenAI) does not pay its load time.
let sdk: Promise<typeof import('@anthropic-ai/sdk')> | undefined;
let AnthropicClient: typeof Anthropic | undefined;
const clients = new ClientCache<Anthropic>(
  (baseUrl, apiKey) =>
    // The engine does its own failover: no SDK retries (they also sleep any retry-after).
    new AnthropicClient!({ apiKey, ...(baseUrl ? { baseURL: baseUrl } : {}), maxRetries: 0 }),
);

/** Starts (once) loading the SDK; a run's first call awaits the same load. */
export const loadAnthropicSdk = () => (sdk ??= import('@anthropic-ai/sdk'));

export const streamAnthropic: StreamFn = (req) => runConverterStream(req, (ctx) => anthropicConverter(req, ctx));

type SdkEvent = Anthropic.Messages.RawMessageStreamEvent;

/**
 * The body as a converter (stream-runner.ts): the runner iterates the SDK stream and each SDK event is turned into
 * engine events here, synchronously.
 */
function anthropicConverter(req: StreamRequest, ctx: StreamContext): StreamConverter<SdkEvent> {
  const b = ctx.builder;
  /** Anthropic block index → builder tool index (text/thinking use the builder's keys). */
  const toolIndex = new Map<number, number>();
  let usage = emptyUsage();
  let stopReason: string | null | undefined;
  let stopped = false;

  return {
    async open() {
      AnthropicClient ??= (await loadAnthropicSdk()).default;
      const client = clients.get(req.model.baseUrl, req.apiKey);
      const params = toAnthropicParams(req);
      // Per-request headers (not client defaultHeaders) so the cached client serves every header set.
      return ctx.watch(client.messages.create(params, { signal: ctx.signal, ...(req.headers ? { headers: req.headers } : {}) }));
    },

    convert(ev, out) {
      switch (ev.type) {
        case 'content_block_delta': {
          // First: nearly every event of a reply is one of these.
          const key = String(ev.index);
          const d = ev.delta;
          let e: ProviderEvent | undefined;
          if (d.type === 'text_delta') e = b.appendText(key, d.text);
          else if (d.type === 'thinking_delta') e = b.appendThinking(key, d.thinking);
          else if (d.type === 'signature_delta') b.appendSignature(key, d.signature);
          else if (d.type === 'input_json_delta') {
            const ti = toolIndex.get(ev.index);
            if (ti !== undefined) e = b.appendToolArgs(ti, d.partial_json);
          }
          if (e) out.push(e);
          break;
        }
        case 'message_start': {
          out.push({ type: 'message_start', id: ev.message.id });
          usage = mergeAnthropicUsage(usage, ev.message.usage);
          out.push(b.setUsage(usage));
          break;
        }
        case 'content_block_start': {
          const block = ev.content_block;
          const key = String(ev.index);
          if (block.type === 'text') {
            const e = b.appendText(key, block.text);
            if (e) out.push(e);
          } else if (block.type === 'thinking') {
            const e = b.appendThinking(key, block.thinking);
            if (e) out.push(e);
            b.appendSignature(key, block.signature);
          } else if (block.type === 'redacted_thinking') {
            b.addRedactedThinking(block.data);
          } else if (block.type === 'tool_use') {
            const { index, event } = b.startToolCall(block.id, block.name);
            toolIndex.set(ev.index, index);
            out.push(event);
          }
          // Server-tool blocks (web search etc.) are not requested by this app and are ignored.
          break;
        }
        case 'content_block_stop': {
          const ti = toolIndex.get(ev.index);
          if (ti !== undefined) {
            const e = b.endToolCall(ti);
            if (e) out.push(e);
          }
          break;
        }
        case 'message_delta': {
          if (ev.delta.stop_reason !== undefined) stopReason = ev.delta.stop_reason;
          if (ev.usage) {
            usage = mergeAnthropicUsage(usage, ev.usage);
            out.push(b.setUsage(usage));
          }
          break;
        }
        case 'message_stop':
          stopped = true;
          break;
        default:
          break; // unknown event names pass through the 1.x SDK; ignore them
      }
      return stopped;
    },

    finish(out) {
      if (!stopped) throw new StreamTruncatedError('Anthropic stream ended before message_stop');
      const reason = mapAnthropicStopReason(stopReason);
      for (const e of b.endOpenToolCalls(reason === 'length')) out.push(e);
      return reason;
    },
  };
}
