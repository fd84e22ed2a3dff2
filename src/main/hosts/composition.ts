import path from 'node:path';
import { proxySettings } from '../platform/proxyEnvironment.js';
import { systemRoots } from '../platform/systemTrust.js';
import { networkWords } from '../providers/profileNetworkSummary.js';
import { BrokerProxies } from '../platform/brokerProxies.js';
import { SystemProxyRoutes, type SystemProxyResolver } from '../platform/systemProxyRoutes.js';
import { LoginStorms } from '../broker/loginStorms.js';
import { DEFAULT_LOG_LIMITS, PROXY_PASSWORD_FIELD } from '../../shared/config/schema.js';
import { secretSourceEnvironment } from '../../shared/api/secretSourceVariables.js';
import { systemClock, type Clock } from '../core/clock.js';
import { CredentialBroker } from '../broker/credentialBroker.js';
import { CredentialCache } from '../cache/credentialCache.js';
import { profileOfCacheKey } from '../cache/cacheKey.js';
import type { Logger } from '../core/logger.js';
import type { InteractionBoard } from '../ui/interactionBoard.js';
import { ProviderRegistry } from '../broker/providerRegistry.js';
import { RegistryBroker } from '../broker/registryBroker.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { runPasswordCommand } from '../registry/passwordCommand.js';
import { RegistryLogins } from '../registry/registryLogins.js';
import type { BrokerUi } from '../core/uiPorts.js';
import { AskingContext } from '../broker/askingContext.js';
import { Approvals } from '../broker/approvals.js';
import { RevocationCheck } from '../broker/revocationCheck.js';
import { HttpsClusterProbe } from '../platform/httpsClusterProbe.js';
import { ConfigSource, LAST_GOOD_CONFIG } from '../config/configSource.js';
import type { KubecredPaths } from '../platform/paths.js';
import { ProcessCallerInfo } from '../platform/processInfo.js';
import { composeAwsSessions } from '../providers/eks/composeAwsSessions.js';
import { OfferedAnswers } from '../providers/offeredAnswers.js';
import { createProvider, profileSignsIn, secretFieldsOf } from '../providers/providerCatalog.js';
import type { ProviderDependencies } from '../providers/providerDescriptor.js';
import { ScreenedAnswers } from '../broker/screenedAnswers.js';
import { loginSecretKind, mfaCodeKind } from '../broker/typedAnswerKinds.js';
import { KeychainStore } from '../secrets/keychain/keychainStore.js';
import { HealthRecordingStore } from '../secrets/storeHealth.js';
import { createPkcs11Service, type Pkcs11Service } from '../secrets/pkcs11/pkcs11Service.js';
import { SecretAdmin } from '../secrets/secretAdmin.js';
import { pinTokenOf, profilesUsingToken } from '../secrets/tokenProfiles.js';
import type { SecretStore } from '../core/secretStore.js';
import { SecretStores } from '../secrets/secretStores.js';
import { EncryptedFileHolder } from '../secrets/encryptedFile/encryptedFileHolder.js';
import { TokenServiceHolder } from '../secrets/tokenServiceHolder.js';
import { FileAuditLog } from '../state/fileAuditLog.js';
import { failuresBeforeStart } from '../state/failuresBeforeStart.js';
import { ProfileRemoval } from '../broker/profileRemoval.js';
import { restoreLiveRefreshTokens } from '../kubeconfig/liveRefreshTokens.js';
import { ProxySupervisor } from '../proxy/proxySupervisor.js';
import { startProxyProcess } from '../proxy/proxyProcess.js';
import { upstreamProxy } from '../proxy/upstreamProxy.js';
import {
  localCaInKeychain,
  PROXY_CONNECTION,
  proxiedProfile,
  proxyChannelChecks,
  recordCredentialHandover,
  recordProxiedRequest,
  recordTokenSignature,
} from '../proxy/proxyWiring.js';
import { localCertificateSeconds } from '../proxy/localCertificateLifetime.js';
import { proxyPath } from '../platform/shimLocation.js';
import { TokenRemovalWatch } from '../proxy/tokenRemovalWatch.js';
import { GuardUnlocks } from '../proxy/guardUnlocks.js';
import { GuardControl } from '../broker/guardControl.js';
import { GuardLifters } from '../broker/guardLifters.js';
import { confirmGuardedRequest } from '../broker/guardConfirmations.js';
import { EnrolledCertificates } from '../enroll/enrolledCertificates.js';

