import type { CredentialRequest } from '../../shared/api/credentialRequest.js';
import type { ProfileSummary } from '../../shared/api/status.js';
import { profileName as profileNameSchema, type ProfileConfig } from '../../shared/config/schema.js';
import { SECRET_FIELD_PATTERN } from '../core/secretStore.js';
import type { CallerPort, SecretStoresPort } from '../core/ports.js';
import type { Approvals } from './approvals.js';
import { AfterServe, type AfterServePorts } from './afterServe.js';
import type { AskingContext } from './askingContext.js';
import { recordAudit, type AuditLog } from '../core/auditLog.js';
import { UserDeclined } from '../core/userDeclined.js';
import { BrokerError } from '../core/brokerError.js';
import { unknownProfileError } from '../config/unknownProfile.js';
import { refuseUnreadSecretField } from './unreadSecretField.js';
import { credentialCacheKey } from '../cache/cacheKey.js';
import { parseExecInfo } from './execInfo.js';
import { profileSummaries, type SummaryPorts } from './profileSummaries.js';
import { CERTIFICATE_FIELD } from '../providers/static/staticProvider.js';
import { renderExecCredential } from './renderExecCredential.js';
import { AnswersTold } from './answersTold.js';
import { explainEnvironmentDifference, type BrokerEnvironment } from './environmentDifference.js';
import type { Credential } from '../../shared/credential.js';
import { sendsOwnCredentialUpstream } from '../proxy/proxyWiring.js';
import { UpstreamCredentials, type ProxiedAnswerPort, type UpstreamReason } from './upstreamCredentials.js';

export type { ProxiedAnswerPort };

/** What the broker needs, beside what its after-serve checks and its profile summaries need. */
export interface BrokerPorts extends AfterServePorts, SummaryPorts {
  readonly configPath: string;
  readonly stores: SecretStoresPort;
  readonly audit: AuditLog;
  readonly callers: CallerPort;
  readonly approvals: Approvals;
  /** The secret fields the profile's provider reads (the provider's descriptor). */
  readonly secretFields: (profile: ProfileConfig) => readonly string[];
  /** Lets a question asked while serving (a token PIN) name the profile and the program. */
  readonly asking?: AskingContext;
  /** The broker's pid and secret sources, to name the ones a failing caller's shell has otherwise. */
  readonly environment?: BrokerEnvironment;
  /** Absent: a profile whose credential would go through the proxy is refused with what to do. */
  readonly proxied?: ProxiedAnswerPort;
}

/** The broker's use cases, free of HTTP and Electron: the server and the tray both call these. */
export class CredentialBroker {
  /** One controller per running login (`login`), so the UI's Cancel can stop it. */
  private readonly logins = new Map<string, Set<AbortController>>();
  /** Aborted when the broker stops: a login that waits on a person must not hold the stop up. */
  private readonly stopping = new AbortController();
  private readonly afterServe: AfterServe;
  private readonly answersTold: AnswersTold;
  private readonly upstream: UpstreamCredentials;

  constructor(private readonly ports: BrokerPorts) {
    this.afterServe = new AfterServe(ports);
    this.answersTold = new AnswersTold(ports.clock);
    this.upstream = new UpstreamCredentials(ports, this.stopping.signal);
  }

  /** Answers an exec plugin call with the ExecCredential JSON to print. */
  credential(request: CredentialRequest): Promise<string> {
    // Pinned now, while the caller surely runs (it waits on this answer; once it has it, a
    // kubectl may exit within a millisecond and leave /proc only its self-chosen name), and
    // described on first ask: before the answer where an approval or a question needs it, else
    // just after, for the audit trail. Pinning is one or two readlinks; describing costs more.
    const pinned = this.ports.callers.pin?.(request.parentPid);
    const caller = onFirstAsk(() => this.ports.callers.describe(request.parentPid, pinned).catch(() => ({})));
    const { asking } = this.ports;
    if (!asking) return this.serve(request, caller);
    const profile = request.argv[1] ?? '';
    return asking.run({ profile, caller, terminal: request.stdinIsTerminal }, () => this.serve(request, caller));
  }

