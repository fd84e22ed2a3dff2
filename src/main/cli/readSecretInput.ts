import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CliIo } from './io.js';

/**
 * Reads a secret from stdin. From a pipe: everything, less one trailing newline (what
 * `echo` adds). From a terminal: one line, without echoing it.
 */
export async function readSecretInput(io: CliIo, label: string): Promise<string> {
  if (io.stdin.isTTY) return promptHidden(io, `${label} (input hidden): `);
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function promptHidden(io: CliIo, question: string): Promise<string> {
  // readline echoes what is typed to its output: give it one that shows nothing. It turns the
  // terminal's own echo off too, and that must happen before the question shows: a person (or
  // a password manager) typing the moment it appears would otherwise see the PIN on screen.
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: io.stdin, output: muted, terminal: true });
  io.stderr.write(question);
  return new Promise((resolve) => {
    rl.once('line', (line) => {
      rl.close();
      io.stderr.write('\n');
      resolve(line);
    });
  });
}
