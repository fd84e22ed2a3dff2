import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4, the parts a presigned GET needs, written to match botocore
 * (SigV4Auth / SigV4QueryAuth in botocore/auth.py) byte for byte.
 */

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export const ALGORITHM = 'AWS4-HMAC-SHA256';
/** SHA-256 of the empty body: a GET signs that, not UNSIGNED-PAYLOAD (that is S3's presigning). */
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hmac(key: Buffer | string, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

/** The key chain: "AWS4" + secret, then date, region, service, "aws4_request". */
export function signingKey(secretAccessKey: string, dateStamp: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, dateStamp), region), service), 'aws4_request');
}

/**
 * Percent-encodes everything but the RFC 3986 unreserved characters, as Python's
 * quote(value, safe='-_.~') does; encodeURIComponent leaves !'()* alone, so those are added.
 */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** 20260102T030405Z and 20260102, from whole seconds (botocore formats with strftime, which drops the fraction). */
export function amzDate(epochMs: number): { amzDate: string; dateStamp: string } {
  const iso = new Date(Math.floor(epochMs / 1000) * 1000).toISOString();
  const compact = `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;
  return { amzDate: compact, dateStamp: compact.slice(0, 8) };
}

/** Encoded pairs, sorted by key then value (code point order, as Python sorts the tuples). */
export function canonicalQueryString(encodedPairs: readonly (readonly [string, string])[]): string {
  const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...encodedPairs]
    .sort(([ka, va], [kb, vb]) => byCodePoint(ka, kb) || byCodePoint(va, vb))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

export interface CanonicalRequestInput {
  readonly method: string;
  /** Already percent-encoded, e.g. "/". */
  readonly path: string;
  readonly canonicalQuery: string;
  /** Header names in any case; values are trimmed and inner runs of spaces collapsed. */
  readonly headers: Readonly<Record<string, string>>;
  readonly payloadHash: string;
}

export function canonicalRequest(input: CanonicalRequestInput): { text: string; signedHeaders: string } {
  const headers = Object.entries(input.headers)
    .map(([name, value]) => [name.toLowerCase().trim(), value.trim().split(/\s+/).join(' ')] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const signedHeaders = headers.map(([name]) => name).join(';');
  const text = [
    input.method.toUpperCase(),
    input.path,
    input.canonicalQuery,
    `${headers.map(([n, v]) => `${n}:${v}`).join('\n')}\n`,
    signedHeaders,
    input.payloadHash,
  ].join('\n');
  return { text, signedHeaders };
}

export function stringToSign(amz: string, credentialScope: string, canonicalRequestText: string): string {
  return [ALGORITHM, amz, credentialScope, sha256Hex(canonicalRequestText)].join('\n');
}

export function signature(key: Buffer, toSign: string): string {
  return createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
}

export interface PresignInput {
  /** The endpoint and path, e.g. https://sts.eu-west-1.amazonaws.com/. */
  readonly url: URL;
  readonly region: string;
  readonly service: string;
  readonly credentials: AwsCredentials;
  /** The operation's parameters, in the order botocore serializes them. */
  readonly params: readonly (readonly [string, string])[];
  /** Headers to sign besides host (the client must send them). */
  readonly headers: Readonly<Record<string, string>>;
  readonly expiresSeconds: number;
  readonly now: number;
}

/**
 * A presigned GET URL: operation parameters, then the X-Amz-* parameters (in botocore's
 * order; the session token is signed too), then X-Amz-Signature last.
 */
export function presignUrl(input: PresignInput): string {
  const { amzDate: amz, dateStamp } = amzDate(input.now);
  const credentialScope = `${dateStamp}/${input.region}/${input.service}/aws4_request`;
  const headers: Record<string, string> = { host: input.url.host, ...input.headers };
  const signedHeaderNames = Object.keys(headers)
    .map((n) => n.toLowerCase())
    .sort()
    .join(';');
  const auth: [string, string][] = [
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Credential', `${input.credentials.accessKeyId}/${credentialScope}`],
    ['X-Amz-Date', amz],
    ['X-Amz-Expires', String(input.expiresSeconds)],
    ['X-Amz-SignedHeaders', signedHeaderNames],
  ];
  if (input.credentials.sessionToken !== undefined) auth.push(['X-Amz-Security-Token', input.credentials.sessionToken]);
  const encoded = [...input.params, ...auth].map(([k, v]) => [uriEncode(k), uriEncode(v)] as const);
  const query = encoded.map(([k, v]) => `${k}=${v}`).join('&');
  const path = input.url.pathname === '' ? '/' : input.url.pathname;
  const request = canonicalRequest({
    method: 'GET',
    path,
    canonicalQuery: canonicalQueryString(encoded),
    headers,
    payloadHash: EMPTY_BODY_SHA256,
  });
  const sig = signature(
    signingKey(input.credentials.secretAccessKey, dateStamp, input.region, input.service),
    stringToSign(amz, credentialScope, request.text),
  );
  return `${input.url.protocol}//${input.url.host}${path}?${query}&X-Amz-Signature=${sig}`;
}

export interface SignedPostInput {
  readonly url: URL;
  readonly region: string;
  readonly service: string;
  readonly credentials: AwsCredentials;
  /** The form body, already serialized. */
  readonly body: string;
  readonly contentType: string;
  readonly now: number;
}

/**
 * The headers of a SigV4-signed POST as botocore's SigV4Auth makes them for query-protocol
 * services (STS): host, content-type, x-amz-date and the session token signed, the body hashed.
 */
export function signedPostHeaders(input: SignedPostInput): Record<string, string> {
  const { amzDate: amz, dateStamp } = amzDate(input.now);
  const credentialScope = `${dateStamp}/${input.region}/${input.service}/aws4_request`;
  const headers: Record<string, string> = {
    'content-type': input.contentType,
    host: input.url.host,
    'x-amz-date': amz,
  };
  if (input.credentials.sessionToken !== undefined) headers['x-amz-security-token'] = input.credentials.sessionToken;
  const path = input.url.pathname === '' ? '/' : input.url.pathname;
  const request = canonicalRequest({
    method: 'POST',
    path,
    canonicalQuery: '',
    headers,
    payloadHash: sha256Hex(input.body),
  });
  const sig = signature(
    signingKey(input.credentials.secretAccessKey, dateStamp, input.region, input.service),
    stringToSign(amz, credentialScope, request.text),
  );
  return {
    ...headers,
    authorization: `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${credentialScope}, SignedHeaders=${request.signedHeaders}, Signature=${sig}`,
  };
}
