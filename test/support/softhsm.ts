// A real PKCS#11 token for tests: SoftHSM2 with its token directory in a temp dir.
//
// Facts measured with SoftHSM 2.6 through pkcs11js 2.1.7 (they shape the helpers below):
// - The library reads SOFTHSM2_CONF at C_Initialize and is one state per process, so a
//   test file uses one SoftHSM config at a time (set here, restored by dispose()).
// - Every directory under directories.tokendir is a token, whatever its name: remove()
//   moves the token's directory out of tokendir, not just renames it.
// - With a token directory gone, C_GetTokenInfo on its slot fails with CKR_GENERAL_ERROR;
//   the module only notices removed or restored tokens at the next C_Initialize.
// - A wrong PIN sets CKF_USER_PIN_COUNT_LOW (cleared by a right one); SoftHSM never locks
//   the user PIN and keeps no readable counter, so lockout is tested with a fake module.
// - An uninitialized spare slot is always listed, with an empty label.
import { execFile } from 'node:child_process';
import type { JsonWebKey } from 'node:crypto';
import type * as Pkcs11Js from 'pkcs11js';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

const MODULE_CANDIDATES = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/local/lib/softhsm/libsofthsm2.so',
  '/opt/homebrew/lib/softhsm/libsofthsm2.so',
];

/** Path of libsofthsm2, or undefined when SoftHSM2 is not installed. */
export const SOFTHSM_MODULE: string | undefined = MODULE_CANDIDATES.find((path) => existsSync(path));

export interface SoftHsmToken {
  label: string;
  serial: string;
  /** The token's own directory inside tokenDir. */
  dir: string;
}

export interface SoftHsm {
  module: string;
  conf: string;
  /** directories.tokendir */
  tokenDir: string;
  label: string;
  serial: string;
  pin: string;
  soPin: string;
  /** Another token in the same SoftHSM (same module, same config). */
  addToken(label: string, pin: string, soPin: string): Promise<SoftHsmToken>;
  /** Pulls the token (default: the first): its directory leaves tokenDir. */
  remove(label?: string): Promise<void>;
  /** Puts it back. */
  restore(label?: string): Promise<void>;
  /** Environment for a child process (pkcs11-tool, softhsm2-util) to use this SoftHSM. */
  env(): NodeJS.ProcessEnv;
  /** Restores SOFTHSM2_CONF as it was. Files stay in `dir` (the caller owns it). */
  dispose(): void;
}

