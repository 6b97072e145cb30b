/**
 * Which web permissions the app's page gets (D1): only `clipboard-sanitized-write` — what
 * `navigator.clipboard.writeText` needs for the Copy buttons — and only for the app's own page in the window's top
 * frame. Everything else (camera, microphone, notifications, geolocation, clipboard READ, HID/serial/USB, opening
 * external protocols …) is denied. Pure: the session handlers in window.ts call it.
 */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export interface PermissionAsker {
  /** Whether the asking frame is the top frame of its page. */
  isMainFrame: boolean;
  /** The URL the asking frame last loaded (Electron leaves it out for cross-origin subframes). */
  requestingUrl?: string | undefined;
}

export function permissionAllowed(permission: string, asker: PermissionAsker, isAppUrl: (url: string) => boolean): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && asker.isMainFrame && asker.requestingUrl !== undefined && isAppUrl(asker.requestingUrl);
}
