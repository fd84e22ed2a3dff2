import path from 'node:path';
import { tokenViewSchema } from '../../shared/api/webUiApi.js';
import { BrokerError } from '../core/brokerError.js';
import { certificateFacts } from '../platform/certificateFacts.js';
import { freePort } from '../platform/freePort.js';
import { turnOnProxy } from '../kubeconfig/proxyToggle.js';
import type { PromptQueue } from '../ui/promptQueue.js';
import type { UrlOpener } from '../core/ports.js';
import type { InteractionBoard } from '../ui/interactionBoard.js';
import type { Logger } from '../core/logger.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { addProfile, readProfile, updateProfile, updateToken } from '../config/configEditor.js';
import { currentPlatformEnv } from '../platform/paths.js';
import { xdgLoginItem, type LoginItem } from '../platform/loginItem.js';
import { readPreferences } from './readPreferences.js';
import { nativeShimPath, nodeCliPath } from '../platform/shimLocation.js';
import { brokerImportService } from './brokerImportService.js';
import { kubeconfigFiles } from '../kubeconfig/kubeconfigFiles.js';
import { ProfileContexts, type ProfileUse } from '../kubeconfig/profileContexts.js';
import type { KubecredPaths } from '../platform/paths.js';
import { readAuditTail } from '../state/auditReader.js';
import { startWebUi } from '../webui/startWebUi.js';
import type { WebUi } from '../webui/webUiPorts.js';
import { readKubeconfigs } from '../kubeconfig/kubeconfigUsers.js';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import { enrollConfiguration } from './enrollConfiguration.js';
import { WindowEnrollments } from './windowEnrollment.js';
import { installForContext } from './windowInstall.js';

export interface BrokerWebUiOptions {
  /**
   * When a question arrives and no page is open to show it, open the UI in the system browser,
   * so a PIN or an approval is never left to time out unseen. The tray app opens windows instead.
   */
  readonly askInBrowser: boolean;
  /** Replaces the XDG autostart entry Kubecred writes itself. */
  readonly loginItem?: LoginItem;
}

