import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/main/config/configLoader.js';

const FILE = '/home/u/.config/kubecred/config.yaml';

describe('parseConfig', () => {
  it('accepts the smallest static profile exactly as documented', () => {
    const result = parseConfig('profiles:\n  - name: demo\n    provider: static\n', FILE);
    expect(result).toEqual({
      ok: true,
      config: {
        secretStore: 'keychain',
        tokens: [],
        profiles: [{ name: 'demo', provider: 'static', approval: 'never' }],
      },
    });
  });

  it('fills the exec profile defaults and accepts the documented shape', () => {
    const result = parseConfig(
      'profiles:\n  - name: wrapped\n    provider: exec\n    command: /path/to/plugin\n    apiVersion: client.authentication.k8s.io/v1\n',
      FILE,
    );
    expect(result.ok && result.config.profiles[0]).toMatchObject({
      command: '/path/to/plugin',
      args: [],
      env: [],
      ttl: '5m',
      timeout: '60s',
    });
  });

  it('accepts exec env as a kubeconfig list or a map', () => {
    const list = parseConfig(
      'profiles:\n  - {name: a, provider: exec, command: x, env: [{name: K, value: v}]}\n',
      FILE,
    );
    const map = parseConfig('profiles:\n  - {name: a, provider: exec, command: x, env: {K: v}}\n', FILE);
    expect(list.ok && list.config.profiles[0]).toMatchObject({ env: [{ name: 'K', value: 'v' }] });
    expect(map.ok && map.config.profiles[0]).toMatchObject({ env: [{ name: 'K', value: 'v' }] });
  });

  it('names the file, line and field of a bad value', () => {
    const result = parseConfig('# my profiles\nprofiles:\n  - name: demo\n    provider: magic\n', FILE);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(new RegExp(`^${FILE} line 4, profiles\\[0\\]\\.provider: `));
  });

  it('names an unknown field at its own line', () => {
    const result = parseConfig('profiles:\n  - name: demo\n    provider: static\n    tokn: x\n', FILE);
    expect(!result.ok && result.error).toContain('line 4, profiles[0]: unknown key "tokn"');
  });

  it("says what a typo meant, one problem per line, without the schema library's words (new-user finding 16)", () => {
    const result = parseConfig(
      'profiles:\n  - name: a\n    provder: static\n  - name: b\n    provider: static\n    aproval: never\n  - name: c\n    provider: statc\ntokns: []\n',
      FILE,
    );
    const lines = (!result.ok && result.error ? result.error : '').split('\n');
    expect(lines).toEqual([
      `${FILE} line 3, profiles[0]: unknown key "provder" (did you mean "provider"?); provider is one of static, exec, oidc, keystone, eks`,
      `${FILE} line 6, profiles[1]: unknown key "aproval" (did you mean "approval"?)`,
      `${FILE} line 8, profiles[2].provider: provider "statc" is not one of static, exec, oidc, keystone, eks`,
      `${FILE} line 9: unknown key "tokns" (did you mean "tokens"?)`,
    ]);
    expect(result.ok || result.error).not.toMatch(/discriminator|Unrecognized/);
  });

  it('says what is wrong with a value in plain words, each unknown key at its own line (new-user finding 16)', () => {
    const result = parseConfig(
      'profiles:\n  - name: sso\n    provider: oidc\n    issuer: id.example.com\n  - name: b\n    provider: static\n    approval: sometimes\n    tokn: x\n    secretstore: keychain\n',
      FILE,
    );
    const lines = (!result.ok && result.error ? result.error : '').split('\n');
    expect(lines).toEqual([
      `${FILE} line 4, profiles[0].issuer: issuer "id.example.com" is not a full URL: write it like https://id.example.com`,
      `${FILE} line 2, profiles[0].clientId: clientId is missing`,
      `${FILE} line 7, profiles[1].approval: approval "sometimes" is not one of never, once-per-process, always`,
      `${FILE} line 8, profiles[1]: unknown key "tokn"`,
      `${FILE} line 9, profiles[1]: unknown key "secretstore" (did you mean "secretStore"?)`,
    ]);
    const more = parseConfig(
      'profiles:\n  - name: 5\n    provider: exec\n    command: /bin/true\n    args: get-token\n',
      FILE,
    );
    expect(!more.ok && more.error.split('\n')).toEqual([
      `${FILE} line 2, profiles[0].name: name should be text, not the number 5`,
      `${FILE} line 5, profiles[0].args: args should be a list, not "get-token"`,
    ]);
    expect(`${!result.ok && result.error}\n${!more.ok && more.error}`).not.toMatch(
      /Invalid|expected|received|Unrecognized|discriminator/,
    );
  });

  it('reports a YAML syntax error with its line', () => {
    const result = parseConfig('profiles:\n  - name: demo\n   provider: [static\n', FILE);
    expect(!result.ok && result.error).toMatch(/line \d+: not valid YAML/);
  });

  it('rejects duplicate profile names and bad durations', () => {
    const dup = parseConfig('profiles:\n  - {name: a, provider: static}\n  - {name: a, provider: static}\n', FILE);
    expect(!dup.ok && dup.error).toContain('line 3, profiles[1].name: profile "a" is defined twice');
    const ttl = parseConfig('profiles:\n  - {name: a, provider: exec, command: x, ttl: soon}\n', FILE);
    expect(!ttl.ok && ttl.error).toContain('a duration looks like');
  });

  it('treats an empty file as no profiles', () => {
    expect(parseConfig('', FILE)).toEqual({ ok: true, config: { secretStore: 'keychain', tokens: [], profiles: [] } });
  });

  it('rejects profile names that could not be a file or keychain name', () => {
    const result = parseConfig('profiles:\n  - {name: "../etc", provider: static}\n', FILE);
    expect(!result.ok && result.error).toContain('profiles[0].name');
  });
});

