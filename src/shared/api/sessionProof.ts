/**
 * How a page knows the server on its port is still the broker that opened its session: the
 * trade of a link gives the page a key that never travels again, each event stream the page
 * opens carries a fresh challenge, and the stream's first event is the key's HMAC of it. A
 * program that took the port after the broker stopped has no key, so the page shows nothing it
 * sends and sends it nothing typed. WebCrypto, so the broker and the page run the same code.
 */
export const CHALLENGE_HEADER = 'x-kubecred-challenge';

/** The stream's first event when the page sent a challenge. */
export const PROOF_EVENT = 'proof';

// A label, so an HMAC made here can never stand for anything else the key might sign.
const LABEL = 'kubecred event stream, challenge ';

/**
 * What the proof needs of WebCrypto, which the page and Node both have as `globalThis.crypto`;
 * declared here because this folder compiles against neither the DOM's types nor Node's.
 */
interface HmacCrypto {
  getRandomValues(array: Uint8Array): Uint8Array;
  readonly subtle: {
    importKey(
      format: 'raw',
      key: Uint8Array,
      algorithm: { name: 'HMAC'; hash: 'SHA-256' },
      extractable: false,
      usages: ['sign'] | ['verify'],
    ): Promise<unknown>;
    sign(algorithm: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
    verify(algorithm: 'HMAC', key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
  };
}

const webCrypto = (): HmacCrypto => (globalThis as unknown as { crypto: HmacCrypto }).crypto;

export function newSecret(bytes = 32): string {
  return toBase64Url(webCrypto().getRandomValues(new Uint8Array(bytes)));
}

/** A challenge as the page makes them (newSecret): anything else gets no proof. */
export function isChallenge(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{16,100}$/.test(value);
}

/** What the broker sends back for a challenge. */
export async function proofOf(key: string, challenge: string): Promise<string> {
  const signature = await webCrypto().subtle.sign('HMAC', await hmacKey(key, 'sign'), label(challenge));
  return toBase64Url(new Uint8Array(signature));
}

/** Whether `proof` answers `challenge` under `key`: compared by WebCrypto, in constant time. */
export async function provesKey(key: string, challenge: string, proof: string): Promise<boolean> {
  const signature = fromBase64Url(proof);
  if (!signature) return false;
  return webCrypto().subtle.verify('HMAC', await hmacKey(key, 'verify'), signature, label(challenge));
}

function hmacKey(key: string, use: 'sign' | 'verify'): Promise<unknown> {
  const bytes = fromBase64Url(key);
  if (!bytes || bytes.length < 16) throw new Error('the session key is missing or too short');
  return webCrypto().subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [use]);
}

/** The label and the challenge: ASCII both (isChallenge), so one byte a character. */
function label(challenge: string): Uint8Array {
  return Uint8Array.from(LABEL + challenge, (c) => c.charCodeAt(0) & 0x7f);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function toBase64Url(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < chars; j++) text += ALPHABET[(chunk >> (18 - 6 * j)) & 63];
  }
  return text;
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]{2,400}$/.test(text) || text.length % 4 === 1) return undefined;
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    value = (value << 6) | ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 0xff);
    }
  }
  return Uint8Array.from(bytes);
}
