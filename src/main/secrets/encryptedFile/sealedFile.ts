import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCallback } from 'node:crypto';
import { z } from 'zod';

/**
 * The on-disk form of the encrypted secret store: AES-256-GCM over the JSON map of secrets,
 * with a key derived from the passphrase by scrypt. The header (format, KDF parameters) is
 * authenticated as associated data, so it cannot be swapped for weaker parameters.
 */
const headerSchema = z.strictObject({
  format: z.literal('kubecred-secrets'),
  version: z.literal(1),
  kdf: z.strictObject({
    name: z.literal('scrypt'),
    N: z.number().int().min(1024),
    r: z.number().int().min(1),
    p: z.number().int().min(1),
    salt: z.string(),
  }),
  cipher: z.literal('aes-256-gcm'),
});
const sealedSchema = headerSchema.extend({ iv: z.string(), tag: z.string(), data: z.string() });
type Header = z.infer<typeof headerSchema>;
export type KdfParams = Header['kdf'];

export const DEFAULT_KDF = { N: 2 ** 15, r: 8, p: 1 } as const;

export class WrongPassphraseError extends Error {}
export class CorruptFileError extends Error {}

export function newKdf(params: { N: number; r: number; p: number } = DEFAULT_KDF): KdfParams {
  return { name: 'scrypt', ...params, salt: randomBytes(16).toString('base64') };
}

export function deriveKey(passphrase: string, kdf: KdfParams): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(
      passphrase.normalize('NFC'),
      Buffer.from(kdf.salt, 'base64'),
      32,
      { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export function seal(entries: Record<string, string>, key: Buffer, kdf: KdfParams): string {
  const header: Header = { format: 'kubecred-secrets', version: 1, kdf, cipher: 'aes-256-gcm' };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(JSON.stringify(header)));
  const data = Buffer.concat([cipher.update(JSON.stringify({ entries }), 'utf8'), cipher.final()]);
  return `${JSON.stringify({ ...header, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') }, null, 2)}\n`;
}

/** The KDF parameters of a sealed file, to derive the key before opening it. */
export function readKdf(text: string): KdfParams {
  return parseSealed(text).kdf;
}

export function unseal(text: string, key: Buffer): Record<string, string> {
  const sealed = parseSealed(text);
  const { iv, tag, data, ...header } = sealed;
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(JSON.stringify(header)));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
  } catch {
    throw new WrongPassphraseError('wrong passphrase, or the file was altered');
  }
  const parsed = z.object({ entries: z.record(z.string(), z.string()) }).safeParse(JSON.parse(plain.toString('utf8')));
  if (!parsed.success) throw new CorruptFileError('the decrypted content is not a secret map');
  return parsed.data.entries;
}

function parseSealed(text: string) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CorruptFileError('not JSON');
  }
  const parsed = sealedSchema.safeParse(json);
  if (!parsed.success)
    throw new CorruptFileError(`not a Kubecred secret file (${parsed.error.issues[0]?.path.join('.') ?? 'shape'})`);
  // Field order matters for the associated data: rebuild it in the order seal() wrote it.
  const { format, version, kdf, cipher, iv, tag, data } = parsed.data;
  return {
    format,
    version,
    kdf: { name: kdf.name, N: kdf.N, r: kdf.r, p: kdf.p, salt: kdf.salt },
    cipher,
    iv,
    tag,
    data,
  };
}
