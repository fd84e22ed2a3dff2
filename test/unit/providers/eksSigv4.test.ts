import { describe, expect, it } from 'vitest';
import { EksProvider } from '../../../src/main/providers/eks/eksProvider.js';
import { eksToken } from '../../../src/main/providers/eks/eksToken.js';
import {
  amzDate,
  canonicalQueryString,
  canonicalRequest,
  EMPTY_BODY_SHA256,
  sha256Hex,
  signature,
  signingKey,
  stringToSign,
  uriEncode,
} from '../../../src/main/providers/eks/sigv4.js';
import { stsEndpointFor } from '../../../src/main/providers/eks/stsEndpoint.js';
import type { SecretStore } from '../../../src/main/core/secretStore.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';
import { offlineAwsSessions } from '../../support/offlineAwsSessions.js';

// The worked GET example of the AWS SigV4 documentation ("Create a signed AWS API request":
// IAM ListUsers, 2015-08-30T12:36:00Z, us-east-1) and its published intermediate values.
const DOC = {
  secret: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  canonicalRequest: [
    'GET',
    '/',
    'Action=ListUsers&Version=2010-05-08',
    'content-type:application/x-www-form-urlencoded; charset=utf-8',
    'host:iam.amazonaws.com',
    'x-amz-date:20150830T123600Z',
    '',
    'content-type;host;x-amz-date',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  ].join('\n'),
  canonicalRequestHash: 'f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59',
  signingKey: 'c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9',
  signature: '5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
};

describe('SigV4 against the AWS documentation example', () => {
  it('builds the canonical request, the string to sign, the signing key and the signature', () => {
    const request = canonicalRequest({
      method: 'get',
      path: '/',
      canonicalQuery: canonicalQueryString([
        ['Version', '2010-05-08'],
        ['Action', 'ListUsers'],
      ]),
      // Out of order, mixed case, padded: the canonical form sorts, lower-cases and trims.
      headers: {
        'X-Amz-Date': '20150830T123600Z',
        Host: 'iam.amazonaws.com',
        'Content-Type': '  application/x-www-form-urlencoded;   charset=utf-8 ',
      },
      payloadHash: EMPTY_BODY_SHA256,
    });
    expect(request.text).toBe(DOC.canonicalRequest);
    expect(request.signedHeaders).toBe('content-type;host;x-amz-date');
    expect(sha256Hex(request.text)).toBe(DOC.canonicalRequestHash);
    expect(sha256Hex('')).toBe(EMPTY_BODY_SHA256);
    const toSign = stringToSign('20150830T123600Z', '20150830/us-east-1/iam/aws4_request', request.text);
    expect(toSign).toBe(
      `AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n${DOC.canonicalRequestHash}`,
    );
    const key = signingKey(DOC.secret, '20150830', 'us-east-1', 'iam');
    expect(key.toString('hex')).toBe(DOC.signingKey);
    expect(signature(key, toSign)).toBe(DOC.signature);
  });

  it('encodes like Python quote(safe="-_.~") and formats whole-second timestamps', () => {
    expect(uriEncode("a/b+c=d e!'()*~._-")).toBe('a%2Fb%2Bc%3Dd%20e%21%27%28%29%2A~._-');
    expect(uriEncode('host;x-k8s-aws-id')).toBe('host%3Bx-k8s-aws-id');
    expect(amzDate(Date.parse('2026-01-02T03:04:05.999Z'))).toEqual({
      amzDate: '20260102T030405Z',
      dateStamp: '20260102',
    });
    expect(
      canonicalQueryString([
        ['b', '2'],
        ['a', '2'],
        ['a', '1'],
        ['B', '0'],
      ]),
    ).toBe('B=0&a=1&a=2&b=2');
  });
});

