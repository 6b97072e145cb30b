/**
 * The transport-agnostic gateway surface. Electron IPC (main/shell), the loopback WebSocket transport
 * (main/gateway/ws-server.ts) and the CLI all talk to an object of this shape.
 */
import type { AgentEvent, MethodName, Methods } from '../../preload/contract.js';

export interface GatewayApi {
  /** Validates `params` (they come from an untrusted renderer or socket) and runs the method. Rejects with GatewayError. */
  request<M extends MethodName>(method: M, params: unknown): Promise<Methods[M][1]>;
  /** Subscribes to every run event; returns the unsubscribe function. */
  onEvent(listener: (event: AgentEvent) => void): () => void;
  /** Events a client that connects now should get first: the approval requests still waiting for an answer. */
  greeting?(): AgentEvent[];
}

export type GatewayErrorCode = 'bad_request' | 'unknown_method' | 'not_found' | 'internal';

/** An error a transport returns to its client as `{code, message}`. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
  ) {
    super(message);
  }
}
