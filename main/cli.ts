/**
 * Headless command line on the same gateway as the app (SPEC "The headless command line").
 * Exit status: 0 ok, 1 a run that ended in error or timeout, 2 bad usage or bad config (one line naming the problem).
 */
import { parseAgentArgs, parseAuthArgs, parsePluginsArgs, parseSubagentsArgs } from './cli/args.js';
import { runAgentCommand } from './cli/agent-command.js';
import { runAuthCommand } from './cli/auth-command.js';
import { runSubagentsCommand } from './cli/subagents-command.js';
import { runPluginsCommand } from './cli/plugins-command.js';
import { parseCheckpointsArgs, runCheckpointsCommand } from './cli/checkpoints-command.js';
import { runMcpCommand } from './cli/mcp-command.js';
import { parseUsageArgs, runUsageCommand } from './cli/usage-command.js';
import { readSecret } from './cli/read-secret.js';
import { parseMcpArgs } from './cli/mcp-args.js';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, HELP, UsageError } from './cli/usage-error.js';
import { describeFsError } from './errors/fs-errors.js';
import { keychainFix } from '../preload/messages/keychain.js';
import pkg from '../package.json';
import { setCheckpointWorkerScript } from './checkpoints/prefetch.js';

// X2: the checkpoint worker is its own bundle entry, beside this one (out/main/checkpoint-worker.js).
setCheckpointWorkerScript(new URL('./checkpoint-worker.js', import.meta.url));

/** `auth add`'s key: piped, or typed/pasted at a terminal without echo (read-secret.ts). */
const readKey = (): Promise<string> =>
  readSecret(process.stdin, (s) => void process.stderr.write(s), 'Paste the API key (it is not shown), then press Enter: ').catch((err: Error) => {
    if (err.name === 'CancelledError') throw new UsageError('cancelled: no key stored');
    throw err;
  });

/** `mcp add`'s secret values, one per line: piped, or typed at a terminal without echo. */
const readSecretLines = (): Promise<string> =>
  readSecret(process.stdin, (s) => void process.stderr.write(s), 'Paste the secret values, one per line (they are not shown), then press Ctrl-D: ', true).catch(
    (err: Error) => {
      if (err.name === 'CancelledError') throw new UsageError('cancelled: nothing stored');
      throw err;
    },
  );

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const io = {
    out: (s: string) => void process.stdout.write(s),
    err: (s: string) => void process.stderr.write(s),
    env: process.env,
    cwd: process.cwd(),
  };
  try {
    if ((command === 'agent' || command === 'auth') && (rest.includes('--help') || rest.includes('-h'))) {
      io.out(`${HELP}\n`);
      return EXIT_OK;
    }
    if (command === 'agent') return await runAgentCommand(parseAgentArgs(rest), io);
    if (command === 'auth') return await runAuthCommand(parseAuthArgs(rest), { ...io, readStdin: readKey });
    if (command === 'subagents') return await runSubagentsCommand(parseSubagentsArgs(rest), io);
    if (command === 'plugins') return await runPluginsCommand(parsePluginsArgs(rest), io);
    if (command === 'checkpoints') return await runCheckpointsCommand(parseCheckpointsArgs(rest), io);
    if (command === 'usage') return await runUsageCommand(parseUsageArgs(rest), io);
    if (command === 'mcp') return await runMcpCommand(parseMcpArgs(rest), { ...io, readStdin: readSecretLines });
    if (command === '--version' || command === '-v') {
      io.out(`${pkg.version}\n`);
      return EXIT_OK;
    }
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      (command ? io.out : io.err)(`${HELP}\n`);
      return command ? EXIT_OK : EXIT_USAGE;
    }
    throw new UsageError(`unknown command "${command}" (try --help)`);
  } catch (err) {
    const e = err as Error;
    if (e instanceof UsageError || e?.name === 'ConfigError' || e?.name === 'SettingsError') {
      io.err(`agentdesk: ${e.message.split('\n')[0]}\n`);
      return EXIT_USAGE;
    }
    const errno = (e as NodeJS.ErrnoException)?.code;
    if (errno && /^E[A-Z]+$/.test(errno)) {
      const path = (e as NodeJS.ErrnoException).path;
      io.err(`agentdesk: ${describeFsError(e)}${path ? `: ${path}` : ''}\n`);
      return EXIT_USAGE;
    }
    const line = String(e?.message ?? err).split('\n')[0]!;
    // D5: no keychain → why and how to fix it, on the same line.
    const fix = e?.name === 'KeychainUnavailableError' ? `${line.endsWith('.') ? '' : '.'} ${keychainFix(line, process.platform, 'npx agentdesk …')}` : '';
    io.err(`agentdesk: ${line}${fix}\n`);
    return EXIT_RUN_FAILED;
  }
}

// Ctrl-C / kill: exit through process.exit so the exit handlers kill every command this run started.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

void main(process.argv.slice(2)).then((code) => {
  // Flush stdout before exiting; lingering sockets (a stalled provider) must not keep the process alive.
  process.stdout.write('', () => process.exit(code));
});
