/**
 * The Content-Security-Policy of the AgentDesk UI — one definition for the Electron window and the web transport,
 * delivered as a response header by both, and as a <meta> in the built index.html (electron.vite.config.ts): for a
 * file: page the meta element is the documented form. Pure (no 'electron' import) so the plain-Node web entry and
 * the build config can share it. No remote content of any kind: scripts, styles, fonts and images come from the
 * app itself.
 */
export interface CspOptions {
  /** Extra connect-src sources, e.g. the loopback WebSocket of `npm run web`. */
  connectSrc?: readonly string[];
  /** electron-vite dev server only: its React-refresh preamble is an inline script and HMR uses a WebSocket. */
  devServer?: boolean;
  /**
   * For a <meta http-equiv> element: without frame-ancestors, which a meta policy may not carry (browsers ignore it
   * there, with a warning); the header keeps it. `connect-src 'self'` covers `npm run web`'s same-origin WebSocket.
   */
  meta?: boolean;
}

export function contentSecurityPolicy(opts: CspOptions = {}): string {
  const dev = opts.devServer === true;
  const connect = ["'self'", ...(opts.connectSrc ?? []), ...(dev ? ['ws://localhost:*', 'ws://127.0.0.1:*'] : [])];
  return [
    "default-src 'none'",
    dev ? "script-src 'self' 'unsafe-inline'" : "script-src 'self'",
    dev ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    ...(opts.meta ? [] : ["frame-ancestors 'none'"]),
    "object-src 'none'",
  ].join('; ');
}
