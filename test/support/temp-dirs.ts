/** Temporary folders for a test file, removed after its tests (`afterAll`). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** `tmp(name)` makes `<tmpdir>/agentdesk-<tag>-<name>-XXXXXX`; every folder it made is removed after the file's tests. */
export function tempDirs(tag: string): (name: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  return (name) => {
    const d = mkdtempSync(path.join(tmpdir(), `agentdesk-${tag}-${name}-`));
    made.push(d);
    return d;
  };
}