  /** `described`: the caller as /proc names it, from what was pinned when the request arrived once it is gone. */
  private async serve(request: CredentialRequest, described: () => Promise<CallerDescription>): Promise<string> {
    const { profile: profileName, apiVersion: declaredApiVersion } = parseCredentialArgs(request.argv);
    try {
      // client-go's automatic second try after a wrong PIN, a cancel or a denial: the same
      // answer, no second prompt.
      const told = this.answersTold.repeat(profileName, request.parentPid);
      if (told) throw told;
      const execInfo = parseExecInfo(request.execInfo, declaredApiVersion);
      const profile = await this.profile(profileName);
      const { provider, changed } = this.ports.providers.resolve(profile);
      if (changed) this.ports.cache.forget(profile.name);
      if (profile.approval !== 'never') {
        const caller = await described();
        await this.ports.approvals.check(profile.approval, {
          profile: profile.name,
          caller,
          ...(execInfo.cluster?.server ? { cluster: execInfo.cluster.server } : {}),
        });
      }
      // Through the proxy, the cluster kubectl names is the proxy's listener: the credential is for
      // the real one, and kept under one key the proxy's own renewals find too.
      const upstream = sendsOwnCredentialUpstream(profile);
      const cluster = upstream ? undefined : execInfo.cluster;
      const key = credentialCacheKey(profile.name, cluster);
      // A check of this profile's token under way may be about to drop it: not served again meanwhile.
      await this.afterServe.settled(profile.name);
      const { credential: fetched, source } = await this.ports.cache.get(key, () =>
        provider.getCredential({
          profile: profile.name,
          cluster,
          interactive: request.stdinIsTerminal && execInfo.interactive,
          signal: this.stopping.signal,
        }),
      );
      this.afterServe.served({
        profile: profile.name,
        callerPid: request.parentPid,
        cluster,
        credential: fetched,
        fromCache: source === 'cache',
        provider,
      });
      const credential = upstream ? await this.upstream.answer(profile, fetched) : fetched;
      // Recorded after the answer is on its way: the audit trail must not slow the hot path.
      setImmediate(() => void this.audit(request, described(), { profile: profileName, outcome: 'served', source }));
      return renderExecCredential(execInfo.apiVersion, credential);
    } catch (thrown) {
      const error = explainEnvironmentDifference(thrown, request.environment, this.ports.environment);
      this.answersTold.record(profileName, request.parentPid, error);
      const denied = error instanceof BrokerError && error.code === 'denied';
      void this.audit(request, described(), {
        profile: profileName,
        outcome: denied ? 'denied' : 'failed',
        failure: error,
      });
      throw error;
    }
  }

  /** A proxied profile's credential for kubecred-proxy, which has nobody to ask (UpstreamCredentials). */
  async upstreamCredential(profileName: string, reason: UpstreamReason): Promise<Credential> {
    return this.upstream.credential(await this.profile(profileName), reason);
  }

  profiles(): Promise<ProfileSummary[]> {
    return profileSummaries(this.ports);
  }

  async configError(): Promise<string | null> {
    return (await this.ports.config.current()).error;
  }

  /** `caller`: who stores it, named by a token's PIN prompt ("kubecred (pid 4242) … for profile x"). */
  async setSecret(
    profileName: string,
    field: string,
    value: string,
    caller?: () => Promise<CallerDescription>,
  ): Promise<void> {
    const { asking } = this.ports;
    if (asking && caller)
      return asking.run({ profile: profileName, caller }, () => this.storeSecret(profileName, field, value));
    return this.storeSecret(profileName, field, value);
  }

  private async storeSecret(profileName: string, field: string, value: string): Promise<void> {
    const profile = await this.profile(profileName);
    checkField(field);
    refuseUnreadSecretField(profile, field, this.ports.secretFields(profile));
    const store = await this.ports.stores.forProfile(profile.name);
    await store.set({ profile: profile.name, field }, value);
    this.ports.cache.forget(profile.name);
    this.ports.logger.info('secret stored', { profile: profile.name, field, store: store.name });
    await this.upstream.renew(profile);
  }

  async deleteSecret(profileName: string, field: string): Promise<boolean> {
    // A profile that is gone from config.yaml may still have secrets to clean up, but only a
    // profile's: a registry's login (owner "registry:<name>") is not reachable this way.
    if (!profileNameSchema.safeParse(profileName).success) {
      throw new BrokerError(
        'unknown-profile',
        `"${profileName}" is not a profile name`,
        'registry logins are erased with: docker logout <registry> (or kubecred registry)',
      );
    }
    checkField(field);
    const deleted = await (await this.ports.stores.forProfile(profileName)).delete({ profile: profileName, field });
    this.ports.cache.forget(profileName);
    return deleted;
  }

