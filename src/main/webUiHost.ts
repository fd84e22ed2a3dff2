import path from 'node:path';
import { tokenViewSchema, type Preferences } from '../shared/api/webUiApi.js';
import { certificateFacts } from './platform/certificateFacts.js';
import { freePort } from './platform/freePort.js';
import { turnOnProxy } from './proxyToggle.js';
import { PromptQueue } from './ui/promptQueue.js';
import type { BrowserLoginUi } from './ui/browserLoginUi.js';
import type { UrlOpener } from './core/ports.js';
import type { InteractionBoard } from './ui/interactionBoard.js';
import type { Logger } from './core/logger.js';
import type { BrokerUi } from './core/uiPorts.js';
import type { BrokerServices } from './broker/brokerServices.js';
import { addProfile, readProfile, removeProfile, updateProfile, updateToken } from './config/configEditor.js';
import { loadConfig } from './config/configLoader.js';
import {
  autostartEnabled,
  autostartFile,
  daemonAutostart,
  setAutostart,
  type AutostartCommand,
} from './platform/autostart.js';
import { currentPlatformEnv } from './platform/paths.js';
import { nativeShimPath, nodeCliPath } from './platform/shimLocation.js';
import { brokerImportService } from './kubeconfig/brokerImportService.js';
import { kubeconfigFiles } from './kubeconfig/kubeconfigFiles.js';
import { ProfileContexts, type ProfileUse } from './kubeconfig/profileContexts.js';
import type { KubecredPaths } from './platform/paths.js';
import { operationRoute, type Route } from './server/route.js';
import { replyJson } from './server/reply.js';
import { readAuditTail } from './state/auditReader.js';
import { startWebUi } from './webui/startWebUi.js';
import type { LinkOrigin } from './webui/sessionKeeper.js';
import { PeerCredentialReader } from './platform/peerCredentials.js';
import { processFacts } from './platform/processTable.js';
import type { WebUi } from './webui/webUiPorts.js';

/** Where the broker's questions can be shown: whether a window is up now, and how to bring one up. */
export interface QuestionWindows {
  /** A page or window is open and listening now: a question put there is seen. */
  showing(): boolean;
  /** The web UI runs, so a page the broker opens in the browser can take a question nobody else can. */
  inUse(): boolean;
  open(): Promise<unknown>;
}

const ALWAYS_SHOWING: QuestionWindows = { showing: () => true, inUse: () => true, open: async () => undefined };

/**
 * A question goes where a person is: a page that is open and listening; else the terminal of
 * the program that asked (the headless answer is an error naming the question, which a terminal
 * caller turns into a prompt of its own); else, where the web UI runs, a page the broker opens
 * in the browser (the caller is told at once where to answer); else an error naming the command
 * that answers it. An approval has no terminal form: it brings a window up and waits there.
 * Logins go to the browser and the board.
 */
export function promptingUi(
  prompts: PromptQueue,
  login: BrowserLoginUi,
  windows: QuestionWindows = ALWAYS_SHOWING,
): BrokerUi {
  const askInPage = (callerTerminal: boolean | undefined) => windows.showing() || (!callerTerminal && windows.inUse());
  return {
    askPin: (request) => (askInPage(request.callerTerminal) ? prompts.askPin(request) : login.askPin(request)),
    // A PIN that reached askPin was typed in a window (a terminal's comes by another way).
    pinRefused: (request, why) => prompts.pinRefused(request, why),
    askPassphrase: (request) => (askInPage(false) ? prompts.askPassphrase(request) : login.askPassphrase(request)),
    askApproval: async (request) => {
      await windows.open();
      return prompts.askApproval(request);
    },
    showLogin: (prompt, signal) => login.showLogin(prompt, signal),
    askForm: (request) => (askInPage(request.callerTerminal) ? prompts.askForm(request) : login.askForm(request)),
    openBrowser: (url) => login.openBrowser(url),
  };
}

