/**
 * D5: the encrypted fallback for keys when no OS keychain is reachable — only used after the person explicitly
 * chose it in Settings. Keys are encrypted with Electron's safeStorage (DPAPI on Windows, the Keychain-held key on
 * macOS, libsecret/kwallet or a fixed key on Linux — `getSelectedStorageBackend()` says which) and stored as base64
 * in `<userData>/encrypted-keys.json` (mode 0600). Never plain text: when safeStorage cannot encrypt, this store
 * refuses. Needs Electron: not exercised by the tests here (no Electron binary).
 */
import { safeStorage } from 'electron';
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretStore } from '../auth/secrets.js';

export const ENCRYPTED_KEYS_FILE = 'encrypted-keys.json';

export function safeStorageSupported(): boolean {
  try {
    if (!safeStorage.isEncryptionAvailable()) return false;
    // "basic_text" on Linux is a hard-coded key: that is obfuscation, not encryption — refuse it.
    return process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
  } catch {
    return false;
  }
}

export function openSafeStorageSecrets(userData: string): SecretStore {
  const file = join(userData, ENCRYPTED_KEYS_FILE);
  const read = (): Record<string, string> => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {});
  const write = (data: Record<string, string>) => {
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  };
  const check = () => {
    if (!safeStorageSupported()) throw new Error('No encryption is available from the operating system; the key was not stored.');
  };
  return {
    async get(id) {
      const b64 = read()[id];
      if (!b64) return null;
      check();
      return safeStorage.decryptString(Buffer.from(b64, 'base64'));
    },
    async set(id, secret) {
      check();
      write({ ...read(), [id]: safeStorage.encryptString(secret).toString('base64') });
    },
    async delete(id) {
      const data = read();
      if (!(id in data)) return false;
      delete data[id];
      write(data);
      return true;
    },
    async list() {
      return Object.keys(read()).sort();
    },
  };
}
