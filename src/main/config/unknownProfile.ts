import { closestName } from '../../shared/closestName.js';
import { BrokerError } from '../core/brokerError.js';

/**
 * The words for a profile name config.yaml does not have, wherever one is looked up (the
 * broker's operations, the CLI's edits, install's check): the profiles there, the one a typo
 * most likely meant, and how to add it.
 */
export function unknownProfileWords(
  name: string,
  configFile: string,
  known: readonly string[],
  /** Removing or changing a profile that is not there: adding it is no answer. */
  { offerToAdd = true }: { offerToAdd?: boolean } = {},
): { message: string; hint: string } {
  const listed = known.length ? ` (profiles: ${known.join(', ')})` : ' (it has no profiles)';
  const guess = closestName(name, known);
  const next = offerToAdd
    ? `add it with: kubecred profile add ${name}`
    : 'it may have been removed or renamed; kubecred profile list shows what is there';
  return {
    message: `no profile "${name}" in ${configFile}${listed}`,
    hint: guess ? `did you mean "${guess}"? Or ${next}` : next,
  };
}

export function unknownProfileError(
  name: string,
  configFile: string,
  known: readonly string[],
  options?: { offerToAdd?: boolean },
): BrokerError {
  const { message, hint } = unknownProfileWords(name, configFile, known, options);
  return new BrokerError('unknown-profile', message, hint);
}
