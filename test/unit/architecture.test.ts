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
});