// Issue 15: a profile reached through kubecred-proxy.
describe("a profile's proxy:", () => {
  const tokens = 'tokens:\n  - { name: card, module: /usr/lib/softhsm/libsofthsm2.so, label: kc }\n';
  const proxied = (name: string, proxy: string, certificate = 'tokenCertificate: { token: card, label: tls }, ') =>
    `  - { name: ${name}, provider: static, ${certificate}proxy: ${proxy} }\n`;

  it('accepts a port, the real server, its CA and headers', () => {
    const result = parseConfig(
      `${tokens}profiles:\n${proxied('prod', '{ port: 47011, server: "https://k8s.example:6443", caFile: /etc/k8s/ca.pem, headers: { X-Team: infra } }')}`,
      FILE,
    );
    expect(result.ok && result.config.profiles[0]).toMatchObject({
      proxy: {
        port: 47011,
        server: 'https://k8s.example:6443',
        caFile: '/etc/k8s/ca.pem',
        headers: { 'X-Team': 'infra' },
      },
    });
  });

  // Issue 33: every provider's credential can go upstream from the proxy; a guard rides on it.
  it('accepts a proxy on a profile of any provider, its own credential then going upstream', () => {
    const result = parseConfig(
      `profiles:\n${proxied('dev', '{ port: 47012, server: "https://k8s.example" }', '')}  - { name: sso, provider: oidc, issuer: "https://idp.example", clientId: k, proxy: { port: 47013, server: "https://k8s.example" } }\n`,
      FILE,
    );
    expect(result.ok && result.config.profiles.map((p) => p.proxy?.port)).toEqual([47012, 47013]);
  });

  it('reads "guard: read-only" as one read-only rule, and names every rule', () => {
    const result = parseConfig(
      `profiles:\n${proxied('prod', '{ port: 47011, server: "https://k8s.example" }, guard: read-only', '')}${proxied('stage', '{ port: 47012, server: "https://k8s.example" }, guard: { rules: [{ action: read-only }, { action: confirm, verbs: [delete], resources: [pods, "deployments.apps"] }, { name: no secrets, action: deny, resources: [secrets] }] }', '')}`,
      FILE,
    );
    expect(result.ok && result.config.profiles.map((p) => p.guard)).toEqual([
      { rules: [{ name: 'read-only', action: 'read-only' }] },
      {
        rules: [
          { name: 'read-only', action: 'read-only' },
          { name: 'confirm #2', action: 'confirm', verbs: ['delete'], resources: ['pods', 'deployments.apps'] },
          { name: 'no secrets', action: 'deny', resources: ['secrets'] },
        ],
      },
    ]);
  });

  it.each([
    [
      'a guard without a proxy to apply it',
      '  - { name: prod, provider: static, guard: read-only }\n',
      'a guard works through the exec proxy',
    ],
    [
      'a guard rule with an action it does not know',
      proxied('prod', '{ port: 47011, server: "https://k8s.example" }, guard: { rules: [{ action: allow }] }', ''),
      'a guard rule action is read-only, confirm or deny',
    ],
    [
      'a guard rule with a verb the API does not have',
      proxied(
        'prod',
        '{ port: 47011, server: "https://k8s.example" }, guard: { rules: [{ action: deny, verbs: [remove] }] }',
        '',
      ),
      'a verb is one of',
    ],
    [
      'two profiles of different providers on one port',
      proxied('a', '{ port: 47011, server: "https://a.example" }') +
        '  - { name: b, provider: oidc, issuer: "https://idp.example", clientId: k, proxy: { port: 47011, server: "https://b.example" } }\n',
      'port 47011 is the proxy port of profile "a" too',
    ],
    ['a plain http server', proxied('prod', '{ port: 47011, server: "http://k8s.example" }'), 'https:// URL'],
    ['a privileged port', proxied('prod', '{ port: 443, server: "https://k8s.example" }'), 'profiles[0].proxy.port'],
    [
      'two profiles on one port',
      proxied('a', '{ port: 47011, server: "https://a.example" }') +
        proxied('b', '{ port: 47011, server: "https://b.example" }'),
      'port 47011 is the proxy port of profile "a" too',
    ],
    [
      'a header name that could split a request',
      proxied('prod', '{ port: 47011, server: "https://k8s.example", headers: { "X-A\\r\\nHost": x } }'),
      'profiles[0].proxy.headers',
    ],
  ])('refuses %s', (_what, profiles, said) => {
    const result = parseConfig(`${tokens}profiles:\n${profiles}`, FILE);
    expect(!result.ok && result.error).toContain(said);
  });
});
