import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeconfigLockedError, withKubeconfigLock } from '../../../src/main/kubeconfig/kubeconfigLock.js';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe("kubectl's kubeconfig lock (<file>.lock, O_EXCL)", () => {
  let dir: string;
  let a: string;
  let b: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-lock-'));
    a = path.join(dir, 'a');
    b = path.join(dir, 'b');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('holds a lock on every file while working and releases them, also after a failure', async () => {
    const seen = await withKubeconfigLock([b, a, a], async () => [
      await exists(`${a}.lock`),
      await exists(`${b}.lock`),
    ]);
    expect(seen).toEqual([true, true]);
    expect([await exists(`${a}.lock`), await exists(`${b}.lock`)]).toEqual([false, false]);
    await expect(withKubeconfigLock([a], async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await exists(`${a}.lock`)).toBe(false);
  });

  it('waits for another editor to let go', async () => {
    await writeFile(`${a}.lock`, '');
    setTimeout(() => void rm(`${a}.lock`), 150);
    const started = Date.now();
    await withKubeconfigLock([a], async () => undefined, { timeoutMs: 5_000, pollMs: 10 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('gives up naming the lock file, leaves the other editor its lock, and releases what it took', async () => {
    await writeFile(`${b}.lock`, '');
    const error = await withKubeconfigLock([a, b], async () => 'never', { timeoutMs: 100, pollMs: 10 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeconfigLockedError);
    expect((error as Error).message).toContain(`${b}.lock exists`);
    expect(await exists(`${b}.lock`)).toBe(true);
    expect(await exists(`${a}.lock`)).toBe(false);
  });
});
