import type { Credential } from '../../shared/credential.js';
import type { GuardConfig } from '../../shared/config/proxySchema.js';
import type { Logger } from '../core/logger.js';
import { BrokerError } from '../core/brokerError.js';
import { LOCAL_CERTIFICATE_SECONDS } from './localCertificateLifetime.js';
import type { RequestHandler } from './controlChannel.js';
import type { SignaturePlan, TokenKeyType } from '../secrets/pkcs11/signaturePlan.js';
import { planSignature } from './planSignature.js';
import type { ProxiedProfile } from './proxiedProfile.js';
import type { ProxyProcess } from './proxyProcess.js';
import { tls12ServerRefusal, tls13Evidence, tls13ServerRefusal } from './handshakeBinding.js';
import { guardMessage } from './guardMessage.js';
import { upstreamCredentialMessage } from './upstreamCredentialMessage.js';
import type { GuardConfirmation } from './guardConfirmation.js';
import type { UpstreamProxy } from './upstreamProxy.js';
import {
  proxyAsks,
  type ConfirmDecision,
  type CredentialHandover,
  type Listening,
  type LocalCredential,
} from './proxyAsks.js';

export type { LocalCredential };

/** The local CA kubectl trusts for the proxy's listeners; its key never leaves the secret store and the proxy. */
export interface LocalCa {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface ProxyDeps {
  /** Where kubecred-proxy is, or undefined where none was built for this platform. */
  binary(): string | undefined;
  /** Starts the proxy; resolves once its control channel is taken (on Linux and macOS, from the child alone). */
  start(
    binary: string,
    handlers: Readonly<Record<string, RequestHandler>>,
    onEvent: (event: Readonly<Record<string, unknown>>) => void,
  ): ProxyProcess | Promise<ProxyProcess>;
  /** The stored local CA, or undefined the first time. */
  loadCa(): Promise<LocalCa | undefined>;
  saveCa(ca: LocalCa): Promise<void>;
  /**
   * The token's certificate and key type; logs in to the token (PIN prompt) when needed.
   * `loggedInUntil`: when the token's PIN grace ends and the PIN will be asked again.
   */
  tokenKey(
    token: string,
    label: string,
  ): Promise<{ certificatePem: string; keyType: TokenKeyType; loggedInUntil?: Date }>;
  /** `profile`: whose handshake the signature is for, to name it in a PIN prompt. */
  sign(token: string, label: string, plan: SignaturePlan, profile: string): Promise<Buffer>;
  /**
   * The profile's credential for the cluster, for a profile without a token key, asked by the
   * proxy without anyone to ask (a refresh; an error that says to log in when it needs one).
   * `reason`: none held, the held one ends soon, or the cluster refused it.
   */
  upstreamCredential?(profile: string, reason: 'missing' | 'expiring' | 'rejected'): Promise<Credential>;
  /**
   * The profile's own proxy and the proxy password its keychain keeps, for kubecred-proxy's
   * upstream; absent or undefined: the environment's proxy, as kubecred-proxy reads it.
   */
  upstreamProxy?(profile: ProxiedProfile): Promise<UpstreamProxy | undefined>;
  /** Whether a request a guard's confirm rule matched may go on: the user's answer. */
  confirm?(request: GuardConfirmation): Promise<ConfirmDecision>;
  /** Until when the profile's guard is lifted (`kubecred guard <profile> off --for`). */
  guardOffUntil?(profile: string): Date | undefined;
  /** One proxied request, for the audit log. */
  audit(event: Readonly<Record<string, unknown>>): void;
  /** A profile's credential the proxy asked for and got (or was refused), for the audit log. */
  auditHandover?(handover: CredentialHandover): void;
  /** One signature of the token's key, for the audit log. */
  auditSignature(signed: { readonly profile: string; readonly token: string; readonly scheme: string }): void;
  /**
   * The profiles config.yaml has now, each with its guard: a listener whose profile left is
   * closed, and never signs again; a guard edited is told to the proxy at once, not at the next
   * kubectl. Absent: listeners close only with the proxy.
   */
  profilesNow?(): Promise<ReadonlyMap<string, GuardConfig | undefined>>;
  readonly logger: Logger;
  /** How long kubectl's local certificates last, in seconds; ten minutes when absent. */
  readonly localCertificateSeconds?: number;
  /** The broker's clock; Date.now when absent. */
  readonly now?: () => number;
}

/** `kubecred proxy status`: whether kubecred-proxy runs, for which profiles, and its load. */
export interface ProxyStatus {
  readonly running: boolean;
  readonly pid?: number;
  readonly listeners: readonly { readonly profile: string; readonly port: number }[];
  readonly goroutines?: number;
  /** -1 where the proxy cannot count them (no /proc). */
  readonly openFiles?: number;
}

// A grace that ends in a moment still gives a certificate kubectl can use for its command
// (it asks again when the certificate ends, not at every request).
const MIN_LOCAL_CERTIFICATE_SECONDS = 1;

const LOCKED_REASON =
  'Kubecred was locked, which ended the local certificates issued before: run the command again (kubectl gets a new one, and the PIN is asked then)';

// How soon a removed profile's listener closes when nothing asks for a signature meanwhile.
const REMOVAL_CHECK_MS = 2_000;

/**
 * Runs kubecred-proxy for the broker: starts it on first need (and again after it died),
 * hands it the local CA, keeps one listener per proxied profile, issues kubectl's local
 * certificates, and signs the upstream handshakes with the token's key when the proxy asks.
 */
export class ProxySupervisor {
  private running: Promise<{ process: ProxyProcess; ca: LocalCa }> | undefined;
  /** What each listener was last told, by profile: a changed profile is told again. */
  private readonly listening = new Map<string, Listening>();
  private removalWatch: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: ProxyDeps) {}

