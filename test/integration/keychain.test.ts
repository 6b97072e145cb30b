/**
 * The OS keychain wrapper against the real keytar module.
 *
 * Real round trips need a reachable Secret Service: run under
 *   XDG_DATA_HOME=$(mktemp -d) dbus-run-session -- bash -c \
 *     'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; npx vitest run test/integration/keychain.test.ts'
 * Without DBUS_SESSION_BUS_ADDRESS those cases are skipped (with a printed reason). The failure cases always run,
 * in child processes whose environment has no usable D-Bus session.
 */
import { execFileSync, execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  KEYCHAIN_SERVICE,
  KeychainUnavailableError,
  REASON_LOCKED,
  REASON_NO_DBUS,
  REASON_NO_MODULE,
  REASON_NO_SECRET_SERVICE,
  describeKeychainFailure,
  maskSecret,
  openKeychain,
  type KeytarLike,
} from '../../main/auth/secrets.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SECRETS_URL = pathToFileURL(join(ROOT, 'main/auth/secrets.ts')).href;
const TEST_SERVICE = `${KEYCHAIN_SERVICE}-test`;

/** Runs openKeychain() in a fresh node (tsx) with the given environment; returns what it threw. */
function openInChild(
  env: NodeJS.ProcessEnv,
  opts: object = {},
  wrapper: string[] = [],
): Promise<{ ok: boolean; name?: string; message?: string; stderr: string }> {
  const code = `
    const { openKeychain } = await import(${JSON.stringify(SECRETS_URL)});
    try { await openKeychain(${JSON.stringify(opts)}); console.log(JSON.stringify({ ok: true })); }
    catch (e) { console.log(JSON.stringify({ ok: false, name: e.name, message: e.message })); }`;
  const args = ['--import', 'tsx', '--input-type=module', '-e', code];
  const [cmd, cmdArgs] = wrapper.length ? [wrapper[0]!, [...wrapper.slice(1), process.execPath, ...args]] : [process.execPath, args];
  return new Promise((done, fail) => {
    execFile(cmd, cmdArgs, { cwd: ROOT, env, timeout: 30_000 }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        done({ ...JSON.parse(line), stderr });
      } catch {
        fail(new Error(`child produced no result (${err?.message ?? 'exit 0'}): ${stdout}\n${stderr}`));
      }
    });
  });
}

/** The current environment without any way to reach a session bus or a display. */
function noBusEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR']) delete env[k];
  return { ...env, ...extra };
}

