import { BrokerError } from '../core/brokerError.js';
import type { InteractionBoard } from './interactionBoard.js';
import { NoUi } from './noUi.js';
import type { UrlOpener } from '../core/ports.js';
import type { FormRequest, LoginPrompt, LoginUiPort } from '../core/uiPorts.js';

/**
 * The broker's UI when no window asks: logins go to the system browser and onto the interaction board
 * (where `kubecred login` and the web UI show them); questions it cannot ask become errors
 * that name the command that answers them.
 */
export class BrowserLoginUi extends NoUi implements LoginUiPort {
  constructor(
    private readonly board: InteractionBoard,
    private readonly browser: UrlOpener,
  ) {
    super();
  }

  showLogin(prompt: LoginPrompt, signal: AbortSignal): void {
    this.board.show(prompt, signal);
  }

  async askForm(request: FormRequest): Promise<Record<string, string> | null> {
    const missing = request.fields.map((f) => f.name).join(', ');
    throw new BrokerError(
      'locked',
      `profile "${request.profile}" needs ${missing} and there is no window to ask in`,
      `store secrets with: kubecred secret set ${request.profile} <field>, or set the others in config.yaml`,
    );
  }

  openBrowser(url: string): Promise<boolean> {
    return this.browser.open(url);
  }
}
