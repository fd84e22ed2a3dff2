import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { assertBuilt } from '../support/repo.js';
import { callersFor } from '../support/callers.js';
import { findLeaks } from '../support/hygiene.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const FILE_SECRET = 'kc-file-planted-4b8e21d0';
const PASSPHRASE = 'kc-passphrase-planted-93a1';
const BIG = Array.from({ length: 16 * 1024 }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');

describe('secret stores through the CLI and a real broker', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli, credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      'profiles:\n  - name: big\n    provider: static\n  - name: filed\n    provider: static\n    secretStore: encrypted-file\n  - name: filed2\n    provider: static\n    secretStore: encrypted-file\n',
    );
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('keeps a 16 KB value in the keychain and serves it whole', async () => {
    const stored = await cli(['secret', 'set', 'big', 'token'], BIG);
    expect(stored.code, stored.stderr).toBe(0);
    const answer = await credential('big');
    expect(answer.code, answer.stderr).toBe(0);
    expect(JSON.parse(answer.stdout).status.token).toBe(BIG);
    const listed = await cli(['secret', 'list', 'big']);
    expect(listed.stdout).toBe('token\n');
    expect(listed.stderr).toContain('in the keychain');
  });

  it('asks for the passphrase of a locked encrypted file by naming the command, then serves from it', async () => {
    const locked = await cli(['secret', 'set', 'filed', 'token'], FILE_SECRET);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain('the encrypted-file secret store is locked');
    expect(locked.stderr).toContain('Run: kubecred unlock');
    const created = await cli(['unlock'], PASSPHRASE);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('created a new encrypted secret file');
    expect((await cli(['secret', 'set', 'filed', 'token'], FILE_SECRET)).code).toBe(0);
    expect((await cli(['secret', 'set', 'filed2', 'token'], 'second')).code).toBe(0);
    const answer = await credential('filed');
    expect(JSON.parse(answer.stdout).status.token).toBe(FILE_SECRET);
    const file = await readFile(path.join(home.dir, 'state', 'secrets.enc'), 'utf8');
    expect(file).not.toContain(FILE_SECRET);
  });

  it('forgets everything on lock: the next request says to unlock; a wrong passphrase is refused', async () => {
    expect((await cli(['lock'])).code).toBe(0);
    const afterLock = await credential('filed2');
    expect(afterLock.code).toBe(1);
    expect(afterLock.stdout).toBe('');
    expect(afterLock.stderr).toContain('kubecred unlock');
    const wrong = await cli(['unlock'], 'not-the-passphrase');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('wrong passphrase');
    expect((await cli(['unlock'], PASSPHRASE)).stderr).toContain('unlocked');
    expect(JSON.parse((await credential('filed2')).stdout).status.token).toBe('second');
  });

  it("never shows a planted secret or passphrase in files, logs, or any process's argv", async () => {
    expect(
      await findLeaks([FILE_SECRET, PASSPHRASE, BIG.slice(0, 64)], { dir: home.dir, log: broker.output() }),
    ).toEqual([]);
  });
});
