/** `agentdesk auth add|list|remove`: API-key profiles in the OS keychain (keys never printed unmasked). */
import { resolve } from 'node:path';
import { loadConfig } from '../engine/config/load.js';
import { providerNames } from '../engine/models.js';
import { openKeychain, maskSecret, type SecretStore } from '../auth/secrets.js';
import { profilesFor } from '../auth/profiles.js';
import type { AuthArgs } from './args.js';
import { defaultHome } from './home.js';
import type { Io } from './agent-command.js';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from './usage-error.js';

export async function runAuthCommand(
  args: AuthArgs,
  io: Io & { readStdin: () => Promise<string> },
  open: () => Promise<SecretStore> = openKeychain,
): Promise<number> {
  const home = resolve(io.cwd, args.home ?? defaultHome(io.env));
  const config = await loadConfig(home).catch((err: Error) => {
    throw new UsageError(err.message);
  });
  const providers = providerNames(config).filter((p) => p !== 'demo');

  if (args.action === 'add') {
    const provider = args.provider!;
    if (!providers.includes(provider)) {
      throw new UsageError(`unknown provider "${provider}" (known: ${providers.join(', ')})`);
    }
    const key = (await io.readStdin()).trim();
    if (!key) throw new UsageError('no key on stdin (pipe it in: echo "$KEY" | agentdesk auth add …)');
    if (/\s/.test(key)) throw new UsageError('the key on stdin contains whitespace; paste only the key');
    const store = await open();
    const id = `${provider}:${args.label}`;
    await store.set(id, key);
    io.out(`Stored ${id} (${maskSecret(key)}) in the OS keychain.\n`);
    return EXIT_OK;
  }

  if (args.action === 'remove') {
    const store = await open();
    const removed = await store.delete(args.id!);
    if (!removed) {
      io.err(`agentdesk: no keychain profile named ${args.id}\n`);
      return EXIT_RUN_FAILED;
    }
    io.out(`Removed ${args.id}.\n`);
    return EXIT_OK;
  }

  // list: environment profiles always; keychain profiles when a keychain is reachable.
  const lines: string[] = [];
  for (const provider of providers) {
    for (const p of profilesFor(config, provider, io.env)) {
      if (p.source === 'env' && p.apiKeyEnv) {
        const value = io.env[p.apiKeyEnv];
        lines.push(`${p.id}\tenv ${p.apiKeyEnv}\t${value ? maskSecret(value) : '(not set)'}`);
      }
    }
  }
  try {
    const store = await open();
    for (const id of (await store.list()).sort()) {
      const secret = await store.get(id);
      lines.push(`${id}\tkeychain\t${secret ? maskSecret(secret) : '(empty)'}`);
    }
  } catch (err) {
    io.err(`agentdesk: ${(err as Error).message}\n`);
  }
  io.out(lines.length ? `${lines.join('\n')}\n` : 'No API-key profiles. Add one with: agentdesk auth add --provider anthropic --label default\n');
  return EXIT_OK;
}
