import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { contentSecurityPolicy } from './main/shell/csp';

const CHARSET_META = '<meta charset="UTF-8" />';

/**
 * The built page carries its Content-Security-Policy in a <meta> right after the charset, before any script or
 * stylesheet (a meta policy governs what comes after it). Only in the build: the dev server's page needs its inline
 * React-refresh preamble, and gets the dev policy as a header (main/shell/window.ts).
 */
export function cspMetaPlugin(): Plugin {
  return {
    name: 'agentdesk-csp-meta',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        if (!html.includes(CHARSET_META)) throw new Error(`renderer/index.html: ${CHARSET_META} not found (the CSP <meta> goes after it)`);
        const meta = `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy({ meta: true })}" />`;
        return html.replace(CHARSET_META, `${CHARSET_META}\n    ${meta}`);
      },
    },
  };
}

// Folders live at the repo root (not src/), so every entry is named explicitly.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // Bundled (tree-shaken) instead of loaded from node_modules at run time: the `zod` package entry pulls in
      // every locale and the whole classic API (~15 MB RSS). The two provider SDKs stay lazily loaded (a chunk each,
      // imported at a run's first call) but are one file instead of ~270: resolving, reading and compiling them
      // file by file was about a third of a CLI turn's CPU (0.44 s → 0.29 s per turn, the same as a bare SDK script
      // that loads the SDK from node_modules). proper-lockfile (CommonJS, with graceful-fs) likewise.
      // keytar (an optional dependency, a native module) must stay external: bundled, its .node binding is wrapped
      // in an ES namespace and every keychain call fails ("keytar.findCredentials is not a function").
      // The MCP client SDK likewise: one lazily imported chunk (≈ 65 ms to load instead of ≈ 115 ms file by file),
      // loaded only when an MCP server is started.
      externalizeDeps: { exclude: ['zod', '@anthropic-ai/sdk', 'openai', '@modelcontextprotocol/client'], include: ['keytar'] },
      rollupOptions: {
        input: {
          index: resolve('main/shell/index.ts'), // Electron app (the only bundle that imports 'electron')
          web: resolve('main/web.ts'), // gateway over loopback WebSocket + static renderer, plain Node
          // X2: a worker thread that prepares a turn's checkpoint beside the turn (main/checkpoints/prefetch.ts);
          // each entry above, and the command line (out/main/cli.cjs, scripts/build-cli.mjs), finds it beside itself.
          'checkpoint-worker': resolve('main/checkpoints/checkpoint-worker.ts'),
        },
        // keytar is a native N-API module and an optional dependency: loaded from node_modules at run time (one
        // build serves Node and Electron); when it is missing the app and the CLI say "no keychain" plainly.
        external: ['keytar'],
        // Start-up (a CLI turn loads these chunks): ASCII-only output stays a one-byte string in V8 (one non-ASCII
        // character — an em dash in a comment — makes the whole chunk two bytes a character), and without the JSDoc
        // comments there is less to read and parse. License comments stay.
        output: { charset: 'ascii', comments: { legal: true, annotation: true, jsdoc: false } },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve('preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [react(), cspMetaPlugin()],
    build: {
      outDir: resolve('out/renderer'),
      minify: !process.env.NO_MINIFY, // electron-vite leaves bundles unminified; the UI parses ~3× less script at start
      rollupOptions: { input: resolve('renderer/index.html') },
    },
  },
});
