import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createServer, request, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { signedPostHeaders, uriEncode, type AwsCredentials } from '../../src/main/providers/eks/sigv4.js';
import { xmlText } from '../../src/main/providers/eks/stsClient.js';
import { stopChild } from '../../src/main/demo/realApiServer.js';

/** One request as it reached the front: the form body, byte for byte, and what was answered. */
export interface StsCall {
  readonly action: string;
  readonly body: string;
  readonly params: URLSearchParams;
  readonly status: number;
  readonly answer: string;
}

export interface MotoSts {
  /** The front every profile and the aws CLI point at (plain http on loopback). */
  readonly url: string;
  readonly calls: StsCall[];
  /** An IAM user with keys, allowed to assume `roles` and to call GetSessionToken. */
  iamUser(name: string, roles: readonly string[]): Promise<AwsCredentials>;
  /**
   * STAND-IN: moto accepts any MFA code; while set, a request whose TokenCode differs is
   * answered here, with STS's own error for a wrong code, and never reaches moto.
   */
  expectMfaCode(code: string | undefined): void;
  /** The next request with this body is answered with `answer` instead of moto (see the oracle tests). */
  replayOnce(body: string, answer: string): void;
  count(action: string): number;
  stop(): Promise<void>;
}

const ADMIN_POLICY = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
});
const WRONG_MFA =
  '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>MultiFactorAuthentication failed with invalid MFA one time pass code. </Message></Error><RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ErrorResponse>';

/**
 * moto's server mode as STS and IAM, with IAM enforcement on: signatures are checked and
 * AssumeRole is refused to a user no policy allows, as AWS does. In front of it, a small
 * recorder that keeps every request's body (the oracle tests compare them with the aws
 * CLI's) and forwards it with its Host header untouched (the signature covers it).
 */
export async function startMotoSts(
  options: {
    /** Serve the front over TLS, as STS is served (a proxy then sees a CONNECT, not the request). */
    readonly tls?: { readonly certPem: string; readonly keyPem: string };
  } = {},
): Promise<MotoSts> {
  // The first three actions need no signature: they make the admin that signs the rest.
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, INITIAL_NO_AUTH_ACTION_COUNT: '3' },
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', () => reject(new Error(`moto_server exited: ${output}`)));
    setTimeout(() => reject(new Error(`moto_server did not start in 30 s: ${output}`)), 30_000).unref();
  });
  const calls: StsCall[] = [];
  let mfaCode: string | undefined;
  const replays = new Map<string, string>();
  const onRequest: RequestListener = (incoming, outgoing) => {
    void readBody(incoming).then(async (body) => {
      const params = new URLSearchParams(body);
      const action = params.get('Action') ?? '';
      const record = (status: number, answer: string) => {
        calls.push({ action, body, params, status, answer });
        outgoing.writeHead(status, { 'content-type': 'text/xml' }).end(answer);
      };
      const replay = replays.get(body);
      if (replay !== undefined) return (replays.delete(body), record(200, replay));
      if (mfaCode !== undefined && params.has('TokenCode') && params.get('TokenCode') !== mfaCode)
        return record(403, WRONG_MFA);
      const answer = await forward(port, incoming, body);
      record(answer.status, answer.body);
    });
  };
  const front: Server = options.tls
    ? createTlsServer({ cert: options.tls.certPem, key: options.tls.keyPem }, onRequest)
    : createServer(onRequest);
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(front.address() as AddressInfo).port}/`;
  const iam = (keys: AwsCredentials, params: Record<string, string>) =>
    signedCall(`http://127.0.0.1:${port}/`, 'iam', keys, { ...params, Version: '2010-05-08' });
  const bootstrap = { accessKeyId: 'AKIABOOTSTRAP0000000', secretAccessKey: 'bootstrap' };
  await iam(bootstrap, { Action: 'CreateUser', UserName: 'admin' });
  const adminKeys = keysOf(await iam(bootstrap, { Action: 'CreateAccessKey', UserName: 'admin' }));
  await iam(bootstrap, { Action: 'PutUserPolicy', UserName: 'admin', PolicyName: 'all', PolicyDocument: ADMIN_POLICY });
  return {
    url,
    calls,
    async iamUser(name, roles) {
      await iam(adminKeys, { Action: 'CreateUser', UserName: name });
      const keys = keysOf(await iam(adminKeys, { Action: 'CreateAccessKey', UserName: name }));
      const statements = [
        { Effect: 'Allow', Action: 'sts:GetSessionToken', Resource: '*' },
        ...(roles.length ? [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: roles }] : []),
      ];
      await iam(adminKeys, {
        Action: 'PutUserPolicy',
        UserName: name,
        PolicyName: 'sts',
        PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: statements }),
      });
      return keys;
    },
    expectMfaCode: (code) => void (mfaCode = code),
    replayOnce: (body, answer) => void replays.set(body, answer),
    count: (action) => calls.filter((c) => c.action === action).length,
    stop: async () => {
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await stopChild(child);
    },
  };
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => (body += chunk));
    incoming.on('end', () => resolve(body));
    incoming.on('error', reject);
  });
}

