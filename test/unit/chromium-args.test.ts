/**
 * The end-to-end tests' Chromium flags (test/e2e/helpers.ts) carry every feature Playwright itself disables:
 * Chromium keeps only the last --disable-features, and ours comes after Playwright's. Read from the installed
 * playwright-core, so an upgrade that disables more fails here instead of silently turning those features back on.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../e2e/helpers.js';

describe("the e2e tests' --disable-features", () => {
  it("holds Playwright's own list, and is the only one we pass", () => {
    const lib = join(dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')), 'lib', 'coreBundle.js');
    const source = readFileSync(lib, 'utf8');
    const block = /disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/.exec(source);
    expect(block, 'playwright-core no longer defines disabledFeatures as it did: read chromiumSwitches again').not.toBeNull();
    const theirs = [...block![1]!.matchAll(/^\s*"([A-Za-z0-9]+)"/gm)].map((m) => m[1]);
    expect(theirs.length).toBeGreaterThan(5);
    const ours = CHROMIUM_ARGS.filter((a) => a.startsWith('--disable-features='));
    expect(ours).toHaveLength(1);
    const names = ours[0]!.slice('--disable-features='.length).split(',');
    for (const name of theirs) expect(names, name).toContain(name);
  });
});