  /** The certificate the profile's listener presents upstream (public), once it listens. */
  certificateOf(profile: string): string | undefined {
    return this.listening.get(profile)?.certificatePem;
  }

  /** kubectl's certificate for `profile`: the listener is up and the token logged in before it is issued. */
  async credential(profile: ProxiedProfile): Promise<LocalCredential> {
    const { process } = await this.ensure();
    if (!profile.tokenKey) throw new BrokerError('internal', `profile "${profile.name}" signs with no token key`);
    const key = await this.deps.tokenKey(profile.tokenKey.token, profile.tokenKey.label);
    await this.listen(process, profile, key);
    const issued = await process.channel.request('issue', {
      profile: profile.name,
      ttlSeconds: this.lifetimeSeconds(key.loggedInUntil),
      caller: null,
    });
    return {
      certificatePem: String(issued.certPem),
      keyPem: String(issued.keyPem),
      expiresAt: new Date(String(issued.notAfter)),
    };
  }

  /**
   * kubectl's certificate for a profile whose own credential goes upstream: the proxy holds
   * `upstream` (told again only when it changed), kubectl gets a certificate for the listener.
   * One certificate serves calls until half its life is gone, so a burst of kubectl runs costs
   * the proxy no new certificate each.
   */
  async localCredential(profile: ProxiedProfile, upstream: Credential): Promise<LocalCredential> {
    const { process } = await this.ensure();
    await this.listen(process, profile, undefined);
    const listening = this.listening.get(profile.name)!;
    const message = upstreamCredentialMessage(profile.name, upstream);
    const pushed = JSON.stringify(message);
    if (listening.pushed !== pushed) {
      await process.channel.request('credential', { profile: profile.name, credential: message });
      listening.pushed = pushed;
    }
    const now = (this.deps.now ?? Date.now)();
    const lifetime = this.lifetimeSeconds(undefined);
    const held = listening.local;
    if (held && held.expiresAt.getTime() - now > (lifetime * 1000) / 2) return held;
    const issued = await process.channel.request('issue', {
      profile: profile.name,
      ttlSeconds: lifetime,
      caller: null,
    });
    const local = {
      certificatePem: String(issued.certPem),
      keyPem: String(issued.keyPem),
      expiresAt: new Date(String(issued.notAfter)),
    };
    listening.local = local;
    return local;
  }

  /**
   * A new credential of a profile the proxy serves (a refresh, a login, a new secret): its next
   * request upstream uses it, without the programs that hold a local certificate knowing.
   */
  async offerUpstream(profile: string, upstream: Credential): Promise<void> {
    const listening = this.listening.get(profile);
    const running = await this.running?.catch(() => undefined);
    if (!listening || !running || listening.profile.tokenKey) return;
    const message = upstreamCredentialMessage(profile, upstream);
    const pushed = JSON.stringify(message);
    if (listening.pushed === pushed) return;
    await running.process.channel.request('credential', { profile, credential: message });
    listening.pushed = pushed;
  }