describe('EKS tokens', () => {
  const credentials = {
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    sessionToken: 'FwoGZXIvYXdzEXAMPLE/token+with=chars',
  };
  const at = Date.parse('2026-01-02T03:04:05.250Z');

  it('equals what aws-cli 1.45.11 printed at 2026-01-02 03:04:05 (faketime) for prod-cluster in eu-west-1', () => {
    // aws eks get-token --cluster-name prod-cluster --region eu-west-1, with the keys above in the environment.
    const cli =
      'k8s-aws-v1.aHR0cHM6Ly9zdHMuZXUtd2VzdC0xLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eSZWZXJzaW9uPTIwMTEtMDYtMTUmWC1BbXotQWxnb3JpdGhtPUFXUzQtSE1BQy1TSEEyNTYmWC1BbXotQ3JlZGVudGlhbD1BS0lBSU9TRk9ETk43RVhBTVBMRSUyRjIwMjYwMTAyJTJGZXUtd2VzdC0xJTJGc3RzJTJGYXdzNF9yZXF1ZXN0JlgtQW16LURhdGU9MjAyNjAxMDJUMDMwNDA1WiZYLUFtei1FeHBpcmVzPTYwJlgtQW16LVNpZ25lZEhlYWRlcnM9aG9zdCUzQngtazhzLWF3cy1pZCZYLUFtei1TZWN1cml0eS1Ub2tlbj1Gd29HWlhJdllYZHpFWEFNUExFJTJGdG9rZW4lMkJ3aXRoJTNEY2hhcnMmWC1BbXotU2lnbmF0dXJlPWFhY2RiNGE2ODI3ZDJiNmExMTMwYTEwMGRlZmVmZWY3YTEzOTNhZTZlMDI5MzhmYzY4MjdiZmU3Mzk5MGM3YzI';
    const made = eksToken({
      clusterId: 'prod-cluster',
      region: 'eu-west-1',
      endpoint: stsEndpointFor('eu-west-1'),
      credentials,
      now: at,
    });
    expect(made.token).toBe(cli);
    expect(made.expiresAt.toISOString()).toBe('2026-01-02T03:18:05.000Z');
    const url = Buffer.from(made.token.slice('k8s-aws-v1.'.length), 'base64url').toString();
    expect(url).toMatch(
      /^https:\/\/sts\.eu-west-1\.amazonaws\.com\/\?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256&.*&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id&X-Amz-Security-Token=.*&X-Amz-Signature=[0-9a-f]{64}$/,
    );
  });

  it("picks the regional STS endpoint of the region's partition", () => {
    expect(stsEndpointFor('us-east-1').href).toBe('https://sts.us-east-1.amazonaws.com/');
    expect(stsEndpointFor('us-gov-west-1').href).toBe('https://sts.us-gov-west-1.amazonaws.com/');
    expect(stsEndpointFor('cn-north-1').href).toBe('https://sts.cn-north-1.amazonaws.com.cn/');
    expect(stsEndpointFor('us-isob-east-1').href).toBe('https://sts.us-isob-east-1.sc2s.sgov.gov/');
  });

  function store(values: Record<string, string>): SecretStore {
    return {
      name: 'test keychain',
      get: async ({ field }) => values[field],
      set: async () => undefined,
      delete: async () => false,
      list: async () => [],
    };
  }
  const context = { profile: 'eks', cluster: undefined, interactive: false };
  const profile = {
    name: 'eks',
    provider: 'eks' as const,
    approval: 'never' as const,
    clusterId: 'prod-cluster',
    region: 'eu-west-1',
  };

  it('reads the keys from the store, trimmed, and stands for the access key by a hash', async () => {
    const provider = new EksProvider(profile, {
      store: async () =>
        store({
          'aws-access-key-id': `${credentials.accessKeyId}\n`,
          'aws-secret-access-key': credentials.secretAccessKey,
          'aws-session-token': `${credentials.sessionToken}\n`,
        }),
      clock: new FakeClock(at),
      sessions: offlineAwsSessions(new FakeClock(at)),
    });
    const credential = await provider.getCredential(context);
    expect(credential.token).toBe(
      eksToken({
        clusterId: 'prod-cluster',
        region: 'eu-west-1',
        endpoint: stsEndpointFor('eu-west-1'),
        credentials,
        now: at,
      }).token,
    );
    expect(credential.identity).toMatch(/^aws-access-key sha256:[0-9a-f]{16}$/);
    expect(credential.identity).not.toContain(credentials.accessKeyId);
  });

  it("uses the profile's stsEndpoint, port and all", async () => {
    const provider = new EksProvider(
      { ...profile, stsEndpoint: 'https://STS.example.test:8443' },
      {
        store: async () => store({ 'aws-access-key-id': 'AKID', 'aws-secret-access-key': 'secret' }),
        clock: new FakeClock(at),
        sessions: offlineAwsSessions(new FakeClock(at)),
      },
    );
    const { token } = await provider.getCredential(context);
    const url = new URL(Buffer.from(token!.slice('k8s-aws-v1.'.length), 'base64url').toString());
    expect(url.origin).toBe('https://sts.example.test:8443');
    expect(url.searchParams.has('X-Amz-Security-Token')).toBe(false);
  });

  it('names the missing keys and the commands that store them', async () => {
    const none = new EksProvider(profile, {
      store: async () => store({}),
      clock: new FakeClock(at),
      sessions: offlineAwsSessions(new FakeClock(at)),
    });
    await expect(none.getCredential(context)).rejects.toMatchObject({
      code: 'secret-missing',
      message: 'profile "eks" has no aws-access-key-id and no aws-secret-access-key in the test keychain',
      hint: expect.stringContaining(
        'kubecred secret set eks aws-access-key-id; kubecred secret set eks aws-secret-access-key',
      ),
    });
    const broken = new EksProvider(profile, {
      store: async () => store({ 'aws-access-key-id': 'AKID', 'aws-secret-access-key': 'half one' }),
      clock: new FakeClock(at),
      sessions: offlineAwsSessions(new FakeClock(at)),
    });
    await expect(broken.getCredential(context)).rejects.toMatchObject({
      code: 'secret-missing',
      message: expect.stringContaining('aws-secret-access-key in the test keychain is empty or contains white space'),
    });
    await expect(broken.getCredential(context)).rejects.not.toThrow('half one');
  });
});
