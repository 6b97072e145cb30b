/** D5: how to fix "no keychain", one line per known reason (shown under the Settings banner and by the CLI). */
import { REASON_LOCKED, REASON_NO_DBUS, REASON_NO_MODULE, REASON_NO_SECRET_SERVICE } from '../auth/secrets.js';

export function keychainFix(reason: string, platform: NodeJS.Platform = process.platform): string {
  if (reason.includes(REASON_NO_MODULE)) {
    return platform === 'linux'
      ? 'Install libsecret (Debian/Ubuntu: sudo apt install libsecret-1-dev, Fedora: sudo dnf install libsecret-devel), then run npm rebuild keytar.'
      : 'Reinstall AgentDesk (npm install) so the keytar module is built for this system.';
  }
  if (reason.includes(REASON_NO_DBUS)) return 'Start AgentDesk from your desktop session (the keychain is reached over D-Bus), or run it under dbus-run-session.';
  if (reason.includes(REASON_NO_SECRET_SERVICE)) return 'Install and start a Secret Service: GNOME Keyring (gnome-keyring) or KeePassXC with its Secret Service enabled.';
  if (reason.includes(REASON_LOCKED)) return "Unlock (or create) your 'login' keyring, e.g. in Seahorse (Passwords and Keys), then try again.";
  return 'Check that your system keychain is running and unlocked, then try again. Meanwhile an environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY) works.';
}
