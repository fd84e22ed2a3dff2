import type { TokenConfig } from '../../../shared/config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { SecretPromptPort } from '../../core/uiPorts.js';
import type { SecretStore } from '../../core/secretStore.js';
import { lazyBinding, type Pkcs11Module } from './binding.js';
import { readClientCertificate, type ClientCertificate } from './clientCertificate.js';
import { ModuleHost } from './moduleHost.js';
import { describeToken, type TokenInfo } from './tokenInventory.js';
import { unknownToken } from './tokenErrors.js';
import { TokenSecretStore } from './tokenSecretStore.js';
import { TokenSession } from './tokenSession.js';
import { describeTokenKey, signWithTokenKey, type TokenKey } from './tokenSigner.js';
import type { SignaturePlan } from './signaturePlan.js';

export type { TokenInfo, TokenObjectInfo } from './tokenInventory.js';
export type { ClientCertificate } from './clientCertificate.js';
export type { TokenKey } from './tokenSigner.js';
export type { Pkcs11Module } from './binding.js';

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
  /** Whether the token we hold a session on is still in; 'idle' without a session. Opens and asks nothing. */
  presence(tokenName: string): 'present' | 'gone' | 'idle';
  /** Whether the broker holds the token's PIN now (its grace has not run out); asks the token nothing. */
  pinKnown(tokenName: string): boolean;
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
    presence(tokenName) {
      return session(tokenName).presence();
    },
    pinKnown(tokenName) {
      return sessions.get(tokenName)?.pins.valid() ?? false;
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
