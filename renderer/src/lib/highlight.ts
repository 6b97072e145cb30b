/**
 * Code highlighting with shiki's fine-grained core: the JavaScript regex engine (no WebAssembly, no eval — fits
 * the app's CSP), two themes (light and dark, switched by CSS), and each language's grammar imported only when a
 * block in that language first appears. Tokens are rendered as React elements, never as HTML strings.
 */
import type { HighlighterCore, LanguageInput, ThemedToken } from 'shiki/core';

type Loader = () => Promise<{ default: LanguageInput }>;

/** Grammars we load on demand; keys are the canonical ids. */
const LANGS: Record<string, Loader> = {
  typescript: () => import('@shikijs/langs/typescript'),
  tsx: () => import('@shikijs/langs/tsx'),
  javascript: () => import('@shikijs/langs/javascript'),
  jsx: () => import('@shikijs/langs/jsx'),
  json: () => import('@shikijs/langs/json'),
  jsonc: () => import('@shikijs/langs/jsonc'),
  shellscript: () => import('@shikijs/langs/shellscript'),
  powershell: () => import('@shikijs/langs/powershell'),
  python: () => import('@shikijs/langs/python'),
  rust: () => import('@shikijs/langs/rust'),
  go: () => import('@shikijs/langs/go'),
  java: () => import('@shikijs/langs/java'),
  kotlin: () => import('@shikijs/langs/kotlin'),
  c: () => import('@shikijs/langs/c'),
  cpp: () => import('@shikijs/langs/cpp'),
  csharp: () => import('@shikijs/langs/csharp'),
  ruby: () => import('@shikijs/langs/ruby'),
  php: () => import('@shikijs/langs/php'),
  swift: () => import('@shikijs/langs/swift'),
  html: () => import('@shikijs/langs/html'),
  css: () => import('@shikijs/langs/css'),
  scss: () => import('@shikijs/langs/scss'),
  sql: () => import('@shikijs/langs/sql'),
  yaml: () => import('@shikijs/langs/yaml'),
  toml: () => import('@shikijs/langs/toml'),
  markdown: () => import('@shikijs/langs/markdown'),
  diff: () => import('@shikijs/langs/diff'),
  dockerfile: () => import('@shikijs/langs/dockerfile'),
  xml: () => import('@shikijs/langs/xml'),
  lua: () => import('@shikijs/langs/lua'),
  ini: () => import('@shikijs/langs/ini'),
  make: () => import('@shikijs/langs/make'),
};

const ALIASES: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  sh: 'shellscript',
  bash: 'shellscript',
  zsh: 'shellscript',
  shell: 'shellscript',
  console: 'shellscript',
  ps1: 'powershell',
  py: 'python',
  rs: 'rust',
  golang: 'go',
  kt: 'kotlin',
  'c++': 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  yml: 'yaml',
  md: 'markdown',
  patch: 'diff',
  docker: 'dockerfile',
  makefile: 'make',
  svg: 'xml',
  json5: 'jsonc',
};

/** Canonical grammar id for a fence's info string, or undefined when we have no grammar for it. */
export function resolveLang(info: string): string | undefined {
  const name = info.trim().toLowerCase();
  const id = ALIASES[name] ?? name;
  return id in LANGS ? id : undefined;
}

/** Label shown on a code block: the fence's own word, or "text". */
export function langLabel(info: string): string {
  return info.trim() === '' ? 'text' : info.trim();
}

/** GitHub's "default" themes: every token colour meets 4.5:1 on the code block's background (issue 18 item 6). */
export const THEMES = { light: 'github-light-default', dark: 'github-dark-default' } as const;

let highlighter: Promise<HighlighterCore> | undefined;
const loading = new Map<string, Promise<void>>();

function getHighlighter(): Promise<HighlighterCore> {
  highlighter ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }] = await Promise.all([
      import('shiki/core'),
      import('shiki/engine/javascript'),
    ]);
    return createHighlighterCore({
      themes: [import('@shikijs/themes/github-light-default'), import('@shikijs/themes/github-dark-default')],
      langs: [],
      engine: createJavaScriptRegexEngine(),
    });
  })();
  highlighter.catch(() => (highlighter = undefined)); // e.g. the chunk could not load while offline: try again later
  return highlighter;
}

function ensureLang(h: HighlighterCore, id: string): Promise<void> {
  let p = loading.get(id);
  if (!p) {
    p = LANGS[id]!().then((m) => h.loadLanguage(m.default));
    p.catch(() => loading.delete(id));
    loading.set(id, p);
  }
  return p;
}

const TOKEN_CACHE_MAX = 500;
const tokenCache = new Map<string, ThemedToken[][]>();

/** Already highlighted (a block scrolled back into view): its tokens at once, so it never flashes plain. */
export function cachedHighlight(code: string, lang: string): ThemedToken[][] | undefined {
  return tokenCache.get(`${lang}\0${code}`);
}

/** Highlighted lines of `code`, or undefined when the language is unknown (the block stays plain). */
export async function highlight(code: string, lang: string): Promise<ThemedToken[][] | undefined> {
  const id = resolveLang(lang);
  if (!id) return undefined;
  const key = `${lang}\0${code}`;
  const hit = tokenCache.get(key);
  if (hit) return hit;
  const h = await getHighlighter();
  await ensureLang(h, id);
  const tokens = h.codeToTokens(code, { lang: id, themes: THEMES, defaultColor: false }).tokens;
  tokenCache.set(key, tokens);
  if (tokenCache.size > TOKEN_CACHE_MAX) tokenCache.delete(tokenCache.keys().next().value!);
  return tokens;
}

/** Loads the highlighter and the usual grammars while the app is idle, so the first code block does not wait. */
export function preloadHighlighter(langs: string[] = ['typescript', 'shellscript', 'json', 'python']): void {
  const idle = (globalThis as { requestIdleCallback?: (cb: () => void) => void }).requestIdleCallback ?? ((cb: () => void) => setTimeout(cb, 500));
  idle(() => {
    void getHighlighter()
      .then(async (h) => {
        for (const id of langs) {
          await ensureLang(h, id);
          h.codeToTokens('const x = 1', { lang: id, themes: THEMES, defaultColor: false }); // compiles the grammar's first rules
          await new Promise((r) => idle(() => r(undefined)));
        }
      })
      .catch(() => undefined);
  });
}
