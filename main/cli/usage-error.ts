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
                  [--approve ask|auto|deny|unsandboxed] [--verbose] [--attach FILE]...
  agentdesk agent --message COMMAND [--session KEY] ...
                  commands answered by AgentDesk, never sent to the model: /stop (the session's running reply,
                  also in another process), /new, /reset, /compact (summarise older turns now), /model PROVIDER/MODEL,
                  /think LEVEL, /verbose on|off, /status
  agentdesk auth add --provider NAME --label LABEL   (reads the key from stdin, stores it in the OS keychain)
  agentdesk auth list
  agentdesk auth remove ID
  agentdesk subagents list [--json]                 (subagents of every process using this home folder)
  agentdesk subagents abort ID
  agentdesk subagents steer ID --message TEXT
  agentdesk plugins list                            (plugins in <home>/plugins: enabled or not, hooks, errors)
  agentdesk checkpoints list --session KEY [--json]  (the workspace as it was before each turn's first change)
  agentdesk checkpoints restore --session KEY --id ID [--conversation]
                                                    (files back to before that turn; --conversation: the chat too)
  agentdesk checkpoints undo --session KEY           (takes the last restore back)
  agentdesk usage [--json]                          (what model calls cost: total, today, this month; by chat,
                                                    day, model and key — compaction included; USD)
  agentdesk mcp list [--json]                       (MCP servers: transport, on/off, approval, known tools)
  agentdesk mcp add NAME -- COMMAND [ARGS…]         (a stdio server; or --url URL, --json ENTRY, --from FILE;
                    [--env K=V] [--header 'K: V'] [--secret-env NAME] [--approval ask|auto|deny] [--timeout-ms N])
  agentdesk mcp remove NAME
  agentdesk mcp test NAME                           (connects, lists the tools; exit 0 or 1 with one line)

agent options:
  -m, --message TEXT       what to ask (required)
  --session KEY            continue the session KEY (created if new; at most 200 characters). Without it every
                           run starts a new session "cli-<date>-<time>-<id>"; its key is printed on stderr.
  --home DIR               data folder: config.json, settings.json, sessions, state (or AGENTDESK_HOME)
  --workspace DIR          the folder the agent works in (default: agent.workspace in config.json, else the
                           current folder)
  --model PROVIDER/MODEL   e.g. anthropic/claude-sonnet-4-5, demo/agent (default: the session's model, else settings)
  --thinking LEVEL         off, minimal, low, medium or high
  --timeout SECONDS        run timeout, at most 604800 (default 600)
  --json                   one JSON event per line on stdout, then one result line
  --approve MODE           tool calls that need approval (commands, file changes): ask on the terminal, auto
                           (allow — but never a command without a sandbox, nor a protected path without asking),
                           deny, or unsandboxed (auto, and commands may run without a sandbox) (default:
                           agent.approvals.mode, else ask)
  --verbose                the reply also carries the reasoning and a line for each tool call
  --attach FILE            an image (PNG, JPEG, GIF, WebP) or text file sent with the message; repeatable

Exit status: 0 ok, 1 the run ended in error or timeout, 2 bad usage, bad config or a bad folder.

Try it without any key:  agentdesk agent --model demo/agent --message "What is in this folder?"`;
