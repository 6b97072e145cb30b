/**
 * The environment given to `exec` commands: the app's own minus anything that could hand a child a credential —
 * names that look like secrets, provider SDK settings, the keychain/agent sockets, the names configured as
 * `apiKeyEnv`, and every variable whose VALUE contains a configured key (whatever its name: `KEY=…`, a URL with the
 * key in it, a JSON blob).
 */

/** Variable names that look like credentials (API_KEY, GITHUB_TOKEN, GH_PAT, NPM_AUTH, BASIC_AUTH_USER…). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|(^|_)PAT($|_)|(^|_)AUTH($|_)/i;
/** Provider SDK configuration (base URLs, org ids…), dropped whatever the name. */
const PROVIDER_PREFIX = /^(ANTHROPIC|OPENAI|AGENTDESK)_/i;
/** Ways into the person's keychain or agents: the D-Bus session (Secret Service), keyrings, ssh/gpg agents. */
const KEYCHAIN_NAMES = /^(DBUS_SESSION_BUS_ADDRESS|GNOME_KEYRING_\w+|KWALLET\w*|SSH_AUTH_SOCK|SSH_AGENT_PID|GPG_AGENT_INFO)$/;

/** Set for every command so nothing waits on a pager or a credential prompt (stdin is closed anyway). */
const NON_INTERACTIVE: Record<string, string> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
};

export interface ScrubOptions {
  /** Extra names to drop (the `apiKeyEnv` names in config). */
  names?: readonly string[];
  /** Secret values: any variable whose value contains one of these is dropped. */
  values?: readonly string[];
}

export function isScrubbedName(name: string, extra: readonly string[] = []): boolean {
  return SECRET_NAME.test(name) || PROVIDER_PREFIX.test(name) || KEYCHAIN_NAMES.test(name) || extra.includes(name);
}

export function scrubEnv(env: NodeJS.ProcessEnv, opts: ScrubOptions = {}): Record<string, string> {
  const values = [...new Set((opts.values ?? []).map((v) => v.trim()).filter((v) => v.length >= 8))];
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isScrubbedName(name, opts.names) || values.some((v) => value.includes(v))) continue;
    out[name] = value;
  }
  return { ...out, ...NON_INTERACTIVE };
}
