import type { TokenConfig } from '../../../shared/config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { SecretPromptPort } from '../../core/uiPorts.js';
import type { SecretStore } from '../../core/secretStore.js';
import { lazyBinding, type Pkcs11Module } from './binding.js';
import { readClientCertificate, type ClientCertificate } from './clientCertificate.js';
import { ModuleHost } from './moduleHost.js';
import { describeToken, tokenPresent, type TokenInfo } from './tokenInventory.js';
import { unknownToken } from './tokenErrors.js';
import { TokenSecretStore } from './tokenSecretStore.js';
import { TokenSession } from './tokenSession.js';
import { describeTokenKey, signWithTokenKey, type TokenKey } from './tokenSigner.js';
import type { SignaturePlan } from './signaturePlan.js';
import {
  KEY_ALGORITHM_NAMES,
  algorithmShortfall,
  readMechanisms,
  type KeyAlgorithm,
  type RequestHash,
} from './keyAlgorithms.js';
import {
  discardGeneratedKey,
  finishKeyGeneration,
  readPublicKeyInfo,
  startKeyGeneration,
  type GenerateKeyOptions,
  type RunOffThread,
} from './tokenKeyGeneration.js';
import { signDigestWithKey } from './tokenDigestSigner.js';
import { storeCertificate } from './tokenCertificateWrite.js';
import { readPublicCertificate } from './tokenCertificateRead.js';
import { readKeyFacts, type TokenKeyFacts } from './tokenKeyFacts.js';

export type { TokenInfo, TokenObjectInfo } from './tokenInventory.js';
export type { ClientCertificate } from './clientCertificate.js';
export type { TokenKey } from './tokenSigner.js';
export type { Pkcs11Module } from './binding.js';
export type { KeyAlgorithm, RequestHash } from './keyAlgorithms.js';
export type { GenerateKeyOptions } from './tokenKeyGeneration.js';
export type { TokenKeyFacts } from './tokenKeyFacts.js';

/** Whether a token can make and sign with an algorithm's keys, and if not, what it lacks. */
export interface TokenKeyAlgorithm {
  readonly algorithm: KeyAlgorithm;
  readonly supported: boolean;
  /** "it offers no CKM_EC_KEY_PAIR_GEN", when not supported. */
  readonly missing?: string;
}

/** Hardware tokens (smart cards, YubiKey PIV, HSMs) through their PKCS#11 modules. */
export interface Pkcs11Service {
  listTokens(): Promise<TokenInfo[]>;
  /** Exactly one C_Login with this PIN; on success keep the PIN in memory for the token's pinGrace. */
  login(tokenName: string, pin: string): Promise<void>;
  logout(tokenName: string): Promise<void>;
  /** Lock all: forget every PIN, close sessions (quit, "Lock all"). */
  lockAll(): Promise<void>;
  /** Secrets of profiles as private CKO_DATA objects, CKA_APPLICATION "kubecred", CKA_LABEL "<profile>/<field>". */
  secretStore(tokenName: string): SecretStore;
  /** A certificate and its private key found by CKA_LABEL; PEM strings. */
  clientCertificate(tokenName: string, label: string): Promise<ClientCertificate>;
  /** The certificate labelled `label`, its key's type and when the PIN's grace ends; logs in (the PIN is asked when kubectl runs, not mid-handshake). */
  tokenKey(tokenName: string, label: string): Promise<TokenKey>;
  /** Signs with the key labelled `label`, which never leaves the token (the exec proxy's TLS handshakes). */
  sign(tokenName: string, label: string, plan: SignaturePlan): Promise<Buffer>;
  /**
   * Makes a key pair on the token for `label` (kubecred enroll), sensitive and never extractable,
   * with a fresh random CKA_ID, and returns its public key as SubjectPublicKeyInfo DER. Refuses
   * a token that cannot make or sign with `algorithm`, and a label already in use unless
   * `replace` (renewal with a new key: the new key waits beside the old identity, which keeps
   * working until storeCertificate stores the new certificate).
   */
  generateKey(
    tokenName: string,
    label: string,
    algorithm?: KeyAlgorithm,
    options?: GenerateKeyOptions,
  ): Promise<Buffer>;
  /** The SubjectPublicKeyInfo (DER) of the key pair for `label`, a renewal's waiting key first. */
  publicKeyOf(tokenName: string, label: string): Promise<Buffer>;
  /**
   * Signs `digest` (of the to-be-signed part of a certificate request, made with `hash`) with
   * the key pair for `label`, a renewal's waiting key first. The signature is as PKCS#10 and
   * X.509 carry it: DER SEQUENCE {r, s} (ECDSA) or PKCS#1 v1.5 over the DigestInfo (RSA).
   */
  signDigest(tokenName: string, label: string, hash: RequestHash, digest: Buffer): Promise<Buffer>;
  /** Stores the certificate (DER) issued for the key pair of `label` beside it; refused for another key's certificate. */
  storeCertificate(tokenName: string, label: string, der: Buffer): Promise<void>;
  /**
   * Removes the key pair generateKey made for `label` whose public key is `spki`, once its
   * enrollment ends without a certificate; never a pair with a certificate beside it. False: none was there.
   */
  discardKey(tokenName: string, label: string, spki: Buffer): Promise<boolean>;
  /** The certificate (PEM) labelled `label`, read without logging in (no PIN is asked); undefined: none. */
  publicCertificate(tokenName: string, label: string): Promise<string | undefined>;
  /** The private key's attributes that show it was made on the token and cannot leave it. */
  keyFacts(tokenName: string, label: string): Promise<TokenKeyFacts>;
  /** Which of the key types Kubecred enrolls the token can make and sign with. Needs no PIN. */
  keyAlgorithms(tokenName: string): Promise<TokenKeyAlgorithm[]>;
  /** Whether the token we hold a session on is still in; 'idle' without a session. Opens and asks nothing. */
  presence(tokenName: string): 'present' | 'gone' | 'idle';
  /** Whether the broker holds the token's PIN now (its grace has not run out); asks the token nothing. */
  pinKnown(tokenName: string): boolean;
  /**
   * Whether the token is in a slot now (false: what `token list` calls "not present"); asks no
   * PIN. Undefined while its module is not loaded: finding out is no reason to load it.
   */
  present(tokenName: string): Promise<boolean | undefined>;
  /** Release the module (C_Finalize): broker shutdown. */
  close(): Promise<void>;
}

