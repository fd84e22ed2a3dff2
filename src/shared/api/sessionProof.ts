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

export function newSecret(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A challenge as the page makes them (newSecret): anything else gets no proof. */
export function isChallenge(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{16,100}$/.test(value);
}

/** What the broker sends back for a challenge. */
export async function proofOf(key: string, challenge: string): Promise<string> {
  const signature = await crypto.subtle.sign('HMAC', await hmacKey(key, 'sign'), label(challenge));
  return toBase64Url(new Uint8Array(signature));
}

/** Whether `proof` answers `challenge` under `key`: compared by WebCrypto, in constant time. */
export async function provesKey(key: string, challenge: string, proof: string): Promise<boolean> {
  const signature = fromBase64Url(proof);
  if (!signature) return false;
  return crypto.subtle.verify('HMAC', await hmacKey(key, 'verify'), signature, label(challenge));
}

function hmacKey(key: string, use: 'sign' | 'verify'): Promise<CryptoKey> {
  const bytes = fromBase64Url(key);
  if (!bytes || bytes.length < 16) throw new Error('the session key is missing or too short');
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [use]);
}

function label(challenge: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(LABEL + challenge);
}

function toBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
