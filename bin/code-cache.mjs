// The command line's start-up: loads the CommonJS build (out/main/cli.cjs and its chunks) with V8's code cache, the
// way Node 22's module.enableCompileCache does for every module (Node 20 has no such switch, and none for ES modules).
// The first run of a build compiles as usual and, at exit, saves what V8 compiled (the functions that ran, not only
// the top level); later runs skip most of the parsing and compiling. A cache that does not match its file (another
// build, another Node) is not used and is written again.
//
// Where: $XDG_CACHE_HOME/agentdesk/code-cache (default ~/.cache/…), a folder only its owner may write — a code cache is
// code, so never a shared one such as /tmp. AGENTDESK_CODE_CACHE=0 turns it off (each run compiles everything).
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

/** The cache folder for this environment, or undefined when turned off. */
export function codeCacheDir(env = process.env) {
  if (env.AGENTDESK_CODE_CACHE === '0') return undefined;
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(homedir(), '.cache');
  return path.join(base, 'agentdesk', 'code-cache');
}

/** One cache file per source file, named by its absolute path (so a source gone after a rebuild is found and pruned). */
const cacheName = (filename) => `${encodeURIComponent(filename)}.v8cache`;
const sourceOf = (name) => decodeURIComponent(name.slice(0, -'.v8cache'.length));

/** What the cache was made from: this Node and this exact file (size, mtime, inode). */
function keyOf(filename) {
  const st = statSync(filename);
  return `${process.version} ${process.arch} ${st.size} ${st.mtimeMs} ${st.ino}\n`;
}

/** The folder, if it is usable: a folder of this user's that nobody else may write. */
function ownFolder(dir, create) {
  try {
    if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0));
  } catch {
    return false;
  }
}

/**
 * The cached code and the commands whose runs it holds (e.g. "agent plugins"), or undefined when there is none for
 * this key. File layout: the key line, the commands line, then V8's data.
 */
function readCache(file, key) {
  let buf;
  try {
    buf = readFileSync(file);
  } catch {
    return undefined;
  }
  const head = Buffer.from(key);
  if (buf.length <= head.length || !buf.subarray(0, head.length).equals(head)) return undefined;
  const eol = buf.indexOf(10, head.length);
  if (eol < 0) return undefined;
  return { commands: buf.toString('latin1', head.length, eol).split(' ').filter(Boolean), data: buf.subarray(eol + 1) };
}

function writeCache(file, key, commands, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, key);
    writeSync(fd, `${commands.join(' ')}\n`);
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file); // whole or not at all, also with another process writing the same file
}

/** Removes caches whose source file no longer exists (an earlier build's chunks) and writes a killed process left. */
function prune(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (name.endsWith('.tmp')) {
      if (Date.now() - statSync(file).mtimeMs > 3600_000) unlinkSync(file);
    } else if (name.endsWith('.v8cache') && !existsSync(sourceOf(name))) unlinkSync(file);
  }
}

/** main/cli.ts's commands: a cache notes which of them it has seen run. */
const COMMANDS = new Set(['agent', 'auth', 'subagents', 'plugins', 'checkpoints', 'usage', 'mcp']);

/** How every file of the build starts (scripts/build-cli.mjs writes each as the function Node would wrap it in). */
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {';

/**
 * Requires `entry`, the CommonJS build's entry. It and every .cjs file under its folder are compiled as written (each
 * file is its own module wrapper), with the code cache in `dir` when there is one. Any problem with the cache
 * (unreadable, unwritable, rejected by V8) only means compiling as without it. `underStartupFlags` runs each compile
 * that takes a cache, and each cache's creation, under the V8 flags the process started with (wasm-baseline.mjs sets
 * one later): V8 takes a cache only under the flags it was made with.
 */
export function requireWithCodeCache(entry, dir, underStartupFlags = (fn) => fn()) {
  const useCache = dir !== undefined && (ownFolder(dir, false) || ownFolder(dir, true));
  const root = path.dirname(entry) + path.sep;
  /** The command of this run (one of the command line's own; anything else is "-"). */
  const command = COMMANDS.has(process.argv[2] ?? '') ? process.argv[2] : '-';
  /** Scripts compiled without a usable cache, or with one made by other commands: their code is saved at exit. */
  const fresh = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (!filename.startsWith(root) || !filename.endsWith('.cjs')) return compile.call(this, content, filename);
    if (!content.startsWith(WRAPPER_START)) throw new Error(`${filename}: not built by scripts/build-cli.mjs (run \`npm run build\`)`);
    const file = useCache ? path.join(dir, cacheName(filename)) : undefined;
    let key;
    let cached;
    try {
      if (file) {
        key = keyOf(filename);
        cached = readCache(file, key);
      }
    } catch {
      key = undefined;
    }
    // No import() hook: on Node 20 code from a cache loses it, so the build calls globalThis.__agentdeskImport
    // instead (scripts/build-cli.mjs).
    const script = underStartupFlags(() => new vm.Script(content, { filename, cachedData: cached?.data }));
    if (key !== undefined) {
      // The cache holds the functions that ran when it was made: a command it has not seen (a turn after only
      // `--help`) saves it again at exit, with this run's functions added.
      const commands = cached && !script.cachedDataRejected ? cached.commands : [];
      if (!commands.includes(command)) fresh.push({ script, file, key, commands: [...commands, command].sort() });
    }
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, path.dirname(filename));
  };
  if (useCache) {
    process.once('exit', () => {
      if (fresh.length === 0) return;
      try {
        for (const { script, file, key, commands } of fresh) writeCache(file, key, commands, underStartupFlags(() => script.createCachedData()));
        prune(dir);
      } catch {
        /* no cache this time */
      }
    });
  }
  return createRequire(import.meta.url)(entry);
}
