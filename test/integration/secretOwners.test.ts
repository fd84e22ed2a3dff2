import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWrappedBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { firstStatus, rawExchange } from '../support/rawSocket.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// I1 of the security review: DELETE /v1/secrets/<profile>/<field> reached a registry's login
// (owner "registry:<name>"), since the profile was never checked.
describe("the profile secrets route and a registry's login", () => {
  let home: TempHome;
  let broker: TestBroker;
  let secret: string;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    ({ broker, secret } = await startWrappedBroker(home.dir, 'wrapped-token'));
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it("refuses a name no profile can have, such as a registry's owner", async () => {
    const answer = await rawExchange(
      broker.socket,
      `DELETE /v1/secrets/registry%3Alab/password HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\nAccept: application/json\r\nContent-Length: 0\r\n\r\n`,
    );
    expect(firstStatus(answer)).toBe(404);
    expect(answer).toContain('is not a profile name');
  });

  it("still removes a profile's own secret, even one config.yaml no longer names", async () => {
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: kept, provider: static }\n  - { name: wrapped, provider: exec, command: /bin/true }\n`,
    );
    expect((await cli(['secret', 'set', 'kept', 'token'], 'kept-then-removed')).code).toBe(0);
    await writeConfig(home.dir, `profiles:\n  - { name: wrapped, provider: exec, command: /bin/true }\n`);
    const removed = await cli(['secret', 'rm', 'kept', 'token']);
    expect(removed.code, removed.stderr).toBe(0);
  });

  it("refuses to store a secret the profile's provider never reads, naming the ones it does (new-user finding 15)", async () => {
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: lab, provider: static }\n  - { name: wrapped, provider: exec, command: /bin/true }\n`,
    );
    const typo = await cli(['secret', 'set', 'lab', 'tokn'], 'never-stored');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      'profile "lab" (static) never reads a secret named "tokn". Its provider reads: token, client-certificate, client-key, proxy-password',
    );
    const exec = await cli(['secret', 'set', 'wrapped', 'token'], 'never-stored');
    expect(exec.code).toBe(1);
    expect(exec.stderr).toContain('keeps no secrets in Kubecred');
    expect((await cli(['secret', 'list', 'lab'])).stdout).not.toContain('tokn');
  });
});
