import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/main/core/brokerError.js';
import { freePort } from '../../src/main/platform/freePort.js';
import { HttpSsoClient } from '../../src/main/providers/eks/ssoClient.js';
import { HttpStsClient } from '../../src/main/providers/eks/stsClient.js';

// A broken or lying STS / IAM Identity Center: every answer is an error that says what to do,
// quotes at most one printable line, and never carries the keys that signed the request.
const KEYS = {
  accessKeyId: 'AKIAEXAMPLEBROKEN001',
  secretAccessKey: 'brokenServerSecretKey/0123456789abcdefGHIJ',
  sessionToken: 'SessionTokenSentToAChainedRole+abc/def==',
};

describe('STS and SSO answering junk', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '' };

  beforeAll(async () => {
    server = createServer((_request, response) =>
      response.writeHead(answer.status, { 'content-type': 'text/xml', ...answer.headers }).end(answer.body),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const refusal = async (call: () => Promise<unknown>) => {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BrokerError);
    const said = `${(error as BrokerError).message} | ${(error as BrokerError).hint}`;
    expect(said).not.toContain(KEYS.secretAccessKey);
    expect(said).not.toContain(KEYS.sessionToken);
    expect(said).not.toMatch(/[\u0000-\u001f\u007f]/);
    return said;
  };
  const assume = () =>
    new HttpStsClient({ url: new URL(url), region: 'eu-west-1' }, () => Date.now()).assumeRole(KEYS, {
      roleArn: 'arn:aws:iam::123456789012:role/x',
      roleSessionName: 'kc',
    });

  it('STS: HTML, an empty 200, an echo of the session token with escapes, a huge body, a dead port', async () => {
    answer = { status: 502, body: '<html><body>Bad Gateway</body></html>' };
    expect(await refusal(assume)).toMatch(
      /^STS refused AssumeRole: HTTP 502 \| check the profile's role, region and stsEndpoint$/,
    );
    answer = { status: 200, body: '' };
    expect(await refusal(assume)).toMatch(/STS answered AssumeRole without credentials \| .*does not look like STS/);
    answer = {
      status: 403,
      body: `<ErrorResponse><Error><Code>AccessDenied</Code><Message>\u001b[31mtoken ${KEYS.sessionToken} secret ${KEYS.secretAccessKey}\n\u0007next line</Message></Error></ErrorResponse>`,
    };
    expect(await refusal(assume)).toMatch(
      /^STS refused AssumeRole: AccessDenied: .*token \[redacted\] secret \[redacted\] next line \|/,
    );
    answer = { status: 200, body: `<x>${'A'.repeat(300_000)}</x>` };
    expect(await refusal(assume)).toMatch(/STS answered AssumeRole with 300007 bytes/);
    const port = await freePort();
    const dead = new HttpStsClient({ url: new URL(`http://127.0.0.1:${port}/`), region: 'eu-west-1' }, () =>
      Date.now(),
    );
    expect(await refusal(() => dead.getSessionToken(KEYS, {}))).toMatch(
      new RegExp(
        `STS at http://127.0.0.1:${port} did not answer GetSessionToken \\(ECONNREFUSED: nothing listens on that port\\)`,
      ),
    );
  });

  it('refuses plain http beyond loopback before sending anything', () => {
    expect(() => new HttpStsClient({ url: new URL('http://sts.example.com/'), region: 'eu-west-1' }, () => 0)).toThrow(
      /is not https/,
    );
  });

  it('SSO: junk JSON, an error type with escapes, credentials without an expiry', async () => {
    const sso = new HttpSsoClient({ AWS_ENDPOINT_URL_SSO: url, AWS_ENDPOINT_URL_SSO_OIDC: url });
    answer = { status: 200, body: 'not json' };
    expect(await refusal(() => sso.registerClient('eu-west-1', []))).toMatch(
      /IAM Identity Center refused RegisterClient: HTTP 200/,
    );
    answer = {
      status: 400,
      body: JSON.stringify({ error: 'invalid_grant', error_description: '\u001b]2;pwned\u0007gone' }),
      headers: { 'x-amzn-errortype': 'InvalidGrantException:http://internal' },
    };
    expect(await refusal(() => sso.createToken('eu-west-1', { clientId: 'c', clientSecret: 's' }, 'd'))).toMatch(
      /refused CreateToken: InvalidGrantException: gone \|/,
    );
    answer = {
      status: 200,
      body: JSON.stringify({
        roleCredentials: { accessKeyId: 'A', secretAccessKey: KEYS.secretAccessKey, sessionToken: 'T' },
      }),
    };
    expect(await refusal(() => sso.getRoleCredentials('eu-west-1', 'token', '1', 'R'))).toMatch(
      /refused GetRoleCredentials: HTTP 200/,
    );
  });
});
