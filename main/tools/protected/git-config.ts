/**
 * Git config text, read just enough to clean a repository a sandboxed command CREATED (`git init`, `git clone`):
 * an existing repository's .git/config and hooks are read-only inside the sandbox (exec-guard.ts), but a new one is
 * writable while the command runs, and git on the host would honour what it planted (core.fsmonitor runs at every
 * `git status`). So a new repository keeps only the settings `git init` / `git clone` / everyday use write — an
 * allow list — and every other key is removed, with the lines it spans.
 *
 * Format (git-config(1)): `[section]`, `[section "subsection"]` or `[section.subsection]` headers; `name = value`
 * lines (a bare `name` is boolean true); `#`/`;` comments; a value continues on the next line after a trailing
 * backslash. Section and key names are case-insensitive; subsections are not.
 */

/** `section.key` or `section.*.key` (any subsection) entries a new repository may keep. */
const ALLOWED: ReadonlySet<string> = new Set([
  'core.repositoryformatversion', 'core.filemode', 'core.bare', 'core.logallrefupdates', 'core.ignorecase',
  'core.precomposeunicode', 'core.symlinks', 'core.autocrlf', 'core.eol', 'core.safecrlf', 'core.quotepath',
  'core.compression', 'core.bigfilethreshold', 'core.sparsecheckout', 'core.sparsecheckoutcone',
  'remote.*.url', 'remote.*.pushurl', 'remote.*.fetch', 'remote.*.push', 'remote.*.tagopt', 'remote.*.prune',
  'remote.*.mirror', 'remote.*.promisor', 'remote.*.partialclonefilter',
  'branch.*.remote', 'branch.*.merge', 'branch.*.rebase', 'branch.*.pushremote', 'branch.*.description',
  'user.name', 'user.email', 'commit.gpgsign', 'tag.gpgsign', 'pull.rebase', 'pull.ff', 'push.default',
  'fetch.prune', 'init.defaultbranch', 'extensions.objectformat', 'extensions.refstorage',
  'extensions.partialclone', 'extensions.preciousobjects', 'lfs.repositoryformatversion', 'gc.auto',
  'submodule.*.url', 'submodule.*.active', 'index.version', 'feature.manyfiles', 'maintenance.auto',
]);

export interface ConfigEntry {
  /** `section.key` or `section.sub.key` as git names it (section and key lower-cased). */
  name: string;
  /** The allow-list form: `section.key` or `section.*.key`. */
  pattern: string;
  /** Line indexes (0-based) the entry spans. */
  lines: number[];
}

const HEADER = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/;
const KEY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[#;])/;

/** Every key line of a git config text with the section it belongs to. */
export function configEntries(text: string): ConfigEntry[] {
  const lines = text.split('\n');
  const out: ConfigEntry[] = [];
  let section = '';
  let sub: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = HEADER.exec(line);
    if (h) {
      const dotted = h[1]!.split('.');
      section = dotted[0]!.toLowerCase();
      sub = h[2] !== undefined ? h[2] : dotted.length > 1 ? dotted.slice(1).join('.') : undefined;
      // A key on the header line itself: `[core] fsmonitor = …` is valid git config.
      const rest = h[3]!.trim();
      const k = KEY.exec(rest);
      if (k && rest !== '' && !/^[#;]/.test(rest)) out.push(entry(section, sub, k[1]!, [i]));
      continue;
    }
    if (/^\s*([#;].*)?$/.test(line)) continue;
    const k = KEY.exec(line);
    const span = [i];
    // Continuation lines: a value ending in an unescaped backslash goes on.
    let j = i;
    while (/(^|[^\\])(\\\\)*\\\s*$/.test(lines[j]!) && j + 1 < lines.length) span.push(++j);
    out.push(k ? entry(section, sub, k[1]!, span) : { name: '(unreadable line)', pattern: '(unreadable)', lines: span });
    i = j;
  }
  return out;
}

function entry(section: string, sub: string | undefined, key: string, lines: number[]): ConfigEntry {
  const k = key.toLowerCase();
  return {
    name: sub !== undefined ? `${section}.${sub}.${k}` : `${section}.${k}`,
    pattern: sub !== undefined ? `${section}.*.${k}` : `${section}.${k}`,
    lines,
  };
}

/** The config without every key outside the allow list; `removed` names them. */
export function sanitizeNewRepoConfig(text: string): { text: string; removed: string[] } {
  const drop = new Set<number>();
  const removed: string[] = [];
  for (const e of configEntries(text)) {
    if (ALLOWED.has(e.pattern)) continue;
    removed.push(e.name);
    for (const l of e.lines) drop.add(l);
  }
  if (removed.length === 0) return { text, removed };
  const lines = text.split('\n');
  // A header line that carried a dropped key keeps only its header.
  const kept = lines.map((l, i) => {
    if (!drop.has(i)) return l;
    const h = HEADER.exec(l);
    return h ? l.slice(0, l.indexOf(']') + 1) : null;
  });
  return { text: kept.filter((l): l is string => l !== null).join('\n'), removed };
}

/** core.hooksPath values of a config text (to protect the folder an existing repository runs hooks from). */
export function hooksPaths(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (const e of configEntries(text)) {
    if (e.name !== 'core.hookspath') continue;
    const line = lines[e.lines[0]!]!;
    const m = /=\s*(.*?)\s*$/.exec(line.includes(']') && HEADER.test(line) ? line.slice(line.indexOf(']') + 1) : line);
    if (m?.[1]) out.push(m[1].replace(/^"(.*)"$/, '$1'));
  }
  return out;
}
