#!/usr/bin/env node
// Headless AgentDesk command line (see SPEC "The headless command line"). Built by `npm run build`.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { liftoffBeforeFirstFetch, withStartupFlags } from './wasm-baseline.mjs';

// `--version` answers without loading the command line (the same line main/cli.ts prints).
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-v')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
  process.exit(0);
}
// Node's fetch parses HTTP with llhttp compiled to WebAssembly. V8 runs it first as baseline (Liftoff) code and, once
// it has parsed a few KB, recompiles it with TurboFan on a helper thread: ~28 MB of peak memory (the compiler's
// working memory) and a helper core busy until exit. In a CLI turn that never pays off: measured against the fake
// server (paired runs), a turn with Liftoff only took 7 % less CPU at 200 000 and at 2 000 000 streamed characters
// and 22 MB / 6 MB less peak memory, and a short turn ~28 MB less. So the command line keeps WebAssembly at Liftoff
// (README, "Test it": the CLI turn's bench rows); WebAssembly a plugin compiles after that runs as baseline code too.
// The command line only: the app is one long-lived process. Set at the first fetch(), not now (wasm-baseline.mjs:
// a flag set now would keep Node's code cache from every built-in loaded after it).
liftoffBeforeFirstFetch();
const cli = fileURLToPath(new URL('../out/main/cli.cjs', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('agentdesk: not built yet — run `npm run build` first\n');
  process.exit(2);
}
// One short-lived process: zod checks a handful of objects, so compiling a fast parser for each schema (zod's JIT,
// `new Function` per schema) costs more than it saves. Set before the bundle builds its schemas.
globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, jitless: true };
// The bundle's import() of an ES-module package or a plugin file (see scripts/build-cli.mjs): a module's own import.
globalThis.__agentdeskImport = (specifier) => import(specifier);
// The CommonJS build, compiled with V8's code cache (code-cache.mjs): most of a turn's start-up was compiling it.
const { codeCacheDir, requireWithCodeCache } = await import('./code-cache.mjs');
requireWithCodeCache(cli, codeCacheDir(), withStartupFlags);
