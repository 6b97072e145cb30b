#!/usr/bin/env node
// Builds the headless command line (main/cli.ts) as CommonJS: out/main/cli.cjs and its lazily loaded chunks in
// out/main/cli-chunks/. Run by `npm run build` after electron-vite (which builds the app, `web` and the checkpoint
// worker, and empties out/main first).
//
// Why CommonJS: a CLI turn is one short process, and compiling the bundle (the gateway, zod, the provider SDK) was
// about a fifth of its CPU. Node 20 has no compile cache for ES modules (module.enableCompileCache is Node 22+), but
// a CommonJS script can be compiled with V8's code cache (vm.Script cachedData): bin/agentdesk.mjs loads this build
// through bin/code-cache.mjs. The same bundling as electron-vite's main build: the dependencies stay external except
// zod and the SDKs (bundled, tree-shaken; the SDKs and the MCP client in chunks loaded at first use), keytar external.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'rolldown';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const BUNDLED = new Set(['zod', '@anthropic-ai/sdk', 'openai', '@modelcontextprotocol/client']);
const externalPkgs = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})].filter((d) => !BUNDLED.has(d));
const builtins = new Set(builtinModules);
const isExternal = (id) =>
  id.startsWith('node:') || builtins.has(id) || externalPkgs.some((d) => id === d || id.startsWith(`${d}/`));

/**
 * import() of an ES-module package (execa, diff, keytar…) or a plugin file, in a script compiled from V8's code cache,
 * fails on Node 20 ("A dynamic import callback was not specified": the cached code loses the script's import hook).
 * So the bundle's import() calls go through a function bin/agentdesk.mjs defines (a module's own import(), which
 * resolves packages from the same node_modules). Only calls are rewritten: an "import(" inside a string (the SDKs'
 * messages) follows a quote or backtick and is left alone.
 */
/** Must match bin/code-cache.mjs (it checks that a file starts with this). */
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {';
const WRAPPER_END = '\n})';

const IMPORT_CALL = /(?<![\w$.`'"])import\(/g;
const viaBinImport = {
  name: 'agentdesk-import-via-bin',
  renderChunk(code) {
    return { code: code.replace(IMPORT_CALL, 'globalThis.__agentdeskImport('), map: null };
  },
};

// A chunk of an earlier build (its name carries its content hash) must not linger beside the new ones.
rmSync(join(ROOT, 'out/main/cli-chunks'), { recursive: true, force: true });
const OUT = join(ROOT, 'out/main');
const { output } = await build({
  input: { cli: join(ROOT, 'main/cli.ts') },
  plugins: [viaBinImport],
  cwd: ROOT,
  platform: 'node',
  logLevel: 'warn',
  write: false,
  external: isExternal,
  output: {
    dir: OUT,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'cli-chunks/[name]-[hash].cjs',
    // As the app's main build: ASCII-only output stays a one-byte string in V8, and no JSDoc comments to read.
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
  },
});

// Each file is written as the function Node would wrap it in, so bin/code-cache.mjs compiles the text as it is read
// (no second, wrapped copy of ~1 MB of source in memory). Wrapped here, after the build: rolldown drops an unused
// function expression from what a plugin returns. Only that loader runs these files.
for (const chunk of output) {
  if (chunk.type !== 'chunk') throw new Error(`unexpected build output ${chunk.fileName}`);
  const file = join(OUT, chunk.fileName);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${WRAPPER_START}${chunk.code}${WRAPPER_END}`);
}
