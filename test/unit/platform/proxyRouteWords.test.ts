import { describe, expect, it } from 'vitest';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';
import { proxyRouteWords, proxyVariablesWords } from '../../../src/main/platform/proxyRouteWords.js';

const PASSWORD = 'pr0xy-s3cret';
const route = (env: Record<string, string>, url: string) => proxyRouteWords(proxySettings(env), new URL(url));

describe('which way a request goes, in words', () => {
  it('names the proxy and the variable it came from, never its user or password', () => {
    const words = route({ https_proxy: `http://bob:${PASSWORD}@proxy.corp:3128` }, 'https://issuer.corp/realms/k8s');
    expect(words).toBe('through the proxy http://proxy.corp:3128 (from https_proxy)');
    expect(words).not.toContain(PASSWORD);
    expect(words).not.toContain('bob');
  });

  it('says which variable is missing for the scheme: HTTPS_PROXY alone does not send plain http', () => {
    expect(route({}, 'https://issuer.corp')).toBe('direct (no HTTPS_PROXY set)');
    expect(route({ HTTPS_PROXY: 'http://proxy:3128' }, 'http://sts.local:8080')).toBe('direct (no HTTP_PROXY set)');
  });

  it('says a loopback host never goes through a proxy, whatever NO_PROXY says', () => {
    expect(route({ HTTPS_PROXY: 'http://proxy:3128' }, 'https://127.0.0.1:8443')).toBe(
      'direct (a loopback host never goes through a proxy)',
    );
    expect(route({ HTTPS_PROXY: 'http://proxy:3128' }, 'https://localhost')).toBe(
      'direct (a loopback host never goes through a proxy)',
    );
  });

  it('names the NO_PROXY entry that matches (a domain, a subdomain rule, a CIDR, a port, *)', () => {
    const env = (noProxy: string) => ({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy });
    expect(route(env('example.org, corp'), 'https://issuer.corp')).toBe('direct (NO_PROXY matches corp)');
    expect(route(env('.other,.corp'), 'https://id.issuer.corp')).toBe('direct (NO_PROXY matches .corp)');
    expect(route(env('10.0.0.0/8'), 'https://10.1.2.3:6443')).toBe('direct (NO_PROXY matches 10.0.0.0/8)');
    expect(route(env('issuer.corp:443,issuer.corp:8443'), 'https://issuer.corp:8443')).toBe(
      'direct (NO_PROXY matches issuer.corp:8443)',
    );
    expect(route(env('*'), 'https://anything.example')).toBe('direct (NO_PROXY matches *)');
    // An entry for another port does not send it direct.
    expect(route(env('issuer.corp:8443'), 'https://issuer.corp')).toBe(
      'through the proxy http://proxy:3128 (from HTTPS_PROXY)',
    );
  });
});

describe('the proxy variables a wrapped plugin inherits, in words', () => {
  it('shows the proxies without their passwords and NO_PROXY as written; "none" when none is set', () => {
    const words = proxyVariablesWords(
      proxySettings({ HTTPS_PROXY: `http://bob:${PASSWORD}@proxy:3128`, NO_PROXY: '.corp,10.0.0.0/8' }),
    );
    expect(words).toBe('HTTPS_PROXY=http://proxy:3128, NO_PROXY=.corp,10.0.0.0/8');
    expect(proxyVariablesWords(proxySettings({}))).toBe('none');
  });
});
