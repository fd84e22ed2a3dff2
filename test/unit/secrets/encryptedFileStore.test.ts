import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NoUi } from '../../../src/main/ui/noUi.js';
import type { SecretPromptPort } from '../../../src/main/core/uiPorts.js';
import { EncryptedFileStore } from '../../../src/main/secrets/encryptedFile/encryptedFileStore.js';

const FAST_KDF = { N: 1024, r: 8, p: 1 };
const SECRET = 'planted-file-secret-7c2e9a';
const ref = { profile: 'prod', field: 'token' };

function scriptedUi(answers: Array<string | null>): SecretPromptPort & { asked: number } {
  const ui = {
    asked: 0,
    askPin: async () => null,
    askPassphrase: async () => {
      ui.asked++;
      return answers.shift() ?? null;
    },
  };
  return ui;
}

describe('EncryptedFileStore', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-efs-'));
    file = path.join(dir, 'state', 'secrets.enc');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('creates the file on first unlock, round-trips secrets, and never writes them in plaintext', async () => {
    const store = new EncryptedFileStore(file, new NoUi(), FAST_KDF);
    expect(await store.unlock('correct horse')).toEqual({ created: true });
    await store.set(ref, SECRET);
    await store.set({ profile: 'prod', field: 'client-key' }, 'k');
    await store.set({ profile: 'dev', field: 'token' }, 'd');
    expect(await store.get(ref)).toBe(SECRET);
    expect(await store.list('prod')).toEqual(['client-key', 'token']);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('prod/token');
    // File modes are POSIX: on Windows the home's ACL (ownerOnlyAcl) keeps other users out.
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(path.dirname(file))).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const reopened = new EncryptedFileStore(file, new NoUi(), FAST_KDF);
    expect(await reopened.unlock('correct horse')).toEqual({ created: false });
    expect(await reopened.get(ref)).toBe(SECRET);
    expect(await reopened.delete(ref)).toBe(true);
    expect(await reopened.delete(ref)).toBe(false);
  });

  it('refuses a wrong passphrase with a clear error and leaves the file as it was', async () => {
    await new EncryptedFileStore(file, new NoUi(), FAST_KDF).unlock('right');
    const before = await readFile(file, 'utf8');
    await expect(new EncryptedFileStore(file, new NoUi()).unlock('wrong')).rejects.toMatchObject({
      code: 'locked',
      message: expect.stringContaining('wrong passphrase'),
      hint: 'try again: kubecred unlock',
    });
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('detects a tampered body and a weakened header', async () => {
    const store = new EncryptedFileStore(file, new NoUi(), FAST_KDF);
    await store.unlock('pw');
    await store.set(ref, SECRET);
    const sealed = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...sealed, data: Buffer.from('x'.repeat(40)).toString('base64') }));
    await expect(new EncryptedFileStore(file, new NoUi()).unlock('pw')).rejects.toMatchObject({ code: 'locked' });
    await writeFile(file, JSON.stringify({ ...sealed, kdf: { ...sealed.kdf, p: 2 } }));
    await expect(new EncryptedFileStore(file, new NoUi()).unlock('pw')).rejects.toMatchObject({ code: 'locked' });
    await writeFile(file, 'garbage');
    await expect(new EncryptedFileStore(file, new NoUi()).unlock('pw')).rejects.toMatchObject({
      code: 'secret-store-unavailable',
      message: expect.stringContaining('is damaged'),
    });
    expect(await readFile(file, 'utf8')).toBe('garbage');
  });

  it('asks the UI once for the passphrase when locked, and says what to run when nobody can answer', async () => {
    await new EncryptedFileStore(file, new NoUi(), FAST_KDF).unlock('pw');
    const ui = scriptedUi(['pw']);
    const store = new EncryptedFileStore(file, ui);
    expect(await store.get(ref)).toBeUndefined();
    expect(await store.get(ref)).toBeUndefined();
    expect(ui.asked).toBe(1);
    store.lock();
    expect(store.isUnlocked).toBe(false);
    await expect(new EncryptedFileStore(file, new NoUi()).get(ref)).rejects.toMatchObject({
      code: 'locked',
      hint: 'run: kubecred unlock',
    });
    await expect(new EncryptedFileStore(file, scriptedUi([null])).get(ref)).rejects.toThrow('prompt was cancelled');
  });

  it('serialises concurrent writes so none is lost', async () => {
    const store = new EncryptedFileStore(file, new NoUi(), FAST_KDF);
    await store.unlock('pw');
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set({ profile: 'p', field: `f${i}` }, String(i))));
    const reopened = new EncryptedFileStore(file, new NoUi());
    await reopened.unlock('pw');
    expect((await reopened.list('p')).length).toBe(20);
  });
});
