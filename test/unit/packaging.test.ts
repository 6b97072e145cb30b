/**
 * D6: the electron-builder config validates against electron-builder's own JSON schema, names the targets for
 * Linux (AppImage, deb), macOS (dmg) and Windows (nsis), and every file it names exists and is what it claims
 * (PNG 512×512, ICO with a 256 entry, ICNS with a 512 entry). `npm start` without an Electron binary: one line, exit 1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const config = JSON.parse(readFileSync(join(ROOT, 'electron-builder.json'), 'utf8')) as Record<string, any>;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;

describe('electron-builder config', () => {
  it('is valid against electron-builder\'s schema', async () => {
    const require = createRequire(import.meta.url);
    const { default: Ajv } = (await import('ajv')) as unknown as { default: new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } } };
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);
    const { $schema: _ignored, ...rest } = config;
    expect(validate(rest), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['linux', ['AppImage', 'deb']],
    ['mac', ['dmg']],
    ['win', ['nsis']],
  ])('%s targets %j', (os, targets) => {
    expect(config[os].target).toEqual(targets);
  });

  const icons = [config.linux.icon, config.mac.icon, config.win.icon, config.nsis.installerIcon];
  it.each(icons)('%s exists and is a proper icon', (file: string) => {
    const buf = readFileSync(join(ROOT, file));
    if (file.endsWith('.png')) {
      expect(buf.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect([buf.readUInt32BE(16), buf.readUInt32BE(20)]).toEqual([512, 512]);
    } else if (file.endsWith('.ico')) {
      expect([buf.readUInt16LE(0), buf.readUInt16LE(2)]).toEqual([0, 1]);
      const count = buf.readUInt16LE(4);
      const sizes = Array.from({ length: count }, (_, i) => buf[6 + i * 16] || 256);
      expect(sizes).toContain(256);
    } else {
      expect(buf.subarray(0, 4).toString('ascii')).toBe('icns');
      expect(buf.readUInt32BE(4)).toBe(buf.length);
      expect(buf.includes(Buffer.from('ic09'))).toBe(true);
    }
  });

  it('ships the built app and keeps the keytar native module outside the asar', () => {
    expect(config.directories.buildResources).toBe('resources');
    expect(existsSync(join(ROOT, config.directories.buildResources))).toBe(true);
    expect(config.files).toContain('out/**/*');
    expect(config.extraMetadata.main).toBe(pkg.main);
    expect(config.asarUnpack).toContain('**/node_modules/keytar/**');
    expect(pkg.optionalDependencies.keytar).toBeDefined();
    expect(pkg.scripts.dist).toMatch(/electron-builder --config electron-builder\.json/);
    expect(pkg.scripts.start).toBe('node scripts/start.mjs');
  });
});

describe('npm start without an Electron binary', () => {
  it('prints one line pointing to npm run web and the CLI, exits non-zero, no stack trace', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-electron-'));
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, [join(ROOT, 'scripts/start.mjs')], { cwd: ROOT, env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty } }, (err, stdout, stderr) =>
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no Electron binary is installed .*npm run web.*npx agentdesk agent --help/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
