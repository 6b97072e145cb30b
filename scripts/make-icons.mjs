#!/usr/bin/env node
// Draws the AgentDesk mark (renderer/public/icon.svg: a blue rounded square with a white diamond and a blue core)
// into resources/icon.png (512×512), resources/icon.ico (PNG entries 16–256, Windows/NSIS) and resources/icon.icns
// (PNG entries 16–1024, the @2x ones included: macOS wants 512@2x = 1024 px for the App Store and Retina Finder). Plain Node (zlib): no image tools needed. Run: node scripts/make-icons.mjs
import { writeFileSync, mkdirSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const OUT = fileURLToPath(new URL('../resources/', import.meta.url));
const BLUE = [0x35, 0x66, 0xa0];
const WHITE = [0xff, 0xff, 0xff];

/** Coverage of the mark at (x, y) in a 64-unit design space: [r, g, b, alpha 0..1]. */
function sample(x, y) {
  const inRounded = () => {
    const r = 14;
    const cx = Math.min(Math.max(x, r), 64 - r);
    const cy = Math.min(Math.max(y, r), 64 - r);
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  };
  if (x < 0 || y < 0 || x > 64 || y > 64 || !inRounded()) return [0, 0, 0, 0];
  const d = Math.abs(x - 32) / 18 + Math.abs(y - 32) / 20; // outer diamond (32,12)-(50,32)-(32,52)-(14,32)
  const core = Math.abs(x - 32) / 9 + Math.abs(y - 32) / 10; // inner diamond (32,22)-(41,32)-(32,42)-(23,32)
  if (core <= 1) return [...BLUE, 1];
  if (d <= 1) return [...WHITE, 1];
  return [...BLUE, 1];
}

function render(size) {
  const ss = 4; // supersampling per axis
  const rows = [];
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const [cr, cg, cb, ca] = sample(((px + (sx + 0.5) / ss) * 64) / size, ((py + (sy + 0.5) / ss) * 64) / size);
          r += cr * ca; g += cg * ca; b += cb * ca; a += ca;
        }
      }
      const o = 1 + px * 4;
      row[o] = a ? Math.round(r / a) : 0;
      row[o + 1] = a ? Math.round(g / a) : 0;
      row[o + 2] = a ? Math.round(b / a) : 0;
      row[o + 3] = Math.round((a / (ss * ss)) * 255);
    }
    rows.push(row);
  }
  return png(size, Buffer.concat(rows));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function png(size, raw) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function ico(entries) {
  const header = Buffer.alloc(6 + 16 * entries.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(entries.length, 4);
  let offset = header.length;
  entries.forEach(([size, data], i) => {
    const e = 6 + i * 16;
    header[e] = size >= 256 ? 0 : size;
    header[e + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, e + 4); // planes
    header.writeUInt16LE(32, e + 6); // bits per pixel
    header.writeUInt32LE(data.length, e + 8);
    header.writeUInt32LE(offset, e + 12);
    offset += data.length;
  });
  return Buffer.concat([header, ...entries.map(([, d]) => d)]);
}

function icns(entries) {
  const parts = entries.map(([type, data]) => {
    const h = Buffer.alloc(8);
    h.write(type, 0, 'ascii');
    h.writeUInt32BE(data.length + 8, 4);
    return Buffer.concat([h, data]);
  });
  const body = Buffer.concat(parts);
  const h = Buffer.alloc(8);
  h.write('icns', 0, 'ascii');
  h.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([h, body]);
}

mkdirSync(OUT, { recursive: true });
const sizes = new Map([16, 32, 48, 64, 128, 256, 512, 1024].map((s) => [s, render(s)]));
writeFileSync(`${OUT}icon.png`, sizes.get(512));
writeFileSync(`${OUT}icon.ico`, ico([16, 32, 48, 64, 128, 256].map((s) => [s, sizes.get(s)])));
// PNG payloads: icp4 16, icp5 32, icp6 64, ic07 128, ic08 256, ic09 512, ic10 1024 (512@2x), ic11 32 (16@2x),
// ic12 64 (32@2x), ic13 256 (128@2x), ic14 512 (256@2x)
const ICNS_ENTRIES = [['icp4', 16], ['icp5', 32], ['icp6', 64], ['ic07', 128], ['ic08', 256], ['ic09', 512], ['ic10', 1024], ['ic11', 32], ['ic12', 64], ['ic13', 256], ['ic14', 512]];
writeFileSync(`${OUT}icon.icns`, icns(ICNS_ENTRIES.map(([type, size]) => [type, sizes.get(size)])));
console.log(`wrote ${OUT}icon.png, icon.ico, icon.icns`);