export interface Pkcs11ServiceOptions {
  tokens: readonly TokenConfig[];
  ui: SecretPromptPort;
  clock: Clock;
  /** Told when a token's PIN is forgotten because it was removed, locked or logged out. */
  onPinForgotten?: (tokenName: string) => void;
  /** How pkcs11js is imported; tests wrap it. Called on the first token operation only. */
  loadModule?: () => Promise<Pkcs11Module>;
}

export function createPkcs11Service(options: Pkcs11ServiceOptions): Pkcs11Service {
  const binding = lazyBinding(options.loadModule ?? (() => import('pkcs11js')));
  // One host per module path: tokens naming the same library share its C_Initialize.
  const hosts = new Map<string, ModuleHost>();
  const sessions = new Map<string, TokenSession>();
  for (const config of options.tokens) {
    let host = hosts.get(config.module);
    if (!host) hosts.set(config.module, (host = new ModuleHost(config.module, binding)));
    sessions.set(config.name, new TokenSession(config, host, options.ui, options.clock, options.onPinForgotten));
  }

  const session = (name: string): TokenSession => {
    const found = sessions.get(name);
    if (!found) throw unknownToken(name);
    return found;
  };

  return {
    async listTokens() {
      const infos: TokenInfo[] = [];
      for (const token of sessions.values()) infos.push(await describeToken(token));
      return infos;
    },
    async login(tokenName, pin) {
      await session(tokenName).login(pin);
    },
    async logout(tokenName) {
      session(tokenName).logout();
    },
    async lockAll() {
      for (const token of sessions.values()) token.logout();
    },
    secretStore(tokenName) {
      return new TokenSecretStore(tokenName, () => session(tokenName));
    },
    async clientCertificate(tokenName, label) {
      const token = session(tokenName);
      return token.run(
        { login: true, failCode: 'token-unavailable', action: `read the certificate "${label}"` },
        (attached) => readClientCertificate(token.config, attached, label),
      );
    },
    async tokenKey(tokenName, label) {
      const token = session(tokenName);
      const key = await token.run(
        { login: true, failCode: 'token-unavailable', action: `read the certificate "${label}"` },
        (attached) => describeTokenKey(token.config, attached, label),
      );
      const graceEnds = token.pins.until();
      return graceEnds === undefined ? key : { ...key, loggedInUntil: new Date(graceEnds) };
    },
    async sign(tokenName, label, plan) {
      const token = session(tokenName);
      const pssParams = pkcs11Constant(await binding(), 'CK_PARAMS_RSA_PSS');
      // C_Sign on a worker thread where the module can lock: a card waiting for a touch must
      // not stop the broker answering everyone else (the UI, cached credentials) meanwhile.
      const offThread = (call: () => Promise<Buffer>) => token.host.offThread(call);
      return token.run(
        // Asked mid-handshake, for no program anyone sees: the PIN is asked when kubectl runs the shim.
        { login: true, failCode: 'token-unavailable', action: `sign with the key "${label}"`, mayAsk: false },
        (attached) =>
          // Asked once attached: the first use initialises the module, and only then is it known.
          signWithTokenKey(
            token.config,
            attached,
            label,
            plan,
            pssParams,
            token.host.threadSafe ? offThread : undefined,
          ),
      );
    },
    async generateKey(tokenName, label, algorithm = 'ec-p256', options = { replace: false }) {
      const token = session(tokenName);
      const action = `generate a key pair labelled "${label}"`;
      // Generation takes seconds to a minute on a smart card: off the main thread where the module can lock.
      const offThread: RunOffThread = (call) => token.host.offThread(call);
      const started = await token.run({ login: true, failCode: 'token-unavailable', action }, (attached) =>
        startKeyGeneration(
          token.config,
          attached,
          label,
          algorithm,
          options,
          token.host.threadSafe ? offThread : undefined,
        ),
      );
      // A second run: nothing may follow an off-thread call in the one that made it.
      return token.run(
        { login: true, failCode: 'token-unavailable', action: `read the key pair "${label}"` },
        (attached) => finishKeyGeneration(token.config, attached, label, started),
      );
    },
    async publicKeyOf(tokenName, label) {
      const token = session(tokenName);
      return token.run(
        { login: true, failCode: 'token-unavailable', action: `read the public key "${label}"` },
        (attached) => readPublicKeyInfo(token.config, attached, label),
      );
    },
    async signDigest(tokenName, label, hash, digest) {
      const token = session(tokenName);
      // A card may wait for a touch: off the main thread where the module can lock, as sign() does.
      const offThread: RunOffThread = (call) => token.host.offThread(call);
      return token.run(
        { login: true, failCode: 'token-unavailable', action: `sign with the key "${label}"` },
        (attached) =>
          signDigestWithKey(token.config, attached, label, hash, digest, token.host.threadSafe ? offThread : undefined),
      );
    },
    async storeCertificate(tokenName, label, der) {
      const token = session(tokenName);
      return token.run(
        { login: true, failCode: 'token-unavailable', action: `store the certificate "${label}"` },
        (attached) => storeCertificate(token.config, attached, label, der),
      );
    },
    async discardKey(tokenName, label, spki) {
      const token = session(tokenName);
      return token.run(
        { login: true, failCode: 'token-unavailable', action: `remove the key pair "${label}"` },
        (attached) => discardGeneratedKey(token.config, attached, label, spki),
      );
    },
    async publicCertificate(tokenName, label) {
      const token = session(tokenName);
      return token.run(
        { login: false, failCode: 'token-unavailable', action: `read the certificate "${label}"` },
        (attached) => readPublicCertificate(attached, label),
      );
    },
    async keyFacts(tokenName, label) {
      const token = session(tokenName);
      return token.run({ login: true, failCode: 'token-unavailable', action: `read the key "${label}"` }, (attached) =>
        readKeyFacts(token.config, attached, label),
      );
    },
    async keyAlgorithms(tokenName) {
      const token = session(tokenName);
      return token.run(
        { login: false, failCode: 'token-unavailable', action: 'list its mechanisms' },
        ({ p11, slot }) => {
          const offered = readMechanisms(p11, slot);
          return KEY_ALGORITHM_NAMES.map((algorithm): TokenKeyAlgorithm => {
            const missing = algorithmShortfall(algorithm, offered);
            return missing === undefined ? { algorithm, supported: true } : { algorithm, supported: false, missing };
          });
        },
      );
    },
    presence(tokenName) {
      return session(tokenName).presence();
    },
    pinKnown(tokenName) {
      return sessions.get(tokenName)?.pins.valid() ?? false;
    },
    async present(tokenName) {
      const token = sessions.get(tokenName);
      if (!token?.host.live) return undefined;
      return tokenPresent(token);
    },
    async close() {
      for (const token of sessions.values()) token.logout();
      for (const host of hosts.values()) host.close();
    },
  };
}

/** A number pkcs11js defines itself (not PKCS#11's): ESM may show it only on the CommonJS default export. */
function pkcs11Constant(module: Pkcs11Module, name: 'CK_PARAMS_RSA_PSS'): number {
  const value = module[name] ?? (module as { default?: Pkcs11Module }).default?.[name];
  if (typeof value !== 'number') throw new Error(`pkcs11js has no ${name}`);
  return value;
}