export async function createSoftHsm(options: {
  dir: string;
  label: string;
  pin: string;
  soPin: string;
}): Promise<SoftHsm> {
  if (!SOFTHSM_MODULE) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2)');
  const module = SOFTHSM_MODULE;
  const tokenDir = join(options.dir, 'tokens');
  const parked = join(options.dir, 'removed');
  const conf = join(options.dir, 'softhsm2.conf');
  await mkdir(tokenDir, { recursive: true });
  await mkdir(parked, { recursive: true });
  await writeFile(
    conf,
    `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );

  const previous = process.env.SOFTHSM2_CONF;
  process.env.SOFTHSM2_CONF = conf; // the module reads it at C_Initialize, in this process
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, SOFTHSM2_CONF: conf });
  const tokens = new Map<string, SoftHsmToken>();

  const addToken = async (label: string, pin: string, soPin: string): Promise<SoftHsmToken> => {
    const before = new Set(await readdir(tokenDir));
    await exec('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', soPin], {
      env: env(),
      timeout: 30_000,
    });
    const created = (await readdir(tokenDir)).find((name) => !before.has(name));
    if (!created) throw new Error(`softhsm2-util made no token directory for ${label}`);
    // SoftHSM names the directory by a UUID whose last 16 hex digits are the serial.
    const token = { label, serial: created.replace(/-/g, '').slice(-16), dir: join(tokenDir, created) };
    tokens.set(label, token);
    return token;
  };
  const tokenOf = (label = options.label): SoftHsmToken => {
    const token = tokens.get(label);
    if (!token) throw new Error(`no SoftHSM token ${label}`);
    return token;
  };
  const away = (token: SoftHsmToken) => join(parked, token.dir.split('/').pop() ?? token.label);

  const first = await addToken(options.label, options.pin, options.soPin);
  return {
    module,
    conf,
    tokenDir,
    label: first.label,
    serial: first.serial,
    pin: options.pin,
    soPin: options.soPin,
    addToken,
    remove: async (label) => rename(tokenOf(label).dir, away(tokenOf(label))),
    restore: async (label) => rename(away(tokenOf(label)), tokenOf(label).dir),
    env,
    dispose: () => {
      if (previous === undefined) delete process.env.SOFTHSM2_CONF;
      else process.env.SOFTHSM2_CONF = previous;
    },
  };
}

/** Runs pkcs11-tool (OpenSC) against this SoftHSM; throws with its stderr on failure. */
export async function pkcs11Tool(hsm: SoftHsm, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await exec('pkcs11-tool', ['--module', hsm.module, ...args], {
      env: hsm.env(),
      timeout: 30_000,
    });
    return stdout;
  } catch (error) {
    const shown = args.map((arg, i) => (args[i - 1] === '--pin' || args[i - 1] === '--so-pin' ? '***' : arg));
    throw new Error(`pkcs11-tool ${shown.join(' ')} failed: ${(error as { stderr?: string }).stderr ?? String(error)}`);
  }
}

/**
 * Puts a private key on the token as extractable and not sensitive (a software token's key,
 * which Kubecred may hand to kubectl): pkcs11-tool cannot write that template, so this calls
 * C_CreateObject itself. EC keys must be on P-256.
 */
export async function createExtractableKey(
  hsm: SoftHsm,
  pin: string,
  key: { pem: string; label: string; id: number },
): Promise<void> {
  const K = await import('../../src/main/secrets/pkcs11/constants.js');
  const { createPrivateKey } = await import('node:crypto');
  await withTokenSession(hsm, pin, (p11, session) => {
    const jwk = createPrivateKey(key.pem).export({ format: 'jwk' });
    const b = (text: string | undefined) => Buffer.from(text ?? '', 'base64url');
    const common = (keyType: number) => [
      { type: K.CKA_CLASS, value: K.CKO_PRIVATE_KEY },
      { type: K.CKA_KEY_TYPE, value: keyType },
      { type: K.CKA_TOKEN, value: true },
      { type: K.CKA_PRIVATE, value: true },
      { type: K.CKA_SENSITIVE, value: false },
      { type: K.CKA_EXTRACTABLE, value: true },
      { type: K.CKA_LABEL, value: key.label },
      { type: K.CKA_ID, value: Buffer.from([key.id]) },
    ];
    const template =
      jwk.kty === 'EC'
        ? [
            ...common(K.CKK_EC),
            { type: K.CKA_EC_PARAMS, value: Buffer.from('06082a8648ce3d030107', 'hex') },
            { type: K.CKA_VALUE, value: b(jwk.d) },
          ]
        : [
            ...common(K.CKK_RSA),
            { type: K.CKA_MODULUS, value: b(jwk.n) },
            { type: K.CKA_PUBLIC_EXPONENT, value: b(jwk.e) },
            { type: K.CKA_PRIVATE_EXPONENT, value: b(jwk.d) },
            { type: K.CKA_PRIME_1, value: b(jwk.p) },
            { type: K.CKA_PRIME_2, value: b(jwk.q) },
            { type: K.CKA_EXPONENT_1, value: b(jwk.dp) },
            { type: K.CKA_EXPONENT_2, value: b(jwk.dq) },
            { type: K.CKA_COEFFICIENT, value: b(jwk.qi) },
          ];
    p11.C_CreateObject(session, template);
  });
}

/** Runs `work` in a session on this SoftHSM's first token, logged in when a PIN is given. */
async function withTokenSession<T>(
  hsm: SoftHsm,
  pin: string | undefined,
  work: (p11: InstanceType<typeof Pkcs11Js.PKCS11>, session: Buffer, real: typeof Pkcs11Js) => T,
): Promise<T> {
  // Under tsx (the benchmark) the ESM view has only the class: the constants are on `default`.
  const imported = await import('pkcs11js');
  const real = ((imported as { default?: typeof Pkcs11Js }).default ?? imported) as typeof Pkcs11Js;
  const p11 = new real.PKCS11();
  p11.load(hsm.module);
  p11.C_Initialize();
  try {
    const slot = p11.C_GetSlotList(true).find((s) => p11.C_GetTokenInfo(s).label.trim() === hsm.label);
    if (!slot) throw new Error('SoftHSM token not found');
    const session = p11.C_OpenSession(slot, real.CKF_RW_SESSION | real.CKF_SERIAL_SESSION);
    if (pin) p11.C_Login(session, real.CKU_USER, pin);
    return work(p11, session, real);
  } finally {
    p11.C_Finalize();
    p11.close();
  }
}

function findById(
  p11: InstanceType<typeof Pkcs11Js.PKCS11>,
  session: Buffer,
  objectClass: number,
  id: string,
  real: typeof Pkcs11Js,
): Buffer {
  p11.C_FindObjectsInit(session, [
    { type: real.CKA_CLASS, value: objectClass },
    { type: real.CKA_ID, value: Buffer.from(id, 'hex') },
  ]);
  const [handle] = p11.C_FindObjects(session, 1);
  p11.C_FindObjectsFinal(session);
  if (!handle) throw new Error(`no object of class ${objectClass} with id ${id}`);
  return handle;
}

/** The public key with CKA_ID `id`, read through pkcs11js (pkcs11-tool cannot export P-384 ones). */
function publicKeyJwk(hsm: SoftHsm, id: string): Promise<JsonWebKey> {
  return withTokenSession(hsm, undefined, (p11, session, real) => {
    const handle = findById(p11, session, real.CKO_PUBLIC_KEY, id, real);
    const read = (type: number) => p11.C_GetAttributeValue(session, handle, [{ type }])[0]!.value as Buffer;
    const b64 = (value: Buffer) => value.toString('base64url');
    if (read(real.CKA_KEY_TYPE).readUInt32LE(0) === real.CKK_RSA)
      return { kty: 'RSA', n: b64(read(real.CKA_MODULUS)), e: b64(read(real.CKA_PUBLIC_EXPONENT)) };
    // CKA_EC_POINT is a DER OCTET STRING around 04 || x || y.
    const der = read(real.CKA_EC_POINT);
    const point = der.subarray(der.length - (der[1]! & 0x80 ? der.length - 2 - (der[1]! & 0x7f) : der[1]!));
    const half = (point.length - 1) / 2;
    const crv = half === 32 ? 'P-256' : half === 48 ? 'P-384' : 'P-521';
    return { kty: 'EC', crv, x: b64(point.subarray(1, 1 + half)), y: b64(point.subarray(1 + half)) };
  });
}

/** What a private key on the token lets anyone learn of it: its flags, and whether its secret part can be read. */
export function privateKeyExposure(
  hsm: SoftHsm,
  pin: string,
  id: string,
): Promise<{ sensitive: boolean; extractable: boolean; secretRead: string }> {
  return withTokenSession(hsm, pin, (p11, session, real) => {
    const handle = findById(p11, session, real.CKO_PRIVATE_KEY, id, real);
    const flag = (type: number) => (p11.C_GetAttributeValue(session, handle, [{ type }])[0]!.value as Buffer)[0] === 1;
    const secret =
      (p11.C_GetAttributeValue(session, handle, [{ type: real.CKA_KEY_TYPE }])[0]!.value as Buffer).readUInt32LE(0) ===
      real.CKK_RSA
        ? real.CKA_PRIVATE_EXPONENT
        : real.CKA_VALUE;
    let secretRead: string;
    try {
      secretRead = `read ${(p11.C_GetAttributeValue(session, handle, [{ type: secret }])[0]!.value as Buffer).length} bytes`;
    } catch (error) {
      secretRead = (error as Error).message;
    }
    return { sensitive: flag(real.CKA_SENSITIVE), extractable: flag(real.CKA_EXTRACTABLE), secretRead };
  });
}

/**
 * Generates a key pair ON the token, sensitive and not extractable (as a smart card's is), and
 * puts beside it (same label and id) a client certificate for `subject` from the given CA:
 * the certificate is made from the token's public key (openssl -force_pubkey), so the private
 * key never exists anywhere but on the token. `keyType`: rsa:2048, EC:prime256v1, EC:secp384r1.
 */
export async function createTokenClientCertificate(
  hsm: SoftHsm,
  pin: string,
  key: {
    label: string;
    id: string;
    keyType: string;
    subject: string;
    caCertPath: string;
    caKeyPath: string;
    workDir: string;
  },
): Promise<{ certificatePem: string }> {
  const { createPublicKey } = await import('node:crypto');
  await mkdir(key.workDir, { recursive: true });
  await pkcs11Tool(hsm, [
    '--login',
    '--pin',
    pin,
    '--keypairgen',
    '--key-type',
    key.keyType,
    '--label',
    key.label,
    '--id',
    key.id,
    '--sensitive',
    '--usage-sign',
  ]);
  const pubPem = join(key.workDir, `${key.label}.pub.pem`);
  await writeFile(
    pubPem,
    createPublicKey({ key: await publicKeyJwk(hsm, key.id), format: 'jwk' }).export({ type: 'spki', format: 'pem' }),
  );
  const extensions = join(key.workDir, `${key.label}.ext`);
  await writeFile(
    extensions,
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  const certPem = join(key.workDir, `${key.label}.crt`);
  await exec(
    'openssl',
    [
      'x509',
      '-new',
      '-subj',
      key.subject,
      '-force_pubkey',
      pubPem,
      '-CA',
      key.caCertPath,
      '-CAkey',
      key.caKeyPath,
      '-days',
      '2',
      '-extfile',
      extensions,
      '-out',
      certPem,
    ],
    { timeout: 30_000 },
  );
  const certDer = join(key.workDir, `${key.label}.crt.der`);
  await exec('openssl', ['x509', '-in', certPem, '-outform', 'DER', '-out', certDer], { timeout: 30_000 });
  await pkcs11Tool(hsm, [
    '--login',
    '--pin',
    pin,
    '--write-object',
    certDer,
    '--type',
    'cert',
    '--label',
    key.label,
    '--id',
    key.id,
  ]);
  return { certificatePem: await readFile(certPem, 'utf8') };
}
