import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(name) ? [p] : [];
  });
}

const importsElectron = (src: string) =>
  /(?:from\s*['"]electron(?:\/[^'"]*)?['"])|(?:require\(\s*['"]electron(?:\/[^'"]*)?['"]\s*\))|(?:import\(\s*['"]electron['"]\s*\))|(?:import\s*['"]electron['"])/.test(
    src,
  );

describe('architecture', () => {
  it('detects an electron import (the check itself can fail)', () => {
    expect(importsElectron("import { app } from 'electron';")).toBe(true);
    expect(importsElectron("const { app } = require('electron')")).toBe(true);
    expect(importsElectron("const m = await import('electron')")).toBe(true);
    expect(importsElectron("import Store from 'electron-store';")).toBe(false);
    expect(importsElectron("// electron is not imported here")).toBe(false);
  });

  it('no file under main/ outside main/shell/ imports electron', () => {
    const offenders = sourceFiles(join(root, 'main'))
      .filter((f) => !relative(root, f).startsWith(join('main', 'shell')))
      .filter((f) => importsElectron(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });

  // The contract is bundled into main, preload and the renderer: it must pull no code of any one of them along.
  const importSpecifiers = (src: string) =>
    [...src.matchAll(/^\s*(import|export)\b([^;]*?)\bfrom\s*['"]([^'"]+)['"]/gm)].map((m) => ({
      statement: `${m[1]}${m[2]}`.replace(/\s+/g, ' ').trim(),
      from: m[3],
    }));

  it('reads import specifiers (the contract checks below can fail)', () => {
    expect(importSpecifiers("import type { A } from './runs.js';\nexport * from '../main/x.js';")).toEqual([
      { statement: 'import type { A }', from: './runs.js' },
      { statement: 'export *', from: '../main/x.js' },
    ]);
  });

  it('preload/contract.ts only re-exports preload/contract/*, and those files import only each other, type-only', () => {
    const entry = importSpecifiers(readFileSync(join(root, 'preload', 'contract.ts'), 'utf8'));
    const dir = join(root, 'preload', 'contract');
    const parts = readdirSync(dir).filter((name) => name.endsWith('.ts'));
    expect(entry.map((e) => e.from).sort()).toEqual(parts.map((name) => `./contract/${name.replace(/\.ts$/, '.js')}`).sort());
    expect(entry.every((e) => e.statement === 'export *')).toBe(true);
    const offenders = parts.flatMap((name) =>
      importSpecifiers(readFileSync(join(dir, name), 'utf8'))
        .filter((i) => !/^import type\b/.test(i.statement) || !/^\.\/[\w-]+\.js$/.test(i.from))
        .map((i) => `${name}: ${i.statement} from '${i.from}'`),
    );
    expect(offenders).toEqual([]);
  });

  it('no renderer file imports from main/', () => {
    const offenders = sourceFiles(join(root, 'renderer', 'src'))
      .filter((f) => importSpecifiers(readFileSync(f, 'utf8')).some((i) => /(^|\/)main\//.test(i.from)))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });
});
