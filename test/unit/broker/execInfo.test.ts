import { describe, expect, it } from 'vitest';
import { parseExecInfo } from '../../../src/main/broker/execInfo.js';
import { BrokerError } from '../../../src/main/core/brokerError.js';

function errorOf(raw: string | null): BrokerError {
  try {
    parseExecInfo(raw);
  } catch (error) {
    return error as BrokerError;
  }
  throw new Error('expected an error');
}

describe('parseExecInfo', () => {
  it.each([
    'client.authentication.k8s.io/v1',
    'client.authentication.k8s.io/v1beta1',
    'client.authentication.k8s.io/v1alpha1',
  ])('accepts %s', (apiVersion) => {
    expect(parseExecInfo(JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: { interactive: true } }))).toEqual({
      apiVersion,
      interactive: true,
      cluster: undefined,
    });
  });

  it('reads spec.cluster, including the exec extension config', () => {
    const cluster = {
      server: 'https://k.example:6443',
      'certificate-authority-data': 'Q0E=',
      config: { region: 'eu' },
    };
    const info = parseExecInfo(
      JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        spec: { interactive: false, cluster },
      }) + '\n',
    );
    expect(info.cluster).toEqual(cluster);
  });

  it('refuses to guess when KUBERNETES_EXEC_INFO is missing', () => {
    const error = errorOf(null);
    expect(error.code).toBe('exec-info-invalid');
    expect(error.message).toContain('not set');
    expect(error.hint).toContain('KUBERNETES_EXEC_INFO=');
  });

  it.each([
    ['junk', '{not json', 'not valid JSON'],
    [
      'another kind',
      JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'Pod' }),
      'not an ExecCredential',
    ],
    [
      'an unknown version',
      JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v2', kind: 'ExecCredential', spec: {} }),
      'does not speak',
    ],
    ['no apiVersion', JSON.stringify({ kind: 'ExecCredential', spec: {} }), 'apiVersion'],
  ])('explains %s', (_name, raw, expected) => {
    const error = errorOf(raw);
    expect(error).toBeInstanceOf(BrokerError);
    expect(error.message).toContain(expected);
    expect(error.httpStatus).toBe(400);
  });
});

describe('parseExecInfo without exec info', () => {
  it('uses an explicit --api-version from the exec args', () => {
    expect(parseExecInfo(null, 'client.authentication.k8s.io/v1beta1')).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      interactive: false,
      cluster: undefined,
    });
  });
  it('prefers the exec info kubectl sent over the flag', () => {
    const raw = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: {} });
    expect(parseExecInfo(raw, 'client.authentication.k8s.io/v1beta1').apiVersion).toBe(
      'client.authentication.k8s.io/v1',
    );
  });
  it('rejects an unknown version in the flag', () => {
    expect(() => parseExecInfo(null, 'v1')).toThrow('--api-version asks for apiVersion "v1"');
  });
});
