/**
 * A keychain opened once for the gateway's lifetime: every caller gets the same promise; a failed open is tried again
 * on the next call (the person may have unlocked the keychain meanwhile). `opened()` is the store if it is open or
 * being opened — never opening it (exec's scrubbing reads the keychain's keys only when it is open anyway).
 */
import type { SecretStore } from '../auth/secrets.js';

export interface OpenOnce {
  (): Promise<SecretStore>;
  opened(): Promise<SecretStore> | undefined;
}

export function openOnce(open: () => Promise<SecretStore>): OpenOnce {
  let current: Promise<SecretStore> | undefined;
  const get = (() =>
    (current ??= open().catch((err: unknown) => {
      current = undefined;
      throw err;
    }))) as OpenOnce;
  get.opened = () => current;
  return get;
}
