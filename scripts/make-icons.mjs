#!/usr/bin/env node
// Draws Kubecred's images. The tray's template images (black on transparent; macOS tints them,
// Linux and Windows show them as they are) into resources/: a padlock, closed (all locked), open
// (signed in), and closed with a dot (needs attention), 16 px and @2x. Beside them the same
// padlocks light, for dark Linux panels and the dark Windows taskbar, where black is all but
// invisible; the attention dot there is amber, so it is seen at a glance. The app icon into
// packaging/icon/: the same padlock, white on the window's blue rounded square, 1024 px, from
// which electron-builder makes the .icns and .ico. Run again after changing a shape.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'resources');

function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGBA PNG; `colorAt(x, y, pixel)` gives [r, g, b, a] (0-255, alpha 0-1) in a unit square. */
function png(size, colorAt) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = colorAt((x + 0.5) / size, (y + 0.5) / size, 1 / size);
      row.set([r, g, b, Math.round(255 * a)], 1 + x * 4);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Shapes as signed distances in a unit square; coverage with a one-pixel soft edge.
const cover = (distance, pixel) => Math.min(1, Math.max(0, 0.5 - distance / pixel));
const box = (x, y, x0, y0, x1, y1) => Math.max(x0 - x, x - x1, y0 - y, y - y1);
const ring = (x, y, cx, cy, r, w) => Math.abs(Math.hypot(x - cx, y - cy) - r) - w;

function padlock({ open, dot }) {
  return (x, y, pixel) => lockShape({ open, dot }, x, y, pixel).alpha;
}

/** The padlock's coverage, and the dot's coverage on its own (the attention variant's hole). */
function lockShape({ open, dot }, x, y, pixel) {
  const body = box(x, y, 0.2, 0.45, 0.8, 0.9);
  const shackleCx = open ? 0.62 : 0.5;
  const shackle = Math.max(ring(x, y, shackleCx, 0.38, 0.2, 0.055), y - 0.45);
  const legs = Math.min(
    box(x, y, shackleCx - 0.255, 0.38, shackleCx - 0.145, 0.47),
    open ? 1 : box(x, y, shackleCx + 0.145, 0.38, shackleCx + 0.255, 0.47),
  );
  let alpha = Math.max(cover(body, pixel), cover(Math.min(shackle, legs), pixel));
  const dotCover = dot ? cover(Math.hypot(x - 0.5, y - 0.67) - 0.09, pixel) : 0;
  alpha *= 1 - dotCover;
  return { alpha, dot: dotCover };
}

const icons = {
  trayLockedTemplate: { open: false, dot: false },
  traySignedInTemplate: { open: true, dot: false },
  trayAttentionTemplate: { open: false, dot: true },
};
const black = (alphaAt) => (x, y, pixel) => [0, 0, 0, alphaAt(x, y, pixel)];
for (const [name, shape] of Object.entries(icons)) {
  writeFileSync(path.join(out, `${name}.png`), png(16, black(padlock(shape))));
  writeFileSync(path.join(out, `${name}@2x.png`), png(32, black(padlock(shape))));
}

// Light: near-white (the panels' own text colour, not a glaring pure white), the dot amber.
const LIGHT = [0xf2, 0xf2, 0xf2];
const AMBER = [0xf5, 0xa6, 0x23];
const light = (shape) => (x, y, pixel) => {
  const { alpha, dot } = lockShape(shape, x, y, pixel);
  const a = alpha + dot;
  if (a === 0) return [0, 0, 0, 0];
  const mix = (i) => Math.round((LIGHT[i] * alpha + AMBER[i] * dot) / a);
  return [mix(0), mix(1), mix(2), Math.min(1, a)];
};
for (const [name, shape] of Object.entries(icons)) {
  const lightName = name.replace(/Template$/, 'Light');
  writeFileSync(path.join(out, `${lightName}.png`), png(16, light(shape)));
  writeFileSync(path.join(out, `${lightName}@2x.png`), png(32, light(shape)));
}

// The app icon: the UI's brand mark (a white padlock on #1a5bc4), with the platforms' margin.
const BLUE = [0x1a, 0x5b, 0xc4];
const rounded = (x, y, inset, radius) => {
  const qx = Math.max(Math.abs(x - 0.5) - (0.5 - inset - radius), 0);
  const qy = Math.max(Math.abs(y - 0.5) - (0.5 - inset - radius), 0);
  return Math.hypot(qx, qy) - radius;
};
const lock = padlock({ open: false, dot: false });
function appIcon(x, y, pixel) {
  const tile = cover(rounded(x, y, 0.08, 0.18), pixel);
  // The padlock at 60% of the tile, centred, with a keyhole.
  const [lx, ly, lp] = [(x - 0.2) / 0.6, (y - 0.18) / 0.6, pixel / 0.6];
  const keyhole = Math.min(Math.hypot(lx - 0.5, ly - 0.62) - 0.07, box(lx, ly, 0.47, 0.62, 0.53, 0.79));
  const inLock = lock(lx, ly, lp) * (1 - cover(keyhole, lp));
  const mix = (c) => Math.round(c * (1 - inLock) + 255 * inLock);
  return [mix(BLUE[0]), mix(BLUE[1]), mix(BLUE[2]), tile];
}
const iconDir = path.resolve(out, '..', 'packaging', 'icon');
mkdirSync(iconDir, { recursive: true });
writeFileSync(path.join(iconDir, 'kubecred.png'), png(1024, appIcon));
process.stdout.write(`wrote ${Object.keys(icons).length * 4} tray icons to ${out} and the app icon to ${iconDir}\n`);