const which = (bin: string): boolean => {
  try {
    execFileSync('which', [bin], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('keychain failures (always run)', () => {
  it.concurrent('a bus address that leads nowhere → plain "no D-Bus session" message', async () => {
    const r = await openInChild(noBusEnv({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }));
    expect(r).toMatchObject({
      ok: false,
      name: 'KeychainUnavailableError',
      message: `No OS keychain is available: ${REASON_NO_DBUS}`,
    });
  });

  it.concurrent('no bus address and no DISPLAY (keytar: "Cannot autolaunch D-Bus without X11 $DISPLAY") → same message', async () => {
    const r = await openInChild(noBusEnv());
    expect(r).toMatchObject({ ok: false, name: 'KeychainUnavailableError', message: `No OS keychain is available: ${REASON_NO_DBUS}` });
  });

  const canRunBus = which('dbus-run-session') && which('gnome-keyring-daemon');
  it.skipIf(!canRunBus)(
    'a Secret Service with no unlocked keyring passes the read probe but fails verifyWrite, plainly',
    async () => {
      const dataHome = mkdtempSync(join(tmpdir(), 'agentdesk-keyring-'));
      try {
        const env = noBusEnv({ XDG_DATA_HOME: dataHome });
        const read = await openInChild(env, { service: TEST_SERVICE }, ['dbus-run-session', '--']);
        expect(read.ok).toBe(true);
        const write = await openInChild(env, { service: TEST_SERVICE, verifyWrite: true }, ['dbus-run-session', '--']);
        expect(write).toMatchObject({
          ok: false,
          name: 'KeychainUnavailableError',
          message: `No OS keychain is available: ${REASON_LOCKED}`,
        });
      } finally {
        rmSync(dataHome, { recursive: true, force: true });
      }
    },
  );

  it('keytar that cannot be loaded → "the keytar native module could not be loaded"', async () => {
    const err = await openKeychain({
      loadKeytar: () => Promise.reject(new Error('libsecret-1.so.0: cannot open shared object file')),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeychainUnavailableError);
    expect(err).toMatchObject({
      name: 'KeychainUnavailableError',
      message: `No OS keychain is available: ${REASON_NO_MODULE}`,
      reason: REASON_NO_MODULE,
    });
    await expect(openKeychain({ loadKeytar: async () => ({ default: {} }) })).rejects.toThrow(REASON_NO_MODULE);
  });

  it('accepts keytar as a default export or as named exports', async () => {
    const calls: string[] = [];
    const kt: KeytarLike = {
      getPassword: async () => null,
      setPassword: async () => undefined,
      deletePassword: async () => false,
      findCredentials: async (service) => {
        calls.push(service);
        return [{ account: 'b', password: 'x' }, { account: '__agentdesk_probe__', password: 'probe' }, { account: 'a', password: 'y' }];
      },
    };
    const viaDefault = await openKeychain({ loadKeytar: async () => ({ default: kt }) });
    const viaNamed = await openKeychain({ loadKeytar: async () => ({ ...kt }), service: 'S' });
    expect(await viaDefault.list()).toEqual(['a', 'b']);
    expect(await viaNamed.list()).toEqual(['a', 'b']);
    expect(calls).toEqual([KEYCHAIN_SERVICE, 'S', KEYCHAIN_SERVICE, 'S']); // probe, probe, list, list
  });

  it('failures after opening are KeychainUnavailableErrors too, and never carry the secret', async () => {
    const secret = 'sk-ant-api03-SECRETSECRETSECRET-1234';
    const kt: KeytarLike = {
      getPassword: () => Promise.reject(new Error('The name org.freedesktop.secrets was not provided by any .service files')),
      setPassword: (_s, _a, p) => Promise.reject(new Error(`weird backend echoing ${p}`)),
      deletePassword: () => Promise.reject(new Error('Cannot create an item in a locked collection')),
      findCredentials: async () => [],
    };
    const store = await openKeychain({ loadKeytar: async () => kt });
    await expect(store.get('p1')).rejects.toMatchObject({
      name: 'KeychainUnavailableError',
      message: `No OS keychain is available: ${REASON_NO_SECRET_SERVICE}`,
    });
    const setErr = (await store.set('p1', secret).catch((e: unknown) => e)) as Error;
    expect(setErr.name).toBe('KeychainUnavailableError');
    expect(setErr.message).not.toContain(secret);
    expect(setErr.message).toContain('sk-ant…1234');
    await expect(store.delete('p1')).rejects.toThrow(REASON_LOCKED);
    await expect(store.get('  ')).rejects.toBeInstanceOf(TypeError);
  });

  it.each<[string, string]>([
    ['Cannot autolaunch D-Bus without X11 $DISPLAY', REASON_NO_DBUS],
    ['Could not connect: No such file or directory', REASON_NO_DBUS],
    ['The name org.freedesktop.secrets was not provided by any .service files', REASON_NO_SECRET_SERVICE],
    ['Object does not exist at path “/org/freedesktop/secrets/collection/login”', REASON_LOCKED],
    ['Cannot create an item in a locked collection', REASON_LOCKED],
    ['Something else\nwith a second line', 'the keychain reported: Something else'],
    ['', 'the keychain reported an unknown error'],
  ])('describeKeychainFailure(%j)', (message, reason) => {
    expect(describeKeychainFailure(new Error(message))).toBe(reason);
  });

  it.each<[string, string]>([
    ['sk-ant-api03-abcdefghijklmnop-1234', 'sk-ant…1234'],
    ['sk-proj-0123456789abcdefWXYZ', 'sk-pro…WXYZ'],
    ['0123456789abcdef', '012345…cdef'],
    ['short-key', '••••'],
    ['', '••••'],
  ])('maskSecret(%j) → %j', (secret, masked) => {
    expect(maskSecret(secret)).toBe(masked);
  });
});

const bus = process.env.DBUS_SESSION_BUS_ADDRESS;
if (!bus) {
  console.log(
    '[keychain.test] skipping real keychain round trips: DBUS_SESSION_BUS_ADDRESS is not set ' +
      '(run under dbus-run-session with an unlocked gnome-keyring, see the header of this file)',
  );
}

describe.skipIf(!bus)('real OS keychain round trip', () => {
  const id = `test-${randomUUID()}`;
  const secret = `sk-test-${randomUUID()}-ünïcødé-🔑`;

  afterAll(async () => {
    const store = await openKeychain({ service: TEST_SERVICE }).catch(() => null);
    await store?.delete(id).catch(() => undefined);
  });

  it('set / get / list / delete a random id', async () => {
    const store = await openKeychain({ service: TEST_SERVICE, verifyWrite: true });
    expect(await store.get(id)).toBeNull();
    await store.set(id, secret);
    expect(await store.get(id)).toBe(secret);
    expect(await store.list()).toContain(id);
    await store.set(id, `${secret}-2`);
    expect(await store.get(id)).toBe(`${secret}-2`);
    expect(await store.delete(id)).toBe(true);
    expect(await store.get(id)).toBeNull();
    expect(await store.delete(id)).toBe(false);
    expect(await store.list()).not.toContain(id);
    expect(await store.list()).not.toContain('__agentdesk_probe__');
  });

  it('a second store on the same service sees what the first wrote', async () => {
    const a = await openKeychain({ service: TEST_SERVICE });
    const b = await openKeychain({ service: TEST_SERVICE });
    await a.set(id, secret);
    expect(await b.get(id)).toBe(secret);
    expect(await b.delete(id)).toBe(true);
  });
});
