/**
 * D6: the electron-builder config validates against electron-builder's own JSON schema, names the targets for
 * Linux (AppImage, deb), macOS (dmg) and Windows (nsis), and every file it names exists and is what it claims
 * (PNG 512×512, ICO with a 256 entry, ICNS with every entry up to 1024 px). electron-builder itself builds the .deb
 * target up to the point where it would run fpm (from a stand-in unpacked app — the Electron binary cannot be
 * downloaded here): it accepts the maintainer and homepage and writes the desktop entry. `npm start` without an
 * Electron binary: one line, exit 1; with one (a stand-in executable): electron-vite's bin under this Node, once.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../../scripts/start-command.mjs';

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
      // Every entry is a PNG of the size its type names (Apple's icns types), 1024 px (512@2x) included.
      const SIZE: Record<string, number> = { icp4: 16, icp5: 32, icp6: 64, ic07: 128, ic08: 256, ic09: 512, ic10: 1024, ic11: 32, ic12: 64, ic13: 256, ic14: 512 };
      const entries: [string, number, number][] = [];
      for (let o = 8; o < buf.length; o += buf.readUInt32BE(o + 4)) {
        const png = buf.subarray(o + 8, o + buf.readUInt32BE(o + 4));
        expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
        entries.push([buf.toString('ascii', o, o + 4), png.readUInt32BE(16), png.readUInt32BE(20)]);
      }
      expect(entries.map(([type, w, h]) => [type, w, h])).toEqual(entries.map(([type]) => [type, SIZE[type], SIZE[type]]));
      expect(entries.map(([type]) => type)).toEqual(expect.arrayContaining(Object.keys(SIZE)));
    }
  });

  it('ships the built app and keeps the keytar native module outside the asar', () => {
    expect(config.directories.buildResources).toBe('resources');
    expect(existsSync(join(ROOT, config.directories.buildResources))).toBe(true);
    expect(config.files).toContain('out/**/*');
    expect(config.extraMetadata.main).toBe(pkg.main);
    expect(config.asarUnpack).toContain('**/node_modules/keytar/**');
    // X3: sharp's binding and the libvips it loads (from @img/*) must be real files for dlopen.
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['**/node_modules/sharp/**', '**/node_modules/@img/**']));
    expect(pkg.optionalDependencies.keytar).toBeDefined();
    expect(pkg.scripts.dist).toMatch(/electron-builder --config electron-builder\.json/);
    expect(pkg.scripts.start).toBe('node scripts/start.mjs');
  });
});

describe('Linux packages', () => {
  const require = createRequire(join(ROOT, 'package.json'));

  it('package.json names a maintainer with an email and a homepage (a .deb needs both)', () => {
    expect(pkg.author).toMatchObject({ name: expect.any(String), email: expect.stringMatching(/^[^@\s]+@[^@\s]+\.[a-z]+$/) });
    expect(pkg.homepage).toMatch(/^https:\/\//);
  });

  it('the .deb keeps every dependency electron-builder itself would declare (xdg-utils for links, libnotify4, …)', () => {
    const { default: FpmTarget } = require('app-builder-lib/out/targets/FpmTarget') as { default: { prototype: { getDefaultDepends(t: string): string[] } } };
    const defaults = FpmTarget.prototype.getDefaultDepends.call(null, 'deb');
    expect(defaults).toContain('xdg-utils');
    expect(config.deb.depends).toEqual(expect.arrayContaining(defaults));
  });

  it('electron-builder builds the deb target up to fpm: maintainer, homepage, desktop entry', async () => {
    const { build, Platform, Arch } = require('electron-builder') as typeof import('electron-builder');
    // A stand-in for the unpacked app (electron-builder's `prepackaged`): the Electron binary cannot be downloaded
    // here. `effectiveOptionComputed` receives fpm's arguments and stops the build before fpm would run.
    const prepackaged = mkdtempSync(join(tmpdir(), 'agentdesk-prepackaged-'));
    mkdirSync(join(prepackaged, 'resources'));
    const output = mkdtempSync(join(tmpdir(), 'agentdesk-dist-'));
    let fpm: { args: string[]; desktop: string } | undefined;
    await build({
      projectDir: ROOT,
      targets: Platform.LINUX.createTarget('deb', Arch.x64),
      config: { ...config, $schema: undefined, directories: { ...config.directories, output } } as never,
      prepackaged,
      effectiveOptionComputed: async (options: unknown) => {
        const [args, desktopFile] = options as [string[], string];
        fpm = { args, desktop: readFileSync(desktopFile, 'utf8') };
        return true;
      },
    });
    expect(fpm).toBeDefined();
    const arg = (name: string) => fpm!.args[fpm!.args.indexOf(name) + 1];
    expect(arg('--maintainer')).toBe(`${pkg.author.name} <${pkg.author.email}>`);
    expect(arg('--url')).toBe(pkg.homepage);
    expect(arg('--name')).toBe('agentdesk');
    expect(arg('--license')).toBe('MIT');
    expect(fpm!.args).toContain(`${join(ROOT, 'resources/icon.png')}=/usr/share/icons/hicolor/512x512/apps/agentdesk.png`);
    // Electron's app_id / WM_CLASS comes from desktopName: the dock links the window to this entry.
    expect(fpm!.desktop).toMatch(/^Name=AgentDesk$/m);
    expect(fpm!.desktop).toMatch(/^Exec=\/opt\/AgentDesk\/agentdesk %U$/m);
    expect(fpm!.desktop).toMatch(/^StartupWMClass=agentdesk$/m);
    expect(fpm!.args.at(-1)).toMatch(/=\/usr\/share\/applications\/agentdesk\.desktop$/);
  }, 60_000);
});

describe('npm start: the command', () => {
  it.each([
    ['linux', '/usr/bin/node', '/home/a/agentdesk/node_modules/electron-vite/package.json', []],
    ['win32', 'C:\\Program Files\\nodejs\\node.exe', 'C:\\Users\\A B\\agentdesk\\node_modules\\electron-vite\\package.json', ['--noSandbox']],
  ] as const)('%s: electron-vite\'s bin under this Node, `preview` (it builds once), no npx', (platform, execPath, electronVitePackageJson, args) => {
    const cmd = startCommand({ execPath, electronVitePackageJson, bin: 'bin/electron-vite.js', args: [...args], platform });
    expect(cmd.command).toBe(execPath);
    expect(cmd.args.slice(1)).toEqual(['preview', ...args]);
    expect(cmd.args[0]!.replace(/\\/g, '/')).toMatch(/node_modules\/electron-vite\/bin\/electron-vite\.js$/);
    expect(cmd.args[0]!.replace(/\\/g, '/').startsWith(electronVitePackageJson.replace(/\\/g, '/').replace(/package\.json$/, ''))).toBe(true);
  });

  it('with an Electron binary (a stand-in script) npm start runs electron-vite preview, which starts that binary on the app', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'fake-electron-'));
    writeFileSync(join(dist, 'electron'), '#!/bin/sh\nprintf "%s\\n%s\\n" "$PWD" "$*" > "$(dirname "$0")/called"\nexit 3\n');
    chmodSync(join(dist, 'electron'), 0o755);
    const r = await new Promise<{ code: number | null; stderr: string }>((done) => {
      execFile(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--skipBuild'], { cwd: ROOT, env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist } }, (err, _stdout, stderr) =>
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(r.code).toBe(3); // the app's exit status comes back
    expect(readFileSync(join(dist, 'called'), 'utf8')).toBe(`${ROOT}\n.\n`);
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
