import { describe, expect, it } from 'vitest';
import { routeOf, withRoute } from '../../../src/main/platform/outboundRoute.js';

describe('withRoute / routeOf: the route rides on the error', () => {
  it('is found on the error or along its causes, and the first route set stays', () => {
    const error = withRoute(withRoute(new Error('connect ECONNREFUSED'), 'directly (no HTTPS_PROXY is set)'), 'other');
    expect(routeOf(error)).toBe('directly (no HTTPS_PROXY is set)');
    expect(routeOf(new Error('wrapped', { cause: error }))).toBe('directly (no HTTPS_PROXY is set)');
    expect(routeOf(new Error('plain'))).toBeUndefined();
    expect(routeOf(undefined)).toBeUndefined();
  });
});
