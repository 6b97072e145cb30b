/** The environment given to `exec` commands: the app's own, minus anything that looks like a secret. */

/** Variable names that look like credentials. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** Provider SDK configuration (base URLs, org ids…), dropped whatever the name. */
const PROVIDER_PREFIX = /^(ANTHROPIC|OPENAI)_/i;

/** Set for every command so nothing waits on a pager or a credential prompt (stdin is closed anyway). */
const NON_INTERACTIVE: Record<string, string> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
};

export function isScrubbedName(name: string): boolean {
  return SECRET_NAME.test(name) || PROVIDER_PREFIX.test(name);
}

export function scrubEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isScrubbedName(name)) continue;
    out[name] = value;
  }
  return { ...out, ...NON_INTERACTIVE };
}
