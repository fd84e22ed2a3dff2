import { tokenViewSchema } from '../shared/api/prompts.js';
import { PromptQueue } from './broker/promptQueue.js';
import type { HeadlessUi, UrlOpener } from './broker/headlessUi.js';
import type { InteractionBoard } from './broker/interactionBoard.js';
import type { Logger } from './broker/logger.js';
import type { ApprovalUiPort, LoginUiPort, UiPort } from './broker/uiPort.js';
import type { BrokerServices } from './composition.js';
import { addProfile, readProfile, removeProfile, updateProfile } from './config/configEditor.js';
import type { KubecredPaths } from './platform/paths.js';
import type { Route } from './server/brokerRoutes.js';
import { replyJson } from './server/reply.js';
import { readAuditTail } from './state/auditReader.js';
import { startWebUi } from './webui/startWebUi.js';
import type { WebUi } from './webui/webUiPorts.js';

/** The broker's questions and login forms go to the web UI's prompt queue; logins to the browser and the board. */
export function promptingUi(prompts: PromptQueue, login: HeadlessUi): UiPort & LoginUiPort & ApprovalUiPort {
  return {
    askPin: (request) => prompts.askPin(request),
    askPassphrase: (request) => prompts.askPassphrase(request),
    askApproval: (request) => prompts.askApproval(request),
    showLogin: (prompt, signal) => login.showLogin(prompt, signal),
    askForm: (request) => prompts.askForm(request),
    openBrowser: (url) => login.openBrowser(url),
  };
}

/**
 * The headless broker's UI: the React app served on loopback. When a question arrives and no
 * page is open to show it, the UI opens in the browser, so a PIN or an approval is never
 * left to time out unseen.
 */
export async function startBrokerWebUi(
  services: BrokerServices,
  board: InteractionBoard,
  prompts: PromptQueue,
  opener: UrlOpener,
  logger: Logger,
  paths: KubecredPaths,
): Promise<WebUi> {
  const webUi = await startWebUi({
    ports: {
      profiles: () => services.credentials.profiles(),
      interactions: () => board.list(),
      onChange: (listener) => board.onChange(listener),
      login: (profile) => services.credentials.login(profile),
      logout: (profile) => services.credentials.logout(profile),
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
      updateProfile: async (profile, changes) => {
        await updateProfile(paths.configFile, profile, changes);
        logger.info('profile changed from the web UI', { profile });
      },
      auditLog: () => readAuditTail(paths.auditLog, { limit: 200 }),
      // The token plugin's report carries object lists too; the page gets the summary only.
      tokens: async () => (await services.admin.listTokens()).flatMap((token) => {
        const parsed = tokenViewSchema.safeParse(token);
        return parsed.success ? [parsed.data] : [];
      }),
    },
    log: (line) => logger.info(line),
  });
  let open = 0;
  prompts.onChange(() => {
    const now = prompts.list().length;
    if (open === 0 && now > 0 && webUi.openPages() === 0) void opener.open(webUi.newLink());
    open = now;
  });
  return webUi;
}

/** POST /v1/webui/link: a fresh one-time link to the web UI, for `kubecred ui`. */
export function webUiRoutes(webUi: WebUi | undefined): Route[] {
  return [
    {
      method: 'POST',
      pattern: /^\/v1\/webui\/link$/,
      handler: async (_request, response) => {
        if (!webUi) {
          replyJson(response, 409, { error: { code: 'bad-request', message: 'this broker runs without the web UI', hint: 'start it with: kubecred daemon --ui (or npm start)' } });
          return;
        }
        replyJson(response, 200, { url: webUi.newLink() });
      },
    },
  ];
}

export { PromptQueue };
