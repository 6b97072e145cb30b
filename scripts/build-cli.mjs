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
import { readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
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
const IMPORT_CALL = /(?<![\w$.`'"])import\(/g;
const viaBinImport = {
  name: 'agentdesk-import-via-bin',
  renderChunk(code) {
    return { code: code.replace(IMPORT_CALL, 'globalThis.__agentdeskImport('), map: null };
  },
};

// A chunk of an earlier build (its name carries its content hash) must not linger beside the new ones.
rmSync(join(ROOT, 'out/main/cli-chunks'), { recursive: true, force: true });
await build({
  input: { cli: join(ROOT, 'main/cli.ts') },
  plugins: [viaBinImport],
  cwd: ROOT,
  platform: 'node',
  logLevel: 'warn',
  external: isExternal,
  output: {
    dir: join(ROOT, 'out/main'),
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'cli-chunks/[name]-[hash].cjs',
    // As the app's main build: ASCII-only output stays a one-byte string in V8, and no JSDoc comments to read.
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
  },
});
