import { describe, expect, it } from 'vitest';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';
import { upstreamProxy } from '../../../src/main/proxy/upstreamProxy.js';

const cluster = { name: 'prod', port: 47011, server: 'https://api.corp.example:6443' };

/** A keychain that counts its reads: a profile that needs no password must cost none. */
function keychain(password: string | undefined) {
  const reads: string[] = [];
  return { reads, read: async () => (reads.push('read'), password) };
}

describe("kubecred-proxy's upstream proxy for a profile", () => {
  it("hands over the profile's own proxyUrl, and the kept password where it names a user only", async () => {
    const kept = keychain('kept-pw-1');
    const none = proxySettings({});
    expect(await upstreamProxy({ ...cluster, proxyUrl: 'http://carol@proxy.corp:3128' }, none, kept.read)).toEqual({
      url: 'http://carol@proxy.corp:3128',
      password: 'kept-pw-1',
    });
    // No user in it: no password read, the URL alone.
    const unread = keychain('kept-pw-1');
    expect(await upstreamProxy({ ...cluster, proxyUrl: 'http://proxy.corp:3128' }, none, unread.read)).toEqual({
      url: 'http://proxy.corp:3128',
    });
    expect(unread.reads).toHaveLength(0);
    // A user and nothing kept: the URL, and kubecred-proxy tells which command keeps the password.
    expect(
      await upstreamProxy({ ...cluster, proxyUrl: 'http://carol@proxy.corp:3128' }, none, keychain(undefined).read),
    ).toEqual({ url: 'http://carol@proxy.corp:3128' });
  });

  it("the profile's proxyUrl wins over the environment's, whose NO_PROXY does not apply to it", async () => {
    const environment = proxySettings({ HTTPS_PROXY: 'http://other:pw@egress:8080', NO_PROXY: '.corp.example' });
    expect(
      await upstreamProxy({ ...cluster, proxyUrl: 'http://proxy.corp:3128' }, environment, keychain('x').read),
    ).toEqual({ url: 'http://proxy.corp:3128' });
  });

  it("with no proxyUrl: the environment's proxy as it is, with the kept password for a user-only URL", async () => {
    const kept = keychain('kept-pw-2');
    expect(await upstreamProxy(cluster, proxySettings({ HTTPS_PROXY: 'http://carol@egress:8080' }), kept.read)).toEqual(
      {
        password: 'kept-pw-2',
      },
    );
    // The environment's URL has its password, sends the cluster direct, or there is none: nothing to add.
    for (const env of [
      { HTTPS_PROXY: 'http://carol:inline@egress:8080' },
      { HTTPS_PROXY: 'http://carol@egress:8080', NO_PROXY: '.corp.example' },
      {},
    ]) {
      const unread = keychain('kept-pw-2');
      expect(await upstreamProxy(cluster, proxySettings(env), unread.read)).toBeUndefined();
      expect(unread.reads).toHaveLength(0);
    }
  });
});
