import { BrokerError } from '../../core/brokerError.js';
import type { LoginUiPort } from '../../core/uiPorts.js';
import type { MfaQuestion } from './awsSessions.js';
import type { OfferedAnswers } from '../offeredAnswers.js';

/**
 * Asks for an MFA code: one typed in a terminal for this profile first, else in the window (the tray's or the web UI's), naming the device, what
 * it unlocks and the program that asked. With no window to ask in, the error says where the
 * question can be answered.
 */
export function mfaCodeAsker(
  ui: Pick<LoginUiPort, 'askForm'>,
  describeAsker: () => Promise<{ caller?: string }>,
  offered: OfferedAnswers,
): (question: MfaQuestion) => Promise<string | null> {
  return async ({ profile, mfaSerial, purpose }) => {
    const typed = offered.take(profile);
    if (typed !== undefined) return typed;
    const { caller } = await describeAsker();
    const title = `MFA code for ${purpose}${caller ? `, asked by ${caller}` : ''}`;
    try {
      const answers = await ui.askForm({
        profile,
        title,
        fields: [{ name: 'mfaCode', label: `Code from MFA device ${mfaSerial}`, secret: true }],
      });
      return answers === null ? null : (answers.mfaCode ?? '');
    } catch (error) {
      if (error instanceof BrokerError && error.code === 'locked') {
        throw new BrokerError(
          'locked',
          `profile "${profile}" needs a code from MFA device ${mfaSerial} and there is no window to ask in`,
          `run the command in a terminal, or open the Kubecred window (kubecred ui), and run it again; one code then serves every cluster for the session`,
          { kind: 'mfa-code', profile },
        );
      }
      throw error;
    }
  };
}
