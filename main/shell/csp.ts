/**
 * The Content-Security-Policy of the AgentDesk UI — one definition for the Electron window and the web transport.
 * Pure (no 'electron' import) so the plain-Node web entry can share it.
 * No remote content of any kind: scripts, styles, fonts and images come from the app itself.
 */
export function contentSecurityPolicy(connectSrc: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connectSrc].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}
