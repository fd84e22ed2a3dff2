import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCredentialProcess } from '../../src/main/providers/eks/credentialProcess.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzPLANTEDKEY';

// A credential_process is a program of the user's: every way it can go wrong is an error that
// names it and says what to do, and the keys it prints never reach the words.
describe('credential_process as the aws CLI runs it', () => {
  let home: TempHome;
  const script = async (name: string, body: string) => {
    const file = path.join(home.dir, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o700);
    return file;
  };
  const refusal = async (line: string) => {
    const error = (await runCredentialProcess(line, 'credential_process of AWS profile "p"').catch(
      (e: Error) => e,
    )) as Error & { hint?: string };
    expect(error).toBeInstanceOf(Error);
    expect(`${error.message} ${error.hint}`).not.toContain(SECRET);
    return `${error.message} | ${error.hint}`;
  };

  beforeAll(async () => {
    home = await makeTempHome();
  });
  afterAll(async () => {
    await home?.cleanup();
  });

  it('reads Version 1 keys with a session token and an expiry; arguments split as shlex does', async () => {
    const file = await script(
      'ok',
      `[ "$1" = "--name" ] && [ "$2" = "a b" ] || exit 9\necho '{"Version": 1, "AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "${SECRET}", "SessionToken": "tok", "Expiration": "2030-01-02T03:04:05Z"}'`,
    );
    const keys = await runCredentialProcess(`${file} --name "a b"`, 'x');
    expect(keys).toEqual({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: SECRET,
      sessionToken: 'tok',
      expiresAt: new Date('2030-01-02T03:04:05Z'),
    });
  });

  it('says what went wrong, never echoing the keys', async () => {
    expect(await refusal(await script('fails', `echo "aws_secret_access_key=${SECRET} denied" >&2; exit 3`))).toMatch(
      /failed \(exit 3\): aws_secret_access_key=\[redacted\] denied \| run it by hand/,
    );
    expect(await refusal(await script('junk', `echo "not json ${SECRET}"`))).toMatch(/did not print JSON/);
    expect(
      await refusal(await script('v2', `echo '{"Version": 2, "AccessKeyId": "A", "SecretAccessKey": "${SECRET}"}'`)),
    ).toMatch(/printed JSON the aws CLI would refuse \(Version: /);
    expect(await refusal(await script('half', `echo '{"Version": 1, "SecretAccessKey": "${SECRET}"}'`))).toMatch(
      /AccessKeyId: /,
    );
    expect(await refusal(path.join(home.dir, 'missing'))).toMatch(/was not found \| install it/);
    expect(await refusal('"unterminated')).toMatch(/cannot be split into words \(no closing quotation\)/);
  });
});
