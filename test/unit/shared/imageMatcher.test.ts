import { describe, expect, it } from 'vitest';
import {
  imageLocation,
  isValidMatcher,
  matchesImage,
  matchesRegistryServer,
} from '../../../src/shared/registry/imageMatcher.js';

// [matcher, image, matches]: the KEP-2133 examples first, then the edges.
const TABLE: ReadonlyArray<readonly [string, string, boolean]> = [
  // one glob, one DNS label
  ['*.kubernetes.io', 'abc.kubernetes.io', true],
  ['*.kubernetes.io', 'abc.def.kubernetes.io', false],
  ['*.*.kubernetes.io', 'abc.def.kubernetes.io', true],
  ['*.*.kubernetes.io', 'abc.kubernetes.io', false],
  ['prefix.*.io', 'prefix.kubernetes.io', true],
  ['*-good.kubernetes.io', 'prefix-good.kubernetes.io', true],
  ['*-good.kubernetes.io', 'prefix-bad.kubernetes.io', false],
  ['app*.k8s.io', 'app1.k8s.io/x', true],
  ['k8s.*', 'k8s.io/pause:3.9', true],
  ['*.k8s.io', 'k8s.io', false],
  ['*.k8s.io', 'registry.k8s.io/pause:3.9', true],
  ['*.io', 'abc.k8s.io', false],
  ['*.azurecr.io', 'myreg.azurecr.io/app:1', true],
  ['*.*.registry.io', 'a.b.registry.io/app', true],
  ['123456789.dkr.ecr.*.amazonaws.com', '123456789.dkr.ecr.eu-west-1.amazonaws.com/app:1', true],
  ['gcr.i?', 'gcr.io/p/app', true],
  ['gcr.i?', 'gcr.iox/p/app', false],
  ['registry-[0-9].example.com', 'registry-7.example.com/app', true],
  ['registry-[0-9].example.com', 'registry-x.example.com/app', false],
  ['registry-[^0-9].example.com', 'registry-x.example.com/app', true],
  // a port must be the same on both sides
  ['registry.io:8080/path', 'registry.io:8080/path/image:1', true],
  ['registry.io:8080', 'registry.io/app', false],
  ['registry.io', 'registry.io:8080/app', false],
  ['registry.io:8080', 'registry.io:8081/app', false],
  ['*.registry.io:5000', 'eu.registry.io:5000/app', true],
  // the matcher's path is a string prefix of the image's (as the kubelet compares them)
  ['registry.io/team', 'registry.io/team/app:1', true],
  ['registry.io/team', 'registry.io/other/app:1', false],
  ['registry.io/team', 'registry.io/teamster/app', true],
  ['registry.io/team/app', 'registry.io/team', false],
  ['registry.io/app', 'registry.io/app@sha256:0123abcd', true],
  // IP addresses: each octet is a label
  ['10.0.0.1:5000', '10.0.0.1:5000/app', true],
  ['10.0.0.*:5000', '10.0.0.7:5000/app', true],
  ['10.0.0.1', '10.0.0.10/app', false],
  ['10.0.0.1', '10.0.0.1:5000/app', false],
  ['[::1]:5000', '[::1]:5000/app', true],
  ['[::1]:5000', '[::2]:5000/app', false],
  ['[::1]', '[::1]:5000/app', false],
  ['localhost:5000', 'localhost:5000/app', true],
  ['localhost', 'localhost/app', true],
  // no registry host: Docker Hub
  ['docker.io', 'nginx', true],
  ['docker.io/library', 'nginx:1.25', true],
  ['docker.io/library', 'bitnami/redis', false],
  ['docker.io/bitnami', 'bitnami/redis:7', true],
  ['*.io', 'nginx', true],
  ['quay.io', 'nginx', false],
  // hosts compare case-insensitively, and a scheme is ignored
  ['Registry.IO', 'registry.io/app', true],
  ['registry.io', 'https://registry.io/app', true],
];

describe('image matchers (KEP-2133 rules)', () => {
  it.each(TABLE)('%s ~ %s: %s', (matcher, image, expected) => {
    expect(isValidMatcher(matcher)).toBe(true);
    expect(matchesImage(matcher, image)).toBe(expected);
  });

  it('reads images without a registry host as Docker Hub', () => {
    expect(imageLocation('nginx')).toEqual({ host: 'docker.io', port: '', path: '/library/nginx' });
    expect(imageLocation('bitnami/redis:7')).toEqual({ host: 'docker.io', port: '', path: '/bitnami/redis:7' });
    expect(imageLocation('localhost/app')).toEqual({ host: 'localhost', port: '', path: '/app' });
    expect(imageLocation('[fd00::1]:5000/a')).toEqual({ host: '[fd00::1]', port: '5000', path: '/a' });
  });

  it.each([
    '',
    'nginx',
    'registry.io/pa*th',
    'registry.io:port',
    'k8s.[io',
    'reg istry.io',
    '*..io',
    'registry.io:123456',
  ])('refuses the matcher %j', (matcher) => {
    expect(isValidMatcher(matcher)).toBe(false);
  });

  it('never matches what is not an image', () => {
    expect(matchesImage('*.io', '')).toBe(false);
    expect(matchesImage('*.io', 'a b.io/x')).toBe(false);
  });

  it.each([
    ['127.0.0.1:5000', '127.0.0.1:5000', true],
    ['127.0.0.1:5000', 'https://127.0.0.1:5000', true],
    ['127.0.0.1:5000', '127.0.0.1:5001', false],
    ['docker.io', 'https://index.docker.io/v1/', true],
    ['registry.io/team', 'registry.io', true],
    ['*.registry.io', 'eu.registry.io', true],
    ['registry.io', 'registry.io:443', false],
  ] as const)('docker server URL: %s serves %s: %s', (matcher, server, expected) => {
    expect(matchesRegistryServer(matcher, server)).toBe(expected);
  });
});
