/** Bad flags, bad config, bad folder: exit status 2 with one line naming the problem. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT_OK = 0;
export const EXIT_RUN_FAILED = 1;
export const EXIT_USAGE = 2;

export const HELP = `Usage:
  agentdesk agent --message TEXT [--session KEY] [--home DIR] [--workspace DIR]
                  [--model PROVIDER/MODEL] [--thinking LEVEL] [--timeout SECONDS] [--json]
                  [--approve ask|auto|deny]   (commands and file changes: ask on the terminal, allow, or refuse)
  agentdesk agent --message /compact [--session KEY] ...
                  (summarises the older turns of the session now; long sessions also compact on their own)
  agentdesk auth add --provider NAME --label LABEL   (reads the key from stdin, stores it in the OS keychain)
  agentdesk auth list
  agentdesk auth remove ID
  agentdesk subagents list [--json]                 (subagents of every process using this home folder)
  agentdesk subagents abort ID
  agentdesk subagents steer ID --message TEXT
  agentdesk plugins list                            (plugins in <home>/plugins: enabled or not, hooks, errors)

Try it without any key:  agentdesk agent --model demo/agent --message "What is in this folder?"`;