/** The broker's UI: the React app served on loopback, for browser tabs and the tray app's windows. */
export async function startBrokerWebUi(
  services: BrokerServices,
  board: InteractionBoard,
  prompts: PromptQueue,
  opener: UrlOpener,
  logger: Logger,
  paths: KubecredPaths,
  options: BrokerWebUiOptions = { askInBrowser: true },
): Promise<WebUi> {
  const loginItem = options.loginItem ?? xdgLoginItem();
  const usedBy = new ProfileContexts(() => kubeconfigFiles(currentPlatformEnv()));
  const enrollments = new WindowEnrollments({
    token: () => services.tokenKeys(),
    configuration: enrollConfiguration({
      paths,
      kubeconfigFiles: () => kubeconfigFiles(currentPlatformEnv()),
      localCa: () => services.proxies.caCertificate(),
      logger,
      newContextTakenHint: 'choose another profile name: the new kubectl context takes it',
    }),
    board,
    env: process.env,
    logger,
  });
  const webUi = await startWebUi({
    ports: {
      profiles: async () => {
        const [profiles, uses] = await Promise.all([
          services.credentials.profiles(),
          usedBy.current().catch(() => new Map<string, ProfileUse>()),
        ]);
        return profiles.map((profile) => {
          const use = uses.get(profile.name);
          return { ...profile, ...(use ? { contexts: use.contexts, servers: use.servers } : {}) };
        });
      },
      registries: () => services.registries.summaries(),
      // The same path as docker login's store: the registry whose matchImages serve the server keeps it.
      registryLogin: ({ server, username, password }) =>
        services.registries.dockerStore(JSON.stringify({ ServerURL: server, Username: username, Secret: password })),
      interactions: () => board.list(),
      // A login shown or done, a profile served, dropped or failed, and a new audit record: the
      // page hears of each at once (its Activity follows the trail).
      onChange: (listener) => {
        const stops = [board.onChange(listener), services.onProfilesChanged(listener), services.onAudited(listener)];
        return () => stops.forEach((stop) => stop());
      },
      login: (profile) => services.credentials.login(profile, { client: 'webui' }),
      logout: (profile) => services.credentials.logout(profile),
      // The card's button also stops an enrollment's wait, or takes its outcome away.
      cancelLogin: async (profile) => {
        if (!enrollments.stop(profile)) await services.credentials.cancelLogin(profile);
      },
      prompts,
      // config.yaml is the one source of truth: the broker re-reads it on its next request.
      addProfile: async (input) => {
        const added = await addProfile(paths.configFile, input);
        logger.info('profile added from the web UI', { profile: added.name });
      },
      removeProfile: async (profile) => {
        await services.profiles.remove(profile, { caller: {}, client: 'webui' });
        logger.info('profile removed from the web UI', { profile });
      },
      profileConfig: (profile) => readProfile(paths.configFile, profile),
      turnOnProxy: (profile) =>
        turnOnProxy(
          {
            configFile: paths.configFile,
            caDir: path.join(paths.stateDir, 'proxy-ca'),
            kubeconfigFiles: () => kubeconfigFiles(currentPlatformEnv()),
            backupDir: paths.kubeconfigBackups,
            shim: nativeShimPath() ?? nodeCliPath(),
            localCa: () => services.proxies.caCertificate(),
            freePort,
            logger,
            now: () => new Date(),
          },
          profile,
        ),
      installProfile: async (profile, context) => {
        const installed = await installForContext(
          {
            configFile: paths.configFile,
            kubeconfigFiles: () => kubeconfigFiles(currentPlatformEnv()),
            backupDir: paths.kubeconfigBackups,
            shim: nativeShimPath() ?? nodeCliPath(),
            localCa: () => services.proxies.caCertificate(),
            now: () => new Date(),
          },
          profile,
          context,
        );
        logger.info('profile installed for a context from the web UI', { profile, context, file: installed.file });
        return installed;
      },
      // Audited and logged by GuardControl; the proxy and every view hear of the change at once.
      guard: (profile, change, asker) =>
        change.off ? services.guards.off(profile, change.forSeconds * 1000, asker) : services.guards.on(profile, asker),
      // Written as any edit from the window: config.yaml's own schema decides, and a refusal writes
      // nothing. What was written goes to the audit trail, as a lift does.
      setGuard: async (profile, guard, asker) => {
        if (guard && !(await readProfile(paths.configFile, profile)).proxy)
          throw new BrokerError(
            'bad-request',
            `profile "${profile}" does not go through the exec proxy, and a guard works only there: the proxy is what sees each request`,
            'turn the exec proxy on first ("Turn on the exec proxy" on the profile\'s page), then add the guard',
          );
        await updateProfile(paths.configFile, profile, { guard });
        await services.guards.rulesChanged(profile, guard ? guard.rules.length : null, asker);
        logger.info(guard ? 'guard rules changed from the web UI' : 'guard removed from the web UI', {
          profile,
          ...(guard ? { rules: guard.rules.length } : {}),
        });
      },
      guardRefused: (profile, act, asker, why) => services.guards.refused(profile, act, asker, why),
      profileCertificate: async (profile) => certificateFacts(await services.credentials.storedCertificate(profile)),
      updateProfile: async (profile, changes) => {
        await updateProfile(paths.configFile, profile, changes);
        logger.info('profile changed from the web UI', { profile });
      },
      storeSecret: async (profile, field, value) => {
        await services.credentials.setSecret(profile, field, value);
        logger.info('secret stored from the web UI', { profile, field });
      },
      auditLog: () => readAuditTail(paths.auditLog, { limit: 200 }),
      // The token plugin's report carries object lists too; the page gets the summary only.
      tokens: async () =>
        (await services.admin.listTokens()).flatMap((token) => {
          const parsed = tokenViewSchema.safeParse(token);
          return parsed.success ? [parsed.data] : [];
        }),
      updateToken: async (token, changes) => {
        await updateToken(paths.configFile, token, changes);
        logger.info('token changed from the web UI', { token });
      },
      preferences: () => readPreferences(paths, loginItem),
      configError: () => services.credentials.configError(),
      setStartAtLogin: async (enabled) => {
        await loginItem.set(enabled);
        logger.info('start at login changed from the web UI', { enabled });
      },
      kubeconfigContexts: async () => {
        const readings = await readKubeconfigs(kubeconfigFiles(currentPlatformEnv()), { read: readTextWithMode });
        const names = readings
          .flatMap((reading) => (reading.state === 'read' ? reading.contexts : []))
          .map((c) => c.name);
        return [...new Set(names)];
      },
      enrollProfile: (request) => enrollments.start(request),
      kubeconfigImport: brokerImportService(services, paths, nativeShimPath() ?? nodeCliPath(), logger),
    },
    log: (line) => logger.info(line),
  });
  let open = 0;
  const approvalsSeen = new Set<string>();
  const unsubscribe = prompts.onChange(() => {
    // Only a question brings a page up; a PIN's refusal is told where the PIN was typed.
    const questions = prompts.list().filter((p) => p.kind !== 'pin-refused');
    const approvals = questions.filter((p) => p.kind === 'approval').map((p) => p.id);
    const newApproval = approvals.some((id) => !approvalsSeen.has(id));
    approvalsSeen.clear();
    for (const id of approvals) approvalsSeen.add(id);
    if (!options.askInBrowser) return void (open = questions.length);
    if (open === 0 && questions.length > 0 && webUi.openPages() === 0)
      void opener.open(webUi.newLink({ label: 'the broker, for a question no open page showed' }));
    // Pages opened through the socket cannot allow: one that can must be there for an approval.
    else if (newApproval && webUi.openPages({ approving: true }) === 0)
      void opener.open(webUi.newLink({ label: 'the broker, for an approval' }));
    open = questions.length;
  });
  return {
    ...webUi,
    close: async () => {
      unsubscribe();
      enrollments.close();
      await webUi.close();
    },
  };
}

/** Starts the web UI once, on first need, however many ask at once. */
export class WebUiHost {
  private starting: Promise<WebUi> | undefined;
  private started: WebUi | undefined;

  constructor(private readonly start: () => Promise<WebUi>) {}

  /** Whether the web UI has started (a page may or may not be open). */
  get running(): boolean {
    return this.started !== undefined;
  }

  get current(): WebUi | undefined {
    return this.started;
  }

  ensure(): Promise<WebUi> {
    this.starting ??= this.start().then(
      (webUi) => (this.started = webUi),
      (error: unknown) => {
        this.starting = undefined;
        throw error;
      },
    );
    return this.starting;
  }

  async close(): Promise<void> {
    const webUi = await this.starting?.catch(() => undefined);
    await webUi?.close();
  }
}