/** The OS's start-at-login switch, where the shell owns it (Electron's login items on macOS and Windows). */
export interface LoginItem {
  enabled(): Promise<boolean>;
  set(enabled: boolean): Promise<void>;
  /** Where the setting is written, in the user's words: shown when it is turned on. */
  readonly where?: string;
}

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
      // A login shown or done, and a profile served, dropped or failed: the page hears of both at once.
      onChange: (listener) => {
        const stops = [board.onChange(listener), services.onProfilesChanged(listener)];
        return () => stops.forEach((stop) => stop());
      },
      login: (profile) => services.credentials.login(profile),
      logout: (profile) => services.credentials.logout(profile),
      cancelLogin: (profile) => services.credentials.cancelLogin(profile),
      prompts,
      // config.yaml is the one source of truth: the broker re-reads it on its next request.
      addProfile: async (input) => {
        const added = await addProfile(paths.configFile, input);
        logger.info('profile added from the web UI', { profile: added.name });
      },
      removeProfile: async (profile) => {
        await removeProfile(paths.configFile, profile);
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
      await webUi.close();
    },
  };
}

/**
 * Start at login through the XDG autostart entry Kubecred writes (Linux; elsewhere it says what
 * to use): the headless broker in this home by default (without its page: a browser tab at
 * every login is not wanted, and `kubecred ui` opens one), or what the host says (the tray app).
 */
export function xdgLoginItem(
  command: AutostartCommand = daemonAutostart(process.execPath, nodeCliPath(), process.env),
): LoginItem {
  return {
    enabled: () => autostartEnabled(currentPlatformEnv()),
    set: (enabled) => setAutostart(enabled, command, currentPlatformEnv()),
    where: autostartFile(currentPlatformEnv()),
  };
}

/** What the preferences show: config.yaml's policies and grace periods (defaults filled in), and the login item. */
async function readPreferences(paths: KubecredPaths, loginItem: LoginItem): Promise<Preferences> {
  const loaded = await loadConfig(paths.configFile);
  const config = loaded.ok ? loaded.config : { profiles: [], tokens: [] };
  let startAtLogin: Preferences['startAtLogin'];
  try {
    startAtLogin = { enabled: await loginItem.enabled(), ...(loginItem.where ? { where: loginItem.where } : {}) };
  } catch (error) {
    const e = error as { message: string; hint?: string };
    startAtLogin = { enabled: false, problem: e.hint ? `${e.message}: ${e.hint}` : e.message };
  }
  return {
    profiles: config.profiles.map((p) => ({ name: p.name, approval: p.approval })),
    tokens: config.tokens.map((t) => ({ name: t.name, pinGrace: t.pinGrace })),
    startAtLogin,
  };
}

/**
 * POST /v1/webui/link: a fresh one-time link to the web UI, for `kubecred ui`. A broker that
 * kubectl started has no web UI yet: asking for a link starts it. The link remembers which
 * program asked (from the kernel), so the page it opens can never approve that program.
 */
export function webUiRoutes(
  host: WebUiHost | undefined,
  peers: PeerCredentialReader = new PeerCredentialReader(),
): Route[] {
  return [
    operationRoute('webUiLink', async ({ request, response }) => {
      if (!host) {
        replyJson(response, 409, {
          error: {
            code: 'bad-request',
            message: 'this broker has its own windows and no web UI',
            hint: 'open Kubecred from its tray icon',
          },
        });
        return;
      }
      const webUi = await host.ensure();
      replyJson(response, 200, { url: webUi.newLink(await linkOrigin(peers.of(request.socket)?.pid)) });
    }),
  ];
}

/** The program that asked for a link, as the log names it. */
async function linkOrigin(pid: number | undefined): Promise<LinkOrigin> {
  if (pid === undefined) return { label: 'a client of the socket (pid unknown)', overSocket: true };
  const facts = await processFacts(pid);
  return {
    label: `${facts?.executable ? path.basename(facts.executable) : 'a program'} (pid ${pid})`,
    overSocket: true,
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

export { PromptQueue };