function forward(port: number, incoming: IncomingMessage, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const out = request(
      { host: '127.0.0.1', port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        void readBody(answer).then((text) => resolve({ status: answer.statusCode ?? 0, body: text }), reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

async function signedCall(
  url: string,
  service: string,
  keys: AwsCredentials,
  params: Record<string, string>,
): Promise<string> {
  const body = Object.entries(params)
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .join('&');
  const { host: _host, ...headers } = signedPostHeaders({
    url: new URL(url),
    region: 'us-east-1',
    service,
    credentials: keys,
    body,
    contentType: 'application/x-www-form-urlencoded; charset=utf-8',
    now: Date.now(),
  });
  const answer = await fetch(url, { method: 'POST', headers, body });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`moto ${params.Action}: ${answer.status} ${text}`);
  return text;
}

function keysOf(createAccessKeyAnswer: string): AwsCredentials {
  return {
    accessKeyId: xmlText(createAccessKeyAnswer, 'AccessKeyId')!,
    secretAccessKey: xmlText(createAccessKeyAnswer, 'SecretAccessKey')!,
  };
}

/**
 * Who an EKS token names, as aws-iam-authenticator would have STS say: moto does not serve
 * presigned GetCallerIdentity, so the token's session keys are matched against the sessions
 * moto handed out (AssumeRole), and that session's role is the user.
 */
export function assumedRoleOf(moto: MotoSts, token: string): { username: string } | undefined {
  if (!token.startsWith('k8s-aws-v1.')) return undefined;
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());
  const keyId = url.searchParams.get('X-Amz-Credential')?.split('/')[0];
  const issued = moto.calls.find(
    (c) => c.action === 'AssumeRole' && c.status === 200 && xmlText(c.answer, 'AccessKeyId') === keyId,
  );
  const sessionToken = issued && xmlText(issued.answer, 'SessionToken');
  return issued && sessionToken === url.searchParams.get('X-Amz-Security-Token')
    ? { username: xmlText(issued.answer, 'Arn')! }
    : undefined;
}

/** The aws CLI's files in `dir`: alice's keys (an IAM user of `moto` allowed to assume `roles`), and `config`. */
export async function writeAwsFiles(
  dir: string,
  moto: MotoSts,
  roles: readonly string[],
  config: string,
): Promise<void> {
  const alice = await moto.iamUser('alice', roles);
  await writeFile(
    path.join(dir, 'aws-credentials'),
    `[alice]\naws_access_key_id = ${alice.accessKeyId}\naws_secret_access_key = ${alice.secretAccessKey}\n`,
  );
  await writeFile(path.join(dir, 'aws-config'), config);
}