export interface CompositionOptions {
  readonly paths: KubecredPaths;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly keychain?: SecretStore;
  /** Every question the broker asks goes here: the host decides where (windows, the web UI, a script). */
  readonly ui: BrokerUi;
  /** Logins in progress, for the host to show (the web UI, `kubecred login`, the shim's notice). */
  readonly interactions: InteractionBoard;
  /** Whether nobody is at the screen (locked, idle), where the host can tell: no sign-in page opens then. */
  readonly away?: () => boolean;
  /**
   * The roots every provider trusts, read once per broker (readTrustedRoots: the OS store too);
   * absent, what systemRoots reads without running anything (Node's, the Linux bundle).
   */
  readonly roots?: readonly string[];
  /** The OS's proxy settings and PAC file (the tray app's Electron), asked where no proxy variable is set. */
  readonly systemProxy?: SystemProxyResolver;
}

/** The one place that wires the broker from its ports; the daemon and the Electron app both call it. */
export function composeBroker({
  paths,
  logger,
  clock = systemClock,
  keychain = new KeychainStore(),
  interactions,
  ui,
  away,
  roots = systemRoots(process.env),
  systemProxy,
}: CompositionOptions): BrokerServices {
  const config = new ConfigSource(paths.configFile, path.join(paths.stateDir, LAST_GOOD_CONFIG));
  const keychainHealth = new HealthRecordingStore(keychain);
  const asking = new AskingContext();
  const callers = new ProcessCallerInfo();
  // A question asked while serving a credential says who asked: a PIN names the program and
  // the profile it is for, and a login form knows whether its caller has a terminal to ask in.
  const askerUi: BrokerUi = {
    askPin: async (request) => ui.askPin({ ...request, ...(await asking.describe()) }),
    pinRefused: (request, why) =>
      void asking.describe().then((asker) => ui.pinRefused?.({ ...request, ...asker }, why)),
    askPassphrase: (request) => ui.askPassphrase(request),
    askApproval: (request) => ui.askApproval(request),
    showLogin: (prompt, signal) => ui.showLogin(prompt, signal),
    askForm: async (request) => {
      const { callerTerminal } = await asking.describe();
      return ui.askForm({ ...request, ...(callerTerminal ? { callerTerminal } : {}) });
    },
    openBrowser: (url) => ui.openBrowser(url),
  };
  // Set below, once the cache exists; a PIN is forgotten only after a token was used.
  let forgetTokenCredentials: (token: string) => void = () => {};
  const tokens = new TokenServiceHolder<Pkcs11Service>((configured) =>
    createPkcs11Service({
      tokens: configured,
      ui: askerUi,
      clock,
      onPinForgotten: (token) => forgetTokenCredentials(token),
    }),
  );
  const currentTokens = async () => tokens.current((await config.current()).config.tokens);
  const encryptedFiles = new EncryptedFileHolder(paths.home, ui);
  const stores = new SecretStores(config, {
    keychain: () => keychainHealth,
    'encrypted-file': (_ref, current) => encryptedFiles.current(current),
    token: (ref, current) => tokens.current(current.tokens).secretStore(ref.token),
  });
  const mfaCodes = new OfferedAnswers(() => clock.now());
  const loginSecrets = new OfferedAnswers(() => clock.now());
  // Set below, once the cache exists: whether the login that just ended left a credential.
  let signedIn: (profile: string) => boolean = () => false;
  const loginUi = new LoginStorms({
    ui,
    clock,
    logger,
    asker: () => asking.describe(),
    signedIn: (profile) => signedIn(profile),
    ...(away ? { away } : {}),
  });
  // The machine's roots, read once at start; the proxy config.yaml's network names, else the
  // variables of the environment the broker started in, read once as kubectl reads them.
  const outboundProxies = new BrokerProxies(
    proxySettings(process.env),
    systemProxy ? new SystemProxyRoutes(systemProxy, clock, logger) : undefined,
  );
  config.follow((current) => outboundProxies.adopt(current.network));
  const network = { proxies: outboundProxies, roots };
  const awsSessions = composeAwsSessions(clock, loginUi, () => asking.describe(), mfaCodes, process.env, network);
  const providerDependencies: ProviderDependencies = {
    clock,
    logger,
    storeFor: (name) => stores.forProfile(name),
    loginUi,
    askingUi: askerUi,
    showMessage: (profile, text, until) => interactions.show({ profile, kind: 'message', text }, until),
    typedSecrets: loginSecrets,
    awsSessions,
    env: process.env,
    network,
    tokenCertificate: async (token, label) => (await currentTokens()).clientCertificate(token, label),
    proxyCredential: (proxied) => proxies.credential(proxiedProfile(proxied)),
  };
  const cache = new CredentialCache(clock, undefined, (key, error) =>
    logger.warn('background refresh failed', { profile: profileOfCacheKey(key), reason: (error as Error).message }),
  );
  signedIn = (profile) => cache.describe(profile).cached;
  // A profile that failed before a restart still says so: its state comes from its last outcome.
  void config
    .current()
    .then(({ config: atStart }) =>
      failuresBeforeStart(paths.auditLog, {
        wrapsPlugin: (name) => atStart.profiles.find((profile) => profile.name === name)?.provider === 'exec',
        now: clock.now(),
      }),
    )
    .then((failures) => cache.recallFailures(failures));
  forgetTokenCredentials = (token) => {
    logger.info("token's PIN forgotten: dropping the credentials made with it", { token });
    void config.current().then(({ config: current }) => {
      for (const profile of profilesUsingToken(current, token)) cache.forget(profile);
    });
  };
  const approvals = new Approvals(ui, clock, callers);
  const audit = new FileAuditLog(
    paths.auditLog,
    async () => (await config.current()).config.logs ?? DEFAULT_LOG_LIMITS,
  );
  const auditFailed = (error: Error) => logger.warn('audit log write failed', { reason: error.message });
  const guardUnlocks = new GuardUnlocks(clock);
  const guardLifters = new GuardLifters();
  const proxies: ProxySupervisor = new ProxySupervisor({
    binary: () => proxyPath(),
    start: (binary, handlers, onEvent) =>
      asking.outside(() =>
        startProxyProcess(
          {
            binary,
            socketDir: path.dirname(paths.socket),
            checks: proxyChannelChecks(),
            logger,
            ...(outboundProxies.variables ? { proxyVariables: outboundProxies.variables } : {}),
          },
          handlers,
          onEvent,
        ),
      ),
    ...localCaInKeychain(keychainHealth),
    tokenKey: async (token, label) => (await currentTokens()).tokenKey(token, label),
    // A handshake's PIN prompt names what asks: a connection through the proxy, not a program.
    sign: (token, label, plan, profile) =>
      asking.run({ profile, caller: async () => ({ name: PROXY_CONNECTION }) }, async () =>
        (await currentTokens()).sign(token, label, plan),
      ),
    audit: (event) => void recordProxiedRequest(audit, clock, event).catch(auditFailed),
    auditSignature: (signed) => void recordTokenSignature(audit, clock, signed).catch(auditFailed),
    auditHandover: (handover) => void recordCredentialHandover(audit, clock, handover).catch(auditFailed),
    // Called by the proxy later, once `credentials` below exists.
    upstreamCredential: (profile, reason) => credentials.upstreamCredential(profile, reason),
    upstreamProxy: (profile) =>
      upstreamProxy(profile, network.proxies, async () =>
        (await stores.forProfile(profile.name)).get({ profile: profile.name, field: PROXY_PASSWORD_FIELD }),
      ),
    confirm: (confirmation) => confirmGuardedRequest(ui, callers, confirmation),
    guardOffUntil: (profile) => guardUnlocks.offUntil(profile),
    profilesNow: async () => new Map((await config.current()).config.profiles.map((p) => [p.name, p.guard])),
    logger,
    // Read once, at start: a bad value stops the broker with a message that names it.
    localCertificateSeconds: localCertificateSeconds(process.env),
    now: () => clock.now(),
  });
  const enrolled = new EnrolledCertificates({
    profiles: async () => (await config.current()).config.profiles,
    readCertificate: async (token, label) => (await currentTokens()).publicCertificate(token, label),
    logger,
  });
  void enrolled.load();
  const credentials: CredentialBroker = new CredentialBroker({
    clock,
    config,
    configPath: paths.configFile,
    providers: new ProviderRegistry((profile) => createProvider(profile, providerDependencies)),
    cache,
    stores,
    audit,
    callers,
    logger,
    approvals,
    revocations: new RevocationCheck(new HttpsClusterProbe(network), clock),
    secretFields: secretFieldsOf,
    asking,
    signsIn: (profile) => profileSignsIn(profile, process.env),
    waitsOnToken: async (profile) => {
      const token = pinTokenOf(profile);
      if (token === undefined || (tokens.peek()?.pinKnown(token) ?? false)) return undefined;
      // Never loaded: nothing says the card is out, and asking would load the module.
      return { token, present: (await tokens.peek()?.present(token)) ?? true };
    },
    // The proxy's is the one presented; before it listens, the one read from the token at start.
    tokenCertificate: (profile) => proxies.certificateOf(profile) ?? enrolled.certificateOf(profile),
    proxyListens: (profile) => proxies.listens(profile),
    guardOffUntil: (profile) => guardUnlocks.offUntil(profile),
    guardLiftedBy: (profile) => guardLifters.of(profile),
    signingIn: (profile) => interactions.list().some((shown) => shown.profile === profile && shown.kind !== 'message'),
    proxied: {
      localCredential: async (profile, upstream) => {
        const local = await proxies.localCredential(proxiedProfile(profile), upstream);
        return { clientCertificateData: local.certificatePem, clientKeyData: local.keyPem, expiresAt: local.expiresAt };
      },
      offerUpstream: (profile, upstream) => proxies.offerUpstream(profile, upstream),
      endUpstream: (profile, reason) => proxies.revoke(profile, reason, true),
    },
    environment: { pid: process.pid, secretSources: () => secretSourceEnvironment(process.env) },
    network: networkWords(network.proxies, process.env),
  });
  const registries = new RegistryBroker({
    clock,
    config,
    configPath: paths.configFile,
    logins: new RegistryLogins({ clock, stores, cache, runPasswordCommand }),
    audit,
    callers,
    logger,
    approvals,
  });
  const admin = new SecretAdmin(
    config,
    encryptedFiles,
    tokens,
    cache,
    logger,
    [approvals, awsSessions, guardUnlocks],
    proxies,
  );
  const tokenRemovals = new TokenRemovalWatch({
    tokensInUse: () => proxies.tokensInUse(),
    presence: async (token) => tokens.peek()?.presence(token) ?? 'idle',
    revokeToken: (token) => proxies.revokeToken(token),
    logger,
  });
  tokenRemovals.start();
  // A guard lifted or back reaches the proxy at once: it decides each request by itself.
  guardUnlocks.onChange((profile) => {
    // Every view shows the guard's state: they hear of it as of any other change of the profile.
    cache.changes.notify();
    void proxies
      .refreshGuard(profile)
      .catch((error: Error) =>
        logger.warn('could not tell kubecred-proxy of a guard change', { profile, reason: error.message }),
      );
  });
  const guards = new GuardControl({
    unlocks: guardUnlocks,
    lifters: guardLifters,
    profileNamed: (name) => credentials.profileNamed(name),
    audit,
    // A lift asked by a program the person may not know of is asked where approvals are.
    ui,
    clock,
    logger,
  });
  return {
    guards,
    profiles: new ProfileRemoval({ configFile: paths.configFile, cache, audit, clock, logger }),
    credentials,
    admin,
    registries,
    interactions,
    proxies,
    tokenKeys: currentTokens,
    mfaCodes: new ScreenedAnswers(mfaCodeKind(process.env), mfaCodes, (name) => credentials.profileNamed(name)),
    loginSecrets: new ScreenedAnswers(loginSecretKind, loginSecrets, (name) => credentials.profileNamed(name)),
    restoreLiveRefreshTokens: () =>
      restoreLiveRefreshTokens(paths.kubeconfigBackups, async (profile) =>
        (await stores.forProfile(profile)).get({ profile, field: 'refresh-token' }),
      ),
    keychainFailure: () => keychainHealth.lastFailure(),
    onProfilesChanged: (listener) => cache.changes.onChange(listener),
    onAudited: (listener) => audit.appended.onChange(listener),
    close: async () => {
      tokenRemovals.stop();
      guardUnlocks.close();
      await proxies.close();
      cache.forgetAll();
      encryptedFiles.lock();
      await tokens.close();
      await audit.close();
    },
  };
}
