/**
 * What the desktop app does differently per operating system (pure: no 'electron' import, so it is unit-tested
 * here for every platform, including the two this machine cannot run).
 */

/** electron-builder.json's appId: the AppUserModelID the Windows installer gives the app's shortcut. */
export const APP_ID = 'dev.agentdesk.app';

/** macOS apps stay running with no window (the dock icon reopens one); elsewhere closing the last window quits. */
export function quitsWhenAllWindowsClosed(platform: NodeJS.Platform): boolean {
  return platform !== 'darwin';
}

/**
 * The spellchecker only where it is local: macOS uses the OS spellchecker; on Windows and Linux Electron uses
 * Hunspell dictionaries it downloads from Google's CDN (Electron docs, "SpellChecker") — no remote requests.
 */
export function spellcheckEnabled(platform: NodeJS.Platform): boolean {
  return platform === 'darwin';
}

/**
 * Windows: the AppUserModelID that groups the app's windows and notifications under its Start-menu shortcut — the
 * installer's (APP_ID) when packaged; in development the Electron executable's path, which is what Windows
 * associates with an unpackaged run. Undefined elsewhere (the method exists on Windows only).
 */
export function appUserModelId(platform: NodeJS.Platform, isPackaged: boolean, execPath: string): string | undefined {
  if (platform !== 'win32') return undefined;
  return isPackaged ? APP_ID : execPath;
}
