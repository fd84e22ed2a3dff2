import { describe, expect, it } from 'vitest';
import { routeOf, routeWords, withRoute } from '../../../src/main/platform/outboundRoute.js';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';

describe('routeWords: how a request leaves the machine, in words', () => {
  const issuer = new URL('https://login.corp.example/realms/dev');

  it('names the proxy and its variable, never its password', () => {
    const words = routeWords(proxySettings({ https_proxy: 'http://bob:s3cret-pw@proxy.corp:3128' }), issuer);
    expect(words).toBe('through the proxy http://proxy.corp:3128 (from https_proxy)');
    expect(words).not.toContain('s3cret-pw');
  });

  it('says why a request goes direct: no proxy set, NO_PROXY, loopback', () => {
    expect(routeWords(proxySettings({}), issuer)).toBe('directly (no HTTPS_PROXY is set)');
    expect(routeWords(proxySettings({ HTTP_PROXY: 'http://p:1' }), new URL('http://a.test'))).toBe(
      'through the proxy http://p:1 (from HTTP_PROXY)',
    );
    expect(routeWords(proxySettings({ HTTP_PROXY: 'http://p:1' }), issuer)).toBe('directly (no HTTPS_PROXY is set)');
    expect(routeWords(proxySettings({ HTTPS_PROXY: 'http://p:1', NO_PROXY: '.corp.example' }), issuer)).toBe(
      'directly (NO_PROXY=.corp.example covers login.corp.example)',
    );
    expect(routeWords(proxySettings({ HTTPS_PROXY: 'http://p:1' }), new URL('https://127.0.0.1:6443'))).toBe(
      'directly (loopback never goes through a proxy)',
    );
  });
});

describe('withRoute / routeOf: the route rides on the error', () => {
  it('is found on the error or along its causes, and the first route set stays', () => {
    const error = withRoute(withRoute(new Error('connect ECONNREFUSED'), 'directly (no HTTPS_PROXY is set)'), 'other');
    expect(routeOf(error)).toBe('directly (no HTTPS_PROXY is set)');
    expect(routeOf(new Error('wrapped', { cause: error }))).toBe('directly (no HTTPS_PROXY is set)');
    expect(routeOf(new Error('plain'))).toBeUndefined();
    expect(routeOf(undefined)).toBeUndefined();
  });
});
