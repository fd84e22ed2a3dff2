import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { turnOnProxy, type ProxyToggleDeps } from '../../../src/main/kubeconfig/proxyToggle.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

// The window's "Turn on the exec proxy": every input it cannot use is refused with what to do,
// and nothing is written; the real journey (kubectl through the proxy after it) is in execProxy.test.ts.
describe('turning the exec proxy on from the kubeconfig as it is', () => {
  let dir: string;
  let deps: ProxyToggleDeps;
  const kubeconfig = () => path.join(dir, 'kubeconfig');
  const configFile = () => path.join(dir, 'config.yaml');
  const writeKubeconfig = (server: string, ca: Record<string, string>) =>
    writeFile(
      kubeconfig(),
      JSON.stringify({
        clusters: [{ name: 'real', cluster: { server, ...ca } }],
        users: [
          { name: 'u', user: { exec: { command: '/opt/kubecred/kubecred-shim', args: ['credential', 'card'] } } },
        ],
        contexts: [{ name: 'prod', context: { cluster: 'real', user: 'u' } }],
      }),
    );

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-proxy-toggle-'));
    await writeFile(
      configFile(),
      '# mine\ntokens:\n  - { name: yubikey, module: /usr/lib/softhsm/libsofthsm2.so, label: card }\nprofiles:\n  - name: card\n    provider: static\n    tokenCertificate: { token: yubikey, label: piv }\n  - name: plain\n    provider: static\n',
    );
    deps = {
      configFile: configFile(),
      caDir: path.join(dir, 'state', 'proxy-ca'),
      kubeconfigFiles: () => [kubeconfig()],
      backupDir: path.join(dir, 'backups'),
      shim: '/opt/kubecred/kubecred-shim',
      localCa: async () => CA,
      freePort: async () => 47123,
      logger,
      now: () => new Date('2026-11-27T10:00:00Z'),
    };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses a profile no context uses, an unknown one, and one already proxied, writing nothing', async () => {
    await writeKubeconfig('https://10.0.0.1:6443', {
      'certificate-authority-data': Buffer.from(CA).toString('base64'),
    });
    const before = await readFile(configFile(), 'utf8');
    await expect(turnOnProxy(deps, 'plain')).rejects.toMatchObject({
      hint: expect.stringContaining('kubecred install --profile plain --context'),
    });
    await expect(turnOnProxy(deps, 'nope')).rejects.toMatchObject({ code: 'unknown-profile' });
    expect(await readFile(configFile(), 'utf8')).toBe(before);
    await turnOnProxy(deps, 'card');
    await expect(turnOnProxy(deps, 'card')).rejects.toThrow('goes through the exec proxy already');
  });

  it('refuses when no context uses the profile, or its cluster is not https', async () => {
    await writeFile(kubeconfig(), JSON.stringify({ clusters: [], users: [], contexts: [] }));
    await expect(turnOnProxy(deps, 'card')).rejects.toMatchObject({
      hint: expect.stringContaining('kubecred install --profile card --context'),
    });
    await writeKubeconfig('http://10.0.0.1:8080', {});
    await expect(turnOnProxy(deps, 'card')).rejects.toThrow('not https://');
    expect(await readFile(configFile(), 'utf8')).not.toContain('proxy:');
  });

  it("keeps the port, writes an inline CA as a file, keeps config.yaml's comments, and points the context at the listener", async () => {
    await writeKubeconfig('https://10.0.0.1:6443', {
      'certificate-authority-data': Buffer.from(CA).toString('base64'),
    });
    expect(await turnOnProxy(deps, 'card')).toEqual({
      port: 47123,
      upstream: 'https://10.0.0.1:6443',
      contexts: ['prod'],
    });
    const config = await readFile(configFile(), 'utf8');
    expect(config).toContain('# mine');
    expect(config).toMatch(
      /proxy:[\s\S]*port: 47123[\s\S]*server: https:\/\/10\.0\.0\.1:6443[\s\S]*caFile: \S+proxy-ca[\\/]+card\.pem/,
    );
    expect(await readFile(path.join(dir, 'state', 'proxy-ca', 'card.pem'), 'utf8')).toBe(CA);
    const after = JSON.parse(JSON.stringify((await import('yaml')).parse(await readFile(kubeconfig(), 'utf8')))) as {
      clusters: Array<{ name: string; cluster: { server: string } }>;
      contexts: Array<{ name: string; context: { cluster: string } }>;
    };
    expect(after.contexts.find((c) => c.name === 'prod')?.context.cluster).toBe('kubecred-proxy-card');
    expect(after.clusters.find((c) => c.name === 'kubecred-proxy-card')?.cluster.server).toBe(
      'https://127.0.0.1:47123',
    );
    // The real cluster stays for any other context.
    expect(after.clusters.find((c) => c.name === 'real')?.cluster.server).toBe('https://10.0.0.1:6443');
  });

  // Issue 33: a profile without a key on a token: its own credential then goes upstream.
  it('turns the proxy on for a profile of any provider', async () => {
    await writeFile(
      kubeconfig(),
      JSON.stringify({
        clusters: [{ name: 'real', cluster: { server: 'https://10.0.0.2:6443' } }],
        users: [
          { name: 'p', user: { exec: { command: '/opt/kubecred/kubecred-shim', args: ['credential', 'plain'] } } },
        ],
        contexts: [{ name: 'dev', context: { cluster: 'real', user: 'p' } }],
      }),
    );
    expect(await turnOnProxy(deps, 'plain')).toEqual({
      port: 47123,
      upstream: 'https://10.0.0.2:6443',
      contexts: ['dev'],
    });
    expect(await readFile(configFile(), 'utf8')).toMatch(/name: plain[\s\S]*proxy:[\s\S]*port: 47123/);
  });
});
