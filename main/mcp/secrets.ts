/**
 * X1: secrets of MCP servers in the OS keychain — `secretEnv` / `secretHeaders` values and OAuth tokens — under
 * their own keychain service ("AgentDesk MCP"), so they never mix with API-key profiles. Accounts:
 * `<server>:env:<NAME>`, `<server>:header:<Name>`, `<server>:oauth`. The keychain is opened only when a server
 * has such a secret.
 */
import type { SecretStore } from '../auth/secrets.js';
import type { McpSecretSource } from './manager.js';

export const MCP_KEYCHAIN_SERVICE = 'AgentDesk MCP';

export const secretAccount = (server: string, kind: 'env' | 'header', name: string): string => `${server}:${kind}:${name}`;
export const oauthAccount = (server: string): string => `${server}:oauth`;

export function keychainSecretSource(open: () => Promise<SecretStore>): McpSecretSource {
  return {
    async values(server, kind, names) {
      if (names.length === 0) return {};
      const store = await open();
      const out: Record<string, string> = {};
      for (const name of names) {
        const v = await store.get(secretAccount(server, kind, name));
        if (v) out[name] = v;
      }
      return out;
    },
  };
}

/** Removes every keychain entry of `server` (it was removed). */
export async function forgetServerSecrets(store: SecretStore, server: string): Promise<void> {
  for (const id of await store.list()) if (id.startsWith(`${server}:`)) await store.delete(id);
}