  /** Tells the proxy the profile's guard anew: lifted, or back (`kubecred guard`). */
  async refreshGuard(profile: string): Promise<void> {
    const listening = this.listening.get(profile);
    const running = await this.running?.catch(() => undefined);
    if (!listening || !running) return;
    await running.process.channel.request('guard', {
      profile,
      ...guardMessage(listening.profile.guard, this.deps.guardOffUntil?.(profile)),
    });
  }

  /** The local CA's certificate, for a kubeconfig's certificate-authority-data. */
  async caCertificate(): Promise<string> {
    return (await this.ensure()).ca.certPem;
  }

  /** Whether kubecred-proxy listens for `profile` now (it opens a listener at the profile's first kubectl). */
  listens(profile: string): boolean {
    return this.listening.has(profile);
  }

  /** What runs now: the process, its listeners, and what a leak would show in. Starts nothing. */
  async status(): Promise<ProxyStatus> {
    const running = await this.running?.catch(() => undefined);
    if (!running || running.process.pid === undefined) return { running: false, listeners: [] };
    const stats = await running.process.channel.request('stats', {});
    return {
      running: true,
      pid: running.process.pid,
      listeners: [...this.listening.values()].map(({ profile }) => ({ profile: profile.name, port: profile.port })),
      goroutines: Number(stats.goroutines),
      openFiles: Number(stats.openFiles),
    };
  }

  /**
   * Ends every upstream connection of the profile (its token went away, or was locked);
   * `reason`, when given, is what kubectl is told about the requests this ends.
   */
  async revoke(profile: string, reason?: string, certificates = false): Promise<void> {
    const running = await this.running?.catch(() => undefined);
    const listening = this.listening.get(profile);
    // The proxy forgets the profile's credential and certificates with these: neither is handed out again.
    if (listening && certificates) listening.pushed = listening.local = undefined;
    if (running && listening)
      await running.process.channel.request('revoke', {
        profile,
        ...(reason ? { reason } : {}),
        ...(certificates ? { certificates } : {}),
      });
  }

  /** Ends every upstream connection of the profiles that sign with `token` (logged out, or pulled). */
  async revokeToken(token: string): Promise<void> {
    await Promise.all(
      [...this.listening.values()]
        .filter(({ profile }) => profile.tokenKey?.token === token)
        .map(({ profile }) =>
          this.revoke(
            profile.name,
            `the key of token "${token}" went away (pulled out, locked or logged out); insert the token or run kubecred token login ${token}, and run the command again`,
          ),
        ),
    );
  }

  /** The tokens the proxy's listeners sign with now. */
  tokensInUse(): string[] {
    return [
      ...new Set(
        [...this.listening.values()].flatMap(({ profile }) => (profile.tokenKey ? [profile.tokenKey.token] : [])),
      ),
    ];
  }

  /**
   * Closes the listeners of profiles config.yaml no longer has (`profile rm`, an edit): their
   * certificates end with them. Run on a timer while any listener is open, and before a signature.
   */
  async closeRemoved(): Promise<void> {
    const configured = await this.deps.profilesNow?.().catch(() => undefined);
    if (!configured) return;
    for (const [name, listening] of [...this.listening]) {
      if (!configured.has(name)) await this.closeListener(name);
      else if (JSON.stringify(configured.get(name)) !== JSON.stringify(listening.profile.guard)) {
        const guard = configured.get(name);
        const { guard: _before, ...profile } = listening.profile;
        listening.profile = guard ? { ...profile, guard } : profile;
        await this.refreshGuard(name).catch(() => undefined);
      }
    }
  }

  private async closeListener(name: string): Promise<void> {
    this.listening.delete(name);
    if (this.listening.size === 0) this.stopWatching();
    const running = await this.running?.catch(() => undefined);
    await running?.process.channel.request('close', { profile: name }).catch(() => undefined);
    this.deps.logger.info('closed the exec proxy listener of a profile no longer in config.yaml', { profile: name });
  }