  /**
   * The client certificate (PEM) a static profile keeps in its store, for its page; undefined
   * where it keeps none. The certificate is public; its key is never read here.
   */
  async storedCertificate(profileName: string): Promise<string | undefined> {
    const profile = await this.profile(profileName);
    if (profile.provider !== 'static') return undefined;
    // A certificate on a token is read by the exec proxy, which keeps it: no PIN is asked here.
    if (profile.tokenCertificate) return this.ports.tokenCertificate?.(profile.name);
    const store = await this.ports.stores.forProfile(profile.name);
    return (await store.get({ profile: profile.name, field: CERTIFICATE_FIELD })) || undefined;
  }

  /** The names of the profile's stored secrets, and the store that holds them; never the values. */
  async listSecrets(profileName: string): Promise<{ store: string; fields: string[] }> {
    const profile = await this.profile(profileName);
    const store = await this.ports.stores.forProfile(profile.name);
    return { store: store.name, fields: await store.list(profile.name) };
  }

  /**
   * A new credential now, without a new login: the provider asked again (an OIDC refresh, a
   * Keystone token from the stored password, the plugin run again), for a token the cluster
   * revoked before it expired. The cached ones stay until the new one comes: a refresh that
   * fails, the issuer down, loses nothing.
   */
  async refresh(profileName: string): Promise<{ expiresAt: string | null; account?: string }> {
    const profile = await this.profile(profileName);
    const { provider } = this.ports.providers.resolve(profile);
    const credential = await this.ports.cache.renew(credentialCacheKey(profile.name, undefined), () =>
      provider.getCredential({ profile: profile.name, cluster: undefined, interactive: false }),
    );
    this.ports.logger.info('refreshed', { profile: profile.name });
    await this.upstream.offer(profile, credential);
    return {
      expiresAt: credential.expiresAt?.toISOString() ?? null,
      ...(credential.account ? { account: credential.account } : {}),
    };
  }

  /** An interactive login now, for providers that have one (OIDC, Keystone). */
  /**
   * `asker`: who asked (the CLI over the socket, the window, the tray), for the audit trail: a
   * login that failed shows in Activity as a kubectl's failure does, not only where it was typed.
   */
  async login(
    profileName: string,
    asker: LoginAsker = { client: 'broker' },
  ): Promise<{ expiresAt: string | null; account?: string }> {
    const profile = await this.profile(profileName);
    const outcome = await this.loginOnce(profile).then(
      (done) => ({ done }),
      (failure: unknown) => ({ failure }),
    );
    const described = asker.caller ?? Promise.resolve({});
    await recordAudit(
      this.ports,
      { client: asker.client, described },
      'done' in outcome
        ? { profile: profile.name, outcome: 'served', source: 'provider' }
        : {
            profile: profile.name,
            outcome: outcome.failure instanceof UserDeclined ? 'denied' : 'failed',
            failure: outcome.failure,
          },
    );
    if ('failure' in outcome) throw outcome.failure;
    return outcome.done;
  }

  private async loginOnce(profile: ProfileConfig): Promise<{ expiresAt: string | null; account?: string }> {
    const { provider } = this.ports.providers.resolve(profile);
    if (!provider.login) {
      throw new BrokerError(
        'bad-request',
        `profile "${profile.name}" uses the ${profile.provider} provider, which has no interactive login`,
        profile.provider === 'static'
          ? `store its secret with: kubecred secret set ${profile.name} token`
          : 'its credentials come from its command',
      );
    }
    this.ports.cache.forget(profile.name);
    const login = provider.login.bind(provider);
    const controller = new AbortController();
    const running = this.logins.get(profile.name) ?? new Set<AbortController>();
    this.logins.set(profile.name, running.add(controller));
    try {
      // Through the cache: status and the UIs see the profile signed in, and a failure as its last error.
      const { credential } = await this.ports.cache.get(credentialCacheKey(profile.name, undefined), () =>
        login({ profile: profile.name, cluster: undefined, interactive: true, signal: controller.signal }),
      );
      this.ports.logger.info('logged in', { profile: profile.name });
      await this.upstream.offer(profile, credential);
      return {
        expiresAt: credential.expiresAt?.toISOString() ?? null,
        ...(credential.account ? { account: credential.account } : {}),
      };
    } finally {
      running.delete(controller);
      if (running.size === 0 && this.logins.get(profile.name) === running) this.logins.delete(profile.name);
    }
  }

