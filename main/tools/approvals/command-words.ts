/**
 * Reading a shell command just enough for the approval settings (X5). Not a shell: no expansion happens here, so
 * a command can always spell a program in a way this does not see (`a=r; ${a}m`, an alias, a script) — which is
 * why denyCommands is advisory (a speed bump that catches the plain and the lightly disguised forms: quotes,
 * backslashes, `env`, `command`, `exec`, `sudo`, `nice`, `timeout`, absolute paths, `$(…)`, backticks, `bash -c`)
 * and allowCommands only ever applies to plain sandboxed commands (policy.ts).
 */

/** Splits one simple command into words, honouring quotes and backslashes (no expansion). */
export function shellWords(segment: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "'") {
      const end = segment.indexOf("'", i + 1);
      cur += segment.slice(i + 1, end === -1 ? undefined : end);
      i = end === -1 ? segment.length : end;
      inWord = true;
    } else if (c === '"') {
      i++;
      for (; i < segment.length && segment[i] !== '"'; i++) {
        if (segment[i] === '\\' && i + 1 < segment.length && '"\\$`\n'.includes(segment[i + 1]!)) i++;
        cur += segment[i];
      }
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 < segment.length) cur += segment[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Programs that run their arguments as a command, with how many of their own option words take a value. */
const WRAPPERS: Readonly<Record<string, { valued?: readonly string[]; positional?: number }>> = {
  env: { valued: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'] },
  command: {},
  builtin: {},
  exec: { valued: ['-a'] },
  nohup: {},
  nice: { valued: ['-n', '--adjustment'] },
  ionice: { valued: ['-c', '-n', '-t'] },
  time: { valued: ['-f', '--format', '-o', '--output'] },
  sudo: { valued: ['-u', '--user', '-g', '--group', '-C', '-D', '-h', '-p', '-r', '-t', '-U'] },
  doas: { valued: ['-u', '-C'] },
  stdbuf: { valued: ['-i', '-o', '-e'] },
  timeout: { valued: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  xargs: { valued: ['-a', '-d', '-E', '-e', '-I', '-i', '-L', '-l', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs'] },
  setsid: {},
  chroot: { positional: 1 },
  flock: { valued: ['-w', '--timeout', '-E', '--conflict-exit-code'], positional: 1 },
};

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const basename = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** The program a simple command runs and its arguments, past assignments and wrapper programs. */
export function resolveProgram(words: readonly string[]): string[] {
  let rest = [...words];
  for (let guard = 0; guard < 16; guard++) {
    while (rest.length > 0 && ASSIGNMENT.test(rest[0]!)) rest.shift();
    if (rest.length === 0) return [];
    const name = basename(rest[0]!);
    const w = WRAPPERS[name];
    if (!w) return [name, ...rest.slice(1)];
    rest = rest.slice(1);
    // The wrapper's own options (and their values), then its positional arguments, then the command.
    // (env takes NAME=value words among its options.)
    while (rest.length > 0 && ((rest[0]!.startsWith('-') && rest[0] !== '--') || (name === 'env' && ASSIGNMENT.test(rest[0]!)))) {
      const opt = rest.shift()!;
      if (w.valued?.includes(opt)) rest.shift();
    }
    if (rest[0] === '--') rest.shift();
    rest = rest.slice(w.positional ?? 0);
  }
  return rest;
}

/** Every simple command of a command line: split at ; && || | & and newlines, with $(…), `…` and `sh -c '…'` opened. */
export function commandsIn(command: string, depth = 0): string[][] {
  if (depth > 4) return [];
  const out: string[][] = [];
  // Substitutions first: their contents are commands of their own.
  for (const inner of substitutions(command)) out.push(...commandsIn(inner, depth + 1));
  for (const seg of command.split(/&&|\|\||[;|\n&]/)) {
    const words = resolveProgram(shellWords(seg.trim().replace(/^[({!]\s*/, '')));
    if (words.length === 0) continue;
    out.push(words);
    const [prog, ...args] = words;
    if (['sh', 'bash', 'dash', 'zsh', 'ksh'].includes(prog!) && args.includes('-c')) {
      const script = args[args.indexOf('-c') + 1];
      if (script) out.push(...commandsIn(script, depth + 1));
    } else if (prog === 'eval') {
      out.push(...commandsIn(args.join(' '), depth + 1));
    }
  }
  return out;
}

/** The texts inside $(…) and `…` (outermost ones). */
function substitutions(command: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < command.length; i++) {
    if (command[i] === '$' && command[i + 1] === '(') {
      let d = 0;
      for (let j = i + 1; j < command.length; j++) {
        if (command[j] === '(') d++;
        else if (command[j] === ')' && --d === 0) {
          found.push(command.slice(i + 2, j));
          i = j;
          break;
        }
      }
    } else if (command[i] === '`') {
      const end = command.indexOf('`', i + 1);
      if (end === -1) break;
      found.push(command.slice(i + 1, end));
      i = end;
    }
  }
  return found;
}

/** True when `words` begins with the words of `prefix` (the program compared by its base name). */
export function startsWithWords(words: readonly string[], prefix: string): boolean {
  const p = resolveProgram(shellWords(prefix.trim()));
  if (p.length === 0 || p.length > words.length) return false;
  return p.every((w, i) => words[i] === w);
}

/**
 * Arguments that turn an allow-listed program into "run anything": an allowCommands prefix trusts the whole
 * program, so a command using one of these is asked about instead. Returns why, or undefined.
 */
export function escapeArgument(words: readonly string[]): string | undefined {
  const [prog, ...args] = words;
  const has = (...names: string[]) => args.find((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));
  const sub = args.find((a) => !a.startsWith('-'));
  switch (prog) {
    case 'git': {
      const opt = has(
        '-c', '--config-env', '--exec-path', '--git-dir', '--upload-pack', '--receive-pack', '--exec', '-x', '--ext-diff', '--extcmd', '--tool', '-t',
        '-O', '--open-files-in-pager',
      );
      if (opt) return `git ${opt.split('=')[0]} can make git run another program`;
      if (args.some((a) => /^-O./.test(a))) return 'git grep -O can make git run another program';
      const sub = gitSubcommand(args);
      if (sub && ['config', 'filter-branch', 'bisect', 'submodule', 'difftool', 'mergetool', 'daemon', 'instaweb', 'send-email', 'credential', 'hook', 'alias'].includes(sub)) {
        return `git ${sub} can change git's settings or run other programs`;
      }
      if (sub && ['clone', 'fetch', 'pull', 'ls-remote', 'archive'].includes(sub) && has('-u')) return `git ${sub} -u runs another program`;
      return undefined;
    }
    case 'find': {
      const opt = has('-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls');
      return opt ? `find ${opt} runs commands or changes files` : undefined;
    }
    case 'npx':
    case 'bunx':
    case 'pnpx':
      return `${prog} downloads and runs a package`;
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
      if (sub && ['exec', 'x', 'dlx', 'create', 'init'].includes(sub)) return `${prog} ${sub} downloads or runs a package`;
      return undefined;
    case 'sed':
      return args.some((a) => /(^|[^\\])(\/e\b|\/[gip0-9]*e\b|\be\s)|\/w\s/.test(a) || a === '-i' || a.startsWith('--in-place')) ? 'sed can run commands (e) or write files (w, -i)' : undefined;
    case 'awk':
    case 'gawk':
    case 'mawk':
      return args.some((a) => /system\s*\(|\|\s*"|"\s*\||getline/.test(a)) ? `${prog} can run commands (system, pipes)` : undefined;
    case 'tar': {
      const opt = has('--to-command', '--checkpoint-action', '-I', '--use-compress-program', '--info-script', '-F', '--new-volume-script');
      return opt ? `tar ${opt.split('=')[0]} runs another program` : undefined;
    }
    case 'rsync':
    case 'scp':
    case 'ssh': {
      const opt = has('-e', '--rsh', '-o', '-F', '--rsync-path', '-S');
      return opt ? `${prog} ${opt.split('=')[0]} can run another program` : undefined;
    }
    case 'zip':
      return has('-TT', '--unzip-command') ? 'zip -TT runs another program' : undefined;
    case 'rg':
      return has('--pre') ? 'rg --pre runs another program on every file' : undefined;
    case 'sort':
      return has('--compress-program') ? 'sort --compress-program runs another program' : undefined;
    case 'make':
      return has('-f', '--file', '--makefile', '-C', '--directory', '--eval') ? 'make with another makefile or --eval runs other commands' : undefined;
    default:
      return undefined;
  }
}

/** git's own options that take the next word as their value (`git -C dir config …`: the subcommand is `config`). */
const GIT_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds', '--attr-source']);

/** The git subcommand: the first word past git's own options and their values. */
function gitSubcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) return a;
    if (GIT_VALUED.has(a)) i++;
  }
  return undefined;
}
