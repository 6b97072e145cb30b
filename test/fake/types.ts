/**
 * Public types of the fake provider servers (test/fake). Other test suites code against these names.
 */

export type FakeToolCall = {
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent as raw argument text (may be invalid JSON). */
  arguments: Record<string, unknown> | string;
};

export type FakeFault =
  | { kind: 'http'; status: number; body?: unknown; headers?: Record<string, string> } // raw control
  | { kind: 'rate_limit'; retryAfterSeconds?: number } // 429, realistic body per API, retry-after header
  | { kind: 'overloaded' } // anthropic 529 overloaded_error; openai 503 "That model is currently overloaded"
  | { kind: 'server_error' } // 500 realistic body
  | { kind: 'unavailable_html' } // 503 with an HTML proxy page
  | { kind: 'auth' } // 401 realistic body
  | { kind: 'billing' } // anthropic 402 billing_error / openai 429 insufficient_quota (x-should-retry:false)
  | { kind: 'context_overflow' } // anthropic 400 "prompt is too long" / openai 400 context_length_exceeded
  | { kind: 'not_found' } // 404 model not found
  | { kind: 'reset' } // destroy the socket before headers
  | { kind: 'hang' } // never send headers (client sees a header timeout); socket stays open until close()
  | { kind: 'drop'; afterEvents: number } // send N SSE events then destroy the socket
  | { kind: 'stall'; afterEvents: number } // send N events then nothing more (socket open until close())
  | { kind: 'eof'; afterEvents: number } // send N events then end cleanly without message_stop / [DONE]
  | {
      kind: 'stream_error';
      afterEvents: number;
      errorType?: string;
      message?: string;
      /** Responses API only: `nested` error event (default, the real API's), `flat` error event, `response.failed`. */
      shape?: 'nested' | 'flat' | 'failed';
    }; // in-stream error event

export interface FakeTurn {
  /** anthropic thinking block (+signature_delta); openai delta.reasoning_content; responses reasoning item */
  thinking?: string;
  /** streamed in chunks of `chunkSize` chars (default 12) */
  text?: string;
  /** anthropic tool_use blocks / openai tool_calls / responses function_call items (parallel → index 0,1,…) */
  toolCalls?: FakeToolCall[];
  /** default: toolUse if toolCalls else stop; mapped to the API's names */
  stopReason?: 'stop' | 'toolUse' | 'length';
  /**
   * OpenAI Chat only: the raw `finish_reason` sent instead of stopReason's, e.g. "error" or "network_error" (a
   * completion an OpenAI-compatible server ended with a failure: OpenRouter, Gemini, vLLM).
   */
  finishReason?: string;
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  chunkSize?: number;
  /** delay between SSE events (default 0) */
  delayMs?: number;
  /** delay before the response starts — a model's time to first token (default 0) */
  firstByteMs?: number;
  fault?: FakeFault;
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are arbitrary JSON read by tests
  body: any;
  /** When the request reached the server (ms since the epoch). */
  at?: number;
}

export type FakeStep = FakeTurn | ((req: RecordedRequest) => FakeTurn);

/**
 * The overflow 400 of a context window: the API's own (default), or an OpenAI-compatible server's wording —
 * 'kimi': Moonshot's `Invalid request: Your request exceeded model token limit: N (requested: M)`.
 */
export type OverflowStyle = 'native' | 'kimi';

export interface FakeProvider {
  api: 'anthropic' | 'openai';
  /** anthropic: http://127.0.0.1:PORT (SDK adds /v1/messages); openai: http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  /** consumed FIFO, one per request */
  enqueue(...steps: FakeStep[]): void;
  /** used when the queue is empty; initial default: text "Hello from the fake server." */
  setDefault(step: FakeStep): void;
  /**
   * A context window in tokens (prompt size = chars/4 of system + messages + tools, as reported in usage): a model
   * call over it gets the API's real overflow 400 with the actual numbers; null turns the check off (default).
   */
  setContextWindow(tokens: number | null, style?: OverflowStyle): void;
  /** Prompt sizes (tokens, same count as the window check) of every model call, in order. */
  promptSizes: number[];
  /**
   * How compaction summary requests (system prompt marked "[context compaction]") are answered: they skip the
   * queue and the default. Initial: a short summary naming how many characters it summarised.
   */
  setSummary(step: FakeStep): void;
  /** also destroys stalled sockets */
  close(): Promise<void>;
}

/** An HTTP response that is not a success stream: status, headers and a ready-to-send body. */
export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Per-response identifiers, unique within one fake server. */
export interface TurnIds {
  seq: number;
  requestId: string;
  messageId: string;
  toolCallId(index: number): string;
}

/** What each wire format (Anthropic Messages, OpenAI Chat) plugs into the shared server. */
export interface ApiAdapter {
  api: 'anthropic' | 'openai';
  /** Path the SDK base URL adds, e.g. '' for anthropic, '/v1' for openai. */
  basePath: string;
  requestIdHeader: string;
  /** The model-call endpoint. */
  isModelCall(method: string, path: string): boolean;
  /** Side endpoints (count_tokens, models). Returns null when the path is not one of them. */
  sideEndpoint(method: string, path: string, req: RecordedRequest): HttpReply | null;
  /** The API key the request carries, or null. */
  apiKey(req: RecordedRequest): string | null;
  /** Fully framed SSE events (each ends with a blank line) for a successful turn, terminator included. */
  streamFrames(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): string[];
  /** Non-streaming JSON response body. */
  jsonBody(turn: FakeTurn, req: RecordedRequest, ids: TurnIds): unknown;
  /** The in-stream error event (`req`: the request, for adapters that serve more than one endpoint). */
  streamErrorFrame(fault: Extract<FakeFault, { kind: 'stream_error' }>, req?: RecordedRequest): string;
  /** An HTTP error reply for an HTTP-level fault (a missing key is answered as the 'auth' fault). */
  httpError(fault: HttpFault, req: RecordedRequest | null, ids: TurnIds): HttpReply;
  /** An error reply in this API's body shape with the given status, error type and message. */
  plainError(status: number, type: string, message: string, ids: TurnIds): HttpReply;
  /** The API's real "prompt too long" 400 for a prompt of `tokens` in a window of `window`. */
  overflowReply?(tokens: number, window: number, ids: TurnIds): HttpReply;
}

export type HttpFault = Extract<
  FakeFault,
  {
    kind:
      | 'http'
      | 'rate_limit'
      | 'overloaded'
      | 'server_error'
      | 'unavailable_html'
      | 'auth'
      | 'billing'
      | 'context_overflow'
      | 'not_found';
  }
>;
