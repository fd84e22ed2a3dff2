import type { BrokerUi } from '../core/uiPorts.js';
import type { BrowserLoginUi } from './browserLoginUi.js';
import type { PromptQueue } from './promptQueue.js';

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
