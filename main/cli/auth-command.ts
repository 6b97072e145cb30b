/** `agentdesk auth add|list|remove`: API-key profiles in the OS keychain (keys never printed unmasked). */
import { join, resolve } from 'node:path';
import { loadConfig } from '../engine/config/load.js';
import { providerNames } from '../engine/models.js';
import { openKeychain, maskSecret, type SecretStore } from '../auth/secrets.js';
import { profilesFor } from '../auth/profiles.js';
import { AuthPool } from '../auth/pool.js';
import { AUTH_STATE_FILE, AuthStateStore } from '../auth/state-store.js';
import type { ProfileStatus } from '../../preload/contract.js';
import type { AuthArgs } from './args.js';
import { homeFrom } from './home.js';
import { prepareHome } from './home-check.js';
import { keychainFix } from '../../preload/messages/keychain.js';
import type { Io } from './agent-command.js';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from './usage-error.js';

export async function runAuthCommand(
  args: AuthArgs,
  io: Io & { readStdin: () => Promise<string> },
  open: () => Promise<SecretStore> = openKeychain,
): Promise<number> {
  const { home: homeArg, label } = homeFrom(args.home, io.env);
  const home = await prepareHome(resolve(io.cwd, homeArg), label);
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

  // list: environment profiles always; keychain profiles when a keychain is reachable; each with its E6 state.
  let keychainIds: string[] = [];
  try {
    keychainIds = (await (await open()).list()).sort();
  } catch (err) {
    // D5: say plainly that there is no keychain, why, and how to fix it (env profiles still work).
    const message = (err as Error).message;
    io.err(`agentdesk: ${message}. ${keychainFix(message, process.platform, 'npx agentdesk …')}\n`);
  }
  const pool = new AuthPool({ config, env: io.env, openSecrets: open, state: new AuthStateStore(join(home, AUTH_STATE_FILE)), now: Date.now });
  const statuses = await pool.status();
  const lines = statuses.map((p) => {
    const where = p.source === 'env' ? `env ${profilesFor(config, p.provider, io.env).find((x) => x.id === p.id)?.apiKeyEnv ?? ''}` : 'keychain';
    const key = p.masked ?? (p.source === 'env' ? '(not set)' : '(empty)');
    return `${p.id}\t${where}\t${key}\t${describeState(p)}`;
  });
  for (const id of keychainIds) if (!statuses.some((p) => p.id === id)) lines.push(`${id}\tkeychain\t(unknown provider)`);
  io.out(lines.length ? `${lines.join('\n')}\n` : 'No API-key profiles. Add one with: agentdesk auth add --provider anthropic --label default\n');
  return EXIT_OK;
}

/**
 * "ok", "cooling until 14:03:12 UTC (rate_limit) — last error: …", "disabled until …", "missing"; a key benched for
 * some models only: "ok (rate-limited on anthropic/claude-opus-4-1 until …)".
 */
export function describeState(p: ProfileStatus): string {
  const at = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  const until = p.cooldownUntil !== undefined ? ` until ${at(p.cooldownUntil)}` : '';
  let head = p.state === 'cooling' || p.state === 'disabled' ? `${p.state}${until} (${p.reason ?? 'error'})` : p.state;
  if (p.modelCooldowns?.length) head += ` (rate-limited on ${p.modelCooldowns.map((m) => `${m.model} until ${at(m.until)}`).join(', ')})`;
  return p.lastError && p.state !== 'missing' ? `${head} — last error: ${p.lastError}` : head;
}
