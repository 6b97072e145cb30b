#!/usr/bin/env node
// Headless AgentDesk command line (see SPEC "The headless command line"). Built by `npm run build`.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// `--version` answers without loading the command line (the same line main/cli.ts prints).
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-v')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
  process.exit(0);
}
// Node's fetch parses HTTP with llhttp compiled to WebAssembly. V8 runs it first as baseline (Liftoff) code and, once
// it has parsed a few KB, recompiles it with TurboFan on a helper thread: in a turn with a reply of a few thousand
// characters that compile is ~28 MB of peak memory (the compiler's working memory) and a helper core busy until
// exit, for a parser that then has a few hundred events left to read. With 1000x V8's default budget the parser
// tiers up only in a turn that streams some 100 000 characters or more; measured, a turn of 200 000 or 2 000 000
// characters costs the same CPU either way. The budget counts WebAssembly code run (roughly bytes), so a plugin's
// WebAssembly that computes for long still tiers up (README, "Test it": the CLI turn's bench rows). The command line
// only: the app is one long-lived process.
setFlagsFromString('--wasm-tiering-budget=1800000000');
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
// X2: an `agent` turn's checkpoint capture starts now, on the checkpoint worker, while the bundle below compiles
// (main/checkpoints/early.ts: only for a folder checkpointed before with 2 000 entries or more; the gateway takes it
// only if it is the capture it would make itself).
if (process.argv[2] === 'agent') {
  try {
    const { startEarlyCapture } = await import('../out/main/checkpoint-early.js');
    startEarlyCapture(process.argv.slice(3), new URL('../out/main/checkpoint-worker.js', import.meta.url));
  } catch {
    /* the gateway prepares the capture when it opens */
  }
}
// The CommonJS build, compiled with V8's code cache (code-cache.mjs): most of a turn's start-up was compiling it.
const { codeCacheDir, requireWithCodeCache } = await import('./code-cache.mjs');
requireWithCodeCache(cli, codeCacheDir());
