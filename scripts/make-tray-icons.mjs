#!/usr/bin/env node
// Draws the tray's template images (black on transparent; macOS tints them, Linux and Windows
// show them as they are) into resources/: a padlock, closed (all locked), open (signed in),
// and closed with a dot (needs attention). 16 px and @2x. Run again after changing a shape.
import { writeFileSync } from 'node:fs';
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

function png(size, alphaAt) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++)
      row[1 + x * 4 + 3] = Math.round(255 * alphaAt((x + 0.5) / size, (y + 0.5) / size, 1 / size));
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
  return (x, y, pixel) => {
    const body = box(x, y, 0.2, 0.45, 0.8, 0.9);
    const shackleCx = open ? 0.62 : 0.5;
    const shackle = Math.max(ring(x, y, shackleCx, 0.38, 0.2, 0.055), y - 0.45);
    const legs = Math.min(
      box(x, y, shackleCx - 0.255, 0.38, shackleCx - 0.145, 0.47),
      open ? 1 : box(x, y, shackleCx + 0.145, 0.38, shackleCx + 0.255, 0.47),
    );
    let alpha = Math.max(cover(body, pixel), cover(Math.min(shackle, legs), pixel));
    if (dot) alpha *= 1 - cover(Math.hypot(x - 0.5, y - 0.67) - 0.09, pixel);
    return alpha;
  };
}

const icons = {
  trayLockedTemplate: { open: false, dot: false },
  traySignedInTemplate: { open: true, dot: false },
  trayAttentionTemplate: { open: false, dot: true },
};
for (const [name, shape] of Object.entries(icons)) {
  writeFileSync(path.join(out, `${name}.png`), png(16, padlock(shape)));
  writeFileSync(path.join(out, `${name}@2x.png`), png(32, padlock(shape)));
}
process.stdout.write(`wrote ${Object.keys(icons).length * 2} icons to ${out}\n`);
