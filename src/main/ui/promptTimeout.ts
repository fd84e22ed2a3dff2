import { parseDuration } from '../../shared/duration.js';
import { BrokerError } from '../core/brokerError.js';

/** How long a question in the Kubecred window waits for the person before it counts as unanswered. */
export const PROMPT_TIMEOUT_MS = 2 * 60_000;

/**
 * A testing knob: shortens how long a question waits, so a test can see what a question nobody
 * answered does (a guard's confirm reaching kubectl as "nobody answered in time") without
 * waiting two minutes. It only shortens; users have no reason to set it.
 */
export const PROMPT_TIMEOUT_ENV = 'KUBECRED_PROMPT_TIMEOUT';

/** The questions' timeout in milliseconds: the knob's when set, else two minutes. */
export function promptTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[PROMPT_TIMEOUT_ENV];
  if (text === undefined || text === '') return PROMPT_TIMEOUT_MS;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1000 || ms > PROMPT_TIMEOUT_MS) {
    throw new BrokerError(
      'config-invalid',
      `${PROMPT_TIMEOUT_ENV}=${JSON.stringify(text.slice(0, 40))} is not a duration from 1s to 2m`,
      `set it like 3s or 1m, or unset it (it shortens how long the window's questions wait, for tests; the default is 2m)`,
    );
  }
  return ms;
}