  private watchRemovals(): void {
    if (this.removalWatch || !this.deps.profilesNow) return;
    this.removalWatch = setInterval(() => void this.closeRemoved(), REMOVAL_CHECK_MS);
    this.removalWatch.unref();
  }

  private stopWatching(): void {
    clearInterval(this.removalWatch);
    this.removalWatch = undefined;
  }

  /** Ends every upstream connection of every profile ("Lock all"). */
  async revokeAll(): Promise<void> {
    // The local certificates kubectl holds end too: a held one must not work again once the PIN is back.
    await Promise.all([...this.listening.keys()].map((profile) => this.revoke(profile, LOCKED_REASON, true)));
  }

  async close(): Promise<void> {
    this.stopWatching();
    const running = await this.running?.catch(() => undefined);
    this.running = undefined;
    await running?.process.stop();
  }

  private ensure(): Promise<{ process: ProxyProcess; ca: LocalCa }> {
    this.running ??= this.start().catch((error: unknown) => {
      this.running = undefined;
      throw error;
    });
    return this.running;
  }

  private async start(): Promise<{ process: ProxyProcess; ca: LocalCa }> {
    const binary = this.deps.binary();
    if (!binary)
      throw new BrokerError(
        'broker-unavailable',
        'kubecred-proxy is not installed beside the shim',
        'reinstall Kubecred, or build it with npm run build',
      );
    // The audit names the proxy that asked by its pid, known once it runs.
    const started: { pid?: number | undefined } = {};
    const handlers = {
      sign: (message: Readonly<Record<string, unknown>>) => this.sign(message),
      ...proxyAsks((profile) => this.listening.get(profile), {
        ...this.deps,
        auditHandover: (handover) =>
          this.deps.auditHandover?.({ ...handover, ...(started.pid ? { pid: started.pid } : {}) }),
      }),
    };
    let process: ProxyProcess;
    try {
      process = await this.deps.start(binary, handlers, (event) => {
        if (event.type === 'audit') this.deps.audit(event);
      });
    } catch (error) {
      throw notStarted(error);
    }
    started.pid = process.pid;
    void process.exited.then(() => {
      this.listening.clear();
      this.stopWatching();
      if (this.running)
        this.deps.logger.warn('kubecred-proxy exited; the next request for a proxied profile starts it again');
      this.running = undefined;
    });
    try {
      const stored = await this.deps.loadCa();
      const answer = await process.channel.request('init', { ca: stored ?? null });
      const ca = answer.ca as LocalCa;
      if (!stored) await this.deps.saveCa({ certPem: String(ca.certPem), keyPem: String(ca.keyPem) });
      return { process, ca: { certPem: String(ca.certPem), keyPem: String(ca.keyPem) } };
    } catch (error) {
      await process.stop();
      throw notStarted(error);
    }
  }

  /** `key`: the token's certificate and key type; undefined: the profile's credential goes upstream. */
  private async listen(
    process: ProxyProcess,
    profile: ProxiedProfile,
    key: { certificatePem: string; keyType: TokenKeyType } | undefined,
  ): Promise<void> {
    const proxy = await this.deps.upstreamProxy?.(profile);
    const request = {
      profile: profile.name,
      port: profile.port,
      upstream: {
        server: profile.server,
        caPem: profile.caPem ?? null,
        tlsServerName: profile.tlsServerName ?? null,
        ...(key
          ? {
              certificateChainPem: key.certificatePem,
              keyType: key.keyType === 'ec' ? ('ecdsa' as const) : ('rsa' as const),
            }
          : { auth: 'credential' as const }),
        ...(profile.tlsVersion ? { tlsVersion: profile.tlsVersion } : {}),
        ...(proxy ? { proxy } : {}),
      },
      headers: profile.headers ?? null,
      guard: guardMessage(profile.guard, this.deps.guardOffUntil?.(profile.name)),
    };
    const spec = JSON.stringify(request);
    const before = this.listening.get(profile.name);
    if (before?.spec === spec) return;
    try {
      await process.channel.request('listen', request);
    } catch (error) {
      throw new BrokerError('config-invalid', (error as Error).message, `kubecred doctor shows what holds the port`);
    }
    // A new upstream (another server, mode or CA) starts without the old credential or certificates.
    const sameUpstream = before && JSON.stringify(before.upstream) === JSON.stringify(request.upstream);
    this.listening.set(profile.name, {
      spec,
      upstream: request.upstream,
      profile,
      ...(key ? { keyType: key.keyType, certificatePem: key.certificatePem } : {}),
      ...(sameUpstream ? { pushed: before.pushed, local: before.local } : {}),
    });
    this.watchRemovals();
  }

