/**
 * D4/D5: API keys live only in the OS keychain (macOS Keychain, Windows Credential Manager, Linux Secret Service)
 * through keytar — service "AgentDesk", account = auth profile id.
 *
 * keytar is a native module, loaded lazily so that the app (and the CLI) still start when it is missing. Every
 * keychain failure becomes a KeychainUnavailableError with a plain message, "No OS keychain is available: <reason>",
 * for the settings screen (D5: say so plainly; never fall back to clear text on our own).
 *
 * Nothing here logs, and secrets never appear in error messages.
 */

export const KEYCHAIN_SERVICE = 'AgentDesk';
/** Account used by `verifyWrite` to check that the keychain accepts writes; hidden from `list()`. */
const PROBE_ACCOUNT = '__agentdesk_probe__';

export class KeychainUnavailableError extends Error {
  override readonly name = 'KeychainUnavailableError';
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super(noKeychainText(reason), options);
    this.reason = reason;
  }
}

export interface SecretStore {
  get(id: string): Promise<string | null>;
  set(id: string, secret: string): Promise<void>;
  /** True when something was deleted. */
  delete(id: string): Promise<boolean>;
  /** Profile ids that have a stored secret (sorted). */
  list(): Promise<string[]>;
}

/** The part of keytar we use. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

export interface OpenKeychainOptions {
  /** Keychain service name; tests use their own so they never touch real profiles. */
  service?: string;
  /**
   * Also write and delete a probe entry. A Secret Service can answer reads while having no unlocked default
   * keyring, in which case only a write fails ("Object does not exist at path …/collection/login").
   */
  verifyWrite?: boolean;
  /** How keytar is loaded (default: `import('keytar')`). */
  loadKeytar?: () => Promise<unknown>;
}

export { REASON_NO_MODULE, REASON_NO_DBUS, REASON_NO_SECRET_SERVICE, REASON_LOCKED } from '../../preload/messages/keychain.js';
import { REASON_NO_MODULE, REASON_NO_DBUS, REASON_NO_SECRET_SERVICE, REASON_LOCKED, noKeychainText } from '../../preload/messages/keychain.js';

const KNOWN_REASONS: ReadonlyArray<[RegExp, string]> = [
  [/cannot autolaunch d-bus|unable to autolaunch|could not connect|failed to connect to socket|dbus_session_bus_address/i, REASON_NO_DBUS],
  [/org\.freedesktop\.secrets was not provided|serviceunknown/i, REASON_NO_SECRET_SERVICE],
  [/\/collection\/login|locked collection|no such secret collection|object does not exist at path|is locked/i, REASON_LOCKED],
];

const errorMessage = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : String(err);

/** Plain reason for a keychain failure (the text after "No OS keychain is available: "). */
export function describeKeychainFailure(err: unknown): string {
  const message = errorMessage(err);
  for (const [pattern, reason] of KNOWN_REASONS) if (pattern.test(message)) return reason;
  const firstLine = message.split('\n', 1)[0]!.trim().slice(0, 200);
  return firstLine === '' ? 'the keychain reported an unknown error' : `the keychain reported: ${firstLine}`;
}

/** Wraps a failure; `secret` (when given) is scrubbed from the reason, belt and braces. */
function unavailable(err: unknown, secret?: string): KeychainUnavailableError {
  if (err instanceof KeychainUnavailableError) return err;
  let reason = describeKeychainFailure(err);
  if (secret && secret.length >= 4 && reason.includes(secret)) reason = reason.split(secret).join(maskSecret(secret));
  return new KeychainUnavailableError(reason, { cause: err });
}

const hasKeytarShape = (m: unknown): m is KeytarLike =>
  typeof m === 'object' &&
  m !== null &&
  ['getPassword', 'setPassword', 'deletePassword', 'findCredentials'].every(
    (k) => typeof (m as Record<string, unknown>)[k] === 'function',
  );

/** keytar is CommonJS: under ESM its functions sit on `default`; a bundler may expose them as named exports. */
function pickKeytar(mod: unknown): KeytarLike | null {
  const def = typeof mod === 'object' && mod !== null ? (mod as { default?: unknown }).default : undefined;
  if (hasKeytarShape(def)) return def;
  if (hasKeytarShape(mod)) return mod;
  return null;
}

const checkId = (id: string): void => {
  if (typeof id !== 'string' || id.trim() === '') throw new TypeError('secret id must be a non-empty string');
};

export async function openKeychain(opts: OpenKeychainOptions = {}): Promise<SecretStore> {
  const service = opts.service ?? KEYCHAIN_SERVICE;
  let keytar: KeytarLike | null;
  try {
    keytar = pickKeytar(await (opts.loadKeytar ?? (() => import('keytar')))());
  } catch (err) {
    throw new KeychainUnavailableError(REASON_NO_MODULE, { cause: err });
  }
  if (!keytar) throw new KeychainUnavailableError(REASON_NO_MODULE);
  const kt = keytar;

  try {
    await kt.findCredentials(service);
    if (opts.verifyWrite) {
      await kt.setPassword(service, PROBE_ACCOUNT, 'probe');
      await kt.deletePassword(service, PROBE_ACCOUNT);
    }
  } catch (err) {
    throw unavailable(err);
  }

  return {
    async get(id) {
      checkId(id);
      try {
        return await kt.getPassword(service, id);
      } catch (err) {
        throw unavailable(err);
      }
    },
    async set(id, secret) {
      checkId(id);
      if (typeof secret !== 'string' || secret === '') throw new TypeError('secret must be a non-empty string');
      try {
        await kt.setPassword(service, id, secret);
      } catch (err) {
        throw unavailable(err, secret);
      }
    },
    async delete(id) {
      checkId(id);
      try {
        return await kt.deletePassword(service, id);
      } catch (err) {
        throw unavailable(err);
      }
    },
    async list() {
      try {
        const creds = await kt.findCredentials(service);
        return creds
          .map((c) => c.account)
          .filter((a) => a !== PROBE_ACCOUNT)
          .sort();
      } catch (err) {
        throw unavailable(err);
      }
    },
  };
}

/** For display: first 6 and last 4 characters (`sk-ant…1234`); short secrets show only `••••`. */
export function maskSecret(secret: string): string {
  if (secret.length < 16) return '••••';
  return `${secret.slice(0, 6)}…${secret.slice(-4)}`;
}