  /**
   * Stops the profile's running login (the UI's Cancel). The provider ends it for every caller
   * waiting on it, with an error that says it was cancelled.
   */
  async cancelLogin(profileName: string): Promise<void> {
    const profile = await this.profile(profileName);
    const running = this.logins.get(profile.name);
    if (!running?.size) {
      throw new BrokerError(
        'bad-request',
        `no login of profile "${profile.name}" started from Kubecred is running`,
        'a login that a kubectl call started stops when that call is stopped (Ctrl-C)',
      );
    }
    // The person's no, not a failure of the profile: it goes back to how it was (signed out).
    const reason = new UserDeclined(
      'provider-failed',
      `the login for profile "${profile.name}" was cancelled`,
      `run: kubecred login ${profile.name}`,
    );
    for (const controller of running) controller.abort(reason);
    this.ports.logger.info('login cancelled', { profile: profile.name });
  }

  /**
   * The broker is stopping (`kubecred stop`, a signal): every login that waits on a person
   * ends now, and its callers are told why and what to do, instead of holding the stop up
   * until the login times out.
   */
  stop(): void {
    const reason = new BrokerError(
      'broker-unavailable',
      'the Kubecred broker stopped while this login waited',
      'run the command again: it starts a new broker, which asks you anew',
    );
    this.stopping.abort(reason);
    for (const running of this.logins.values()) for (const controller of running) controller.abort(reason);
  }

  /** Forget the profile's cached credentials and whatever its provider keeps (refresh tokens). */
  async logout(profileName: string): Promise<void> {
    const profile = await this.profile(profileName);
    this.ports.cache.forget(profile.name);
    await this.ports.providers.resolve(profile).provider.logout?.(profile.name);
    await this.upstream.end(profile);
    this.ports.logger.info('logged out', { profile: profile.name });
  }

  /** Log out locally: forget cached credentials of one profile, or of all. */
  forget(profileName?: string): void {
    if (profileName === undefined) this.ports.cache.forgetAll();
    else this.ports.cache.forget(profileName);
  }

  /** The profile of that name in config.yaml, or an error naming the profiles there and how to add one. */
  async profileNamed(name: string): Promise<ProfileConfig> {
    return this.profile(name);
  }

  private async profile(name: string): Promise<ProfileConfig> {
    const { config, error } = await this.ports.config.current();
    const profile = config.profiles.find((p) => p.name === name);
    if (profile) return profile;
    if (error) {
      throw new BrokerError(
        'config-invalid',
        `no usable profile "${name}": ${error}`,
        'fix the file; Kubecred reloads it on the next request',
      );
    }
    throw unknownProfileError(
      name,
      this.ports.configPath,
      config.profiles.map((p) => p.name),
    );
  }

  private audit(
    request: CredentialRequest,
    described: Promise<CallerDescription>,
    record: Parameters<typeof recordAudit>[2],
  ): Promise<void> {
    return recordAudit(this.ports, { ...request, described }, record);
  }
}

type CallerDescription = { pid?: number; name?: string };

/** The promise `start` makes, started when first asked for and shared after. */
function onFirstAsk<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => (started ??= start());
}

/** Who asked for a login, as the audit trail names it. */
export interface LoginAsker {
  readonly client: string;
  readonly caller?: Promise<CallerDescription>;
}

/** `credential <profile> [--api-version <version>]`: the flag serves clients that send no KUBERNETES_EXEC_INFO. */
function parseCredentialArgs(argv: readonly string[]): { profile: string; apiVersion?: string } {
  const [command, profile, ...rest] = argv;
  const flag = rest[0]?.startsWith('--api-version=')
    ? { value: rest[0].slice('--api-version='.length), used: 1 }
    : rest[0] === '--api-version'
      ? { value: rest[1], used: 2 }
      : { value: undefined, used: 0 };
  if (
    command !== 'credential' ||
    !profile ||
    profile.startsWith('-') ||
    rest.length !== flag.used ||
    (flag.used > 0 && !flag.value)
  ) {
    throw new BrokerError(
      'bad-request',
      `the exec plugin was called with arguments ${JSON.stringify(argv).slice(0, 300)}`,
      'the kubeconfig exec args must be: credential <profile> [--api-version <version>]',
    );
  }
  return flag.value ? { profile, apiVersion: flag.value } : { profile };
}

function checkField(field: string): void {
  if (!SECRET_FIELD_PATTERN.test(field)) {
    throw new BrokerError(
      'bad-request',
      `"${field}" is not a valid secret field name`,
      'use lower-case letters, digits and "-", e.g. token, client-certificate, client-key',
    );
  }
}
