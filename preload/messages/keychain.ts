/**
 * D5: how to fix "no keychain", one line per known reason (shown in the Settings banner and by the CLI). The fixes
 * are the ones that work: a bare `dbus-run-session` ends in "the keyring is locked" — a session without a desktop
 * needs gnome-keyring started and unlocked in it (the same password opens the same keyring next time).
 */

/** Why no keychain is reachable (main/auth/secrets.ts picks one from what keytar and D-Bus said). */
export const REASON_NO_MODULE = 'the keytar native module could not be loaded';
export const REASON_NO_DBUS = 'no D-Bus session (the keychain is reached over D-Bus)';
export const REASON_NO_SECRET_SERVICE = 'no Secret Service (install/start gnome-keyring or KeePassXC)';
export const REASON_LOCKED = "the keyring is locked or has no 'login' keyring yet";

/** "No OS keychain is available: <reason>" — the first half of every no-keychain line. */
export const noKeychainText = (reason: string): string => `No OS keychain is available: ${reason}`;

/** Runs `launch` in a D-Bus session of its own with gnome-keyring unlocked by a password typed at the prompt. */
export const headlessKeyringCommand = (launch: string): string =>
  `dbus-run-session -- bash -c 'read -rsp "Keyring password: " pw; echo; printf %s "$pw" | gnome-keyring-daemon --unlock --components=secrets >/dev/null; ${launch}'`;

/** `launch`: the command the fix starts (the web UI's by default; the CLI names its own). */
export function keychainFix(reason: string, platform: string, launch = 'npm run web'): string {
  const HEADLESS_KEYRING_COMMAND = headlessKeyringCommand(launch);
  if (reason.includes(REASON_NO_MODULE)) {
    return platform === 'linux'
      ? 'Install libsecret (Debian/Ubuntu: sudo apt install libsecret-1-dev, Fedora: sudo dnf install libsecret-devel), then run npm rebuild keytar.'
      : 'Reinstall AgentDesk (npm install) so the keytar module is built for this system.';
  }
  if (reason.includes(REASON_NO_DBUS)) {
    return `Start AgentDesk from a terminal of your desktop session. Without a desktop (SSH, a container), start it with a keyring of its own: ${HEADLESS_KEYRING_COMMAND}`;
  }
  if (reason.includes(REASON_NO_SECRET_SERVICE)) return 'Install and start a Secret Service: GNOME Keyring (gnome-keyring) or KeePassXC with its Secret Service enabled.';
  if (reason.includes(REASON_LOCKED)) {
    return `On a desktop, unlock the 'login' keyring in Passwords and Keys (Seahorse). Without a desktop, start AgentDesk with a keyring unlocked by a password you choose: ${HEADLESS_KEYRING_COMMAND}`;
  }
  return 'Check that your system keychain is running and unlocked, then try again. Meanwhile an environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY) works.';
}
