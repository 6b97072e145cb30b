/**
 * D2 a gateway request the app refused (a bad folder, a duplicate key name, an unknown method): what the person
 * reads is the gateway's own sentence — never its internal code ("bad_request:", "internal:") in front of it.
 */

/** The codes a transport sends with a refused request (main/gateway/types.ts GatewayErrorCode). */
export type RequestErrorCode = 'bad_request' | 'unknown_method' | 'not_found' | 'internal' | (string & {});

/** The text of a refused request as a person reads it. */
export function requestErrorText(code: RequestErrorCode, message: string): string {
  const text = message.trim();
  if (code === 'internal') return `Something went wrong in AgentDesk: ${text || 'no details'}. Try again; if it keeps happening, restart the app.`;
  if (code === 'unknown_method') return `This window and the app are different versions (${text}): reload the window.`;
  return text || 'The request was refused.';
}

/** An Error carrying the code apart from the text (the text is what a person reads). */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  constructor(
    readonly code: RequestErrorCode,
    message: string,
  ) {
    super(requestErrorText(code, message));
  }
}