  /**
   * Short (kubectl runs the shim again when it ends, and a stolen one is soon worthless), and
   * never past the token's PIN grace. A certificate that outlived the grace was served from
   * the cache with no PIN at all, and the PIN was asked only when the proxy next needed a
   * signature, in the middle of a TLS handshake and naming no program. Ending with the grace,
   * the next kubectl runs the shim for a new one, which asks for the PIN then, naming kubectl.
   */
  private lifetimeSeconds(loggedInUntil: Date | undefined): number {
    const lifetime = this.deps.localCertificateSeconds ?? LOCAL_CERTIFICATE_SECONDS;
    if (!loggedInUntil) return lifetime;
    const graceLeft = Math.floor((loggedInUntil.getTime() - (this.deps.now ?? Date.now)()) / 1000);
    return Math.max(MIN_LOCAL_CERTIFICATE_SECONDS, Math.min(lifetime, graceLeft));
  }

  /** The proxy's handshake for `profile` needs the token's signature. */
  private async sign(message: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const listener = typeof message.profile === 'string' ? this.listening.get(message.profile) : undefined;
    // A profile whose own credential goes upstream has no token key: nothing is signed for it.
    if (!listener?.keyType || !listener.profile.tokenKey)
      throw new BrokerError(
        'denied',
        `kubecred-proxy asked to sign for a profile it does not serve with a token key`,
        'restart Kubecred',
      );
    const signed = Buffer.from(String(message.message ?? ''), 'base64');
    const plan = planSignature(String(message.scheme), signed, listener.keyType, listener.profile.tlsVersion);
    // Sign only a handshake with this profile's cluster: a 1.2 transcript shows the server; for
    // 1.3 the proxy hands over the handshake, which the broker decrypts and hashes itself.
    const tls12 = listener.profile.tlsVersion === '1.2';
    const refusal = tls12
      ? tls12ServerRefusal(signed, listener.profile)
      : tls13ServerRefusal(tls13Evidence(message.handshake), signed, listener.profile);
    if (refusal)
      throw new BrokerError(
        'denied',
        `refused to sign a TLS ${tls12 ? '1.2' : '1.3'} handshake for profile "${listener.profile.name}": ${refusal}`,
        'check proxy.server, proxy.caFile and proxy.tlsServerName of the profile in config.yaml',
      );
    const { tokenKey, name } = listener.profile;
    const { token, label } = tokenKey;
    await this.closeRemoved();
    if (!this.listening.has(name))
      throw new BrokerError(
        'unknown-profile',
        `profile "${name}" is no longer in config.yaml: its exec proxy listener is closed`,
        'add the profile again to use it',
      );
    try {
      const signature = await this.deps.sign(token, label, plan, name);
      this.deps.auditSignature({ profile: name, token, scheme: String(message.scheme) });
      // One line per signature: each may have cost a touch or a PIN, and reused connections
      // should keep them rare (the tests count these lines against the real API server).
      this.deps.logger.info('token signature for the exec proxy', {
        profile: listener.profile.name,
        token,
        scheme: String(message.scheme),
      });
      return { signature: signature.toString('base64') };
    } catch (error) {
      // The token went away: every open connection signed with it ends (this profile's and any
      // other's on the same token), not just this handshake. The token session has forgotten the
      // card, so the removal watch would not see it go. After this refusal is on the wire: a
      // revoke read first would end this request too, and kubectl would see "ended" instead of
      // the refusal that names the token and what to do.
      if ((error as BrokerError).code === 'token-unavailable')
        setImmediate(() => void this.revokeToken(token).catch(() => undefined));
      throw error;
    }
  }
}

function notStarted(error: unknown): BrokerError {
  return error instanceof BrokerError
    ? error
    : new BrokerError(
        'broker-unavailable',
        `kubecred-proxy did not start: ${(error as Error).message}`,
        'see the broker log (kubecred logs)',
      );
}
