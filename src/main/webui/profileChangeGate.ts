import type { ProfileChanges } from '../../shared/api/webUiApi.js';
import { HttpFailure } from './httpFailure.js';
import type { LinkOrigin } from './sessionKeeper.js';

// The profile edit form writes config.yaml's fields as given. Three of them are gates the person
// keeps (security review 4, D5): without this, a page could take a guard away with `guard: null`
// past the guard's own operations, which ask the person and audit.

/** Fields with operations of their own that ask the person and audit: never written by the edit form. */
const OWN_OPERATION: Readonly<Record<string, string>> = {
  guard: "change the guard on the profile page's Guard card, or run kubecred guard in a terminal",
  proxy: "turn the exec proxy on with the profile page's toggle; to take it away, edit config.yaml by hand",
};

/** How strict each approval policy is: a page may always ask more of a program, not always less. */
const APPROVAL_STRICTNESS: Readonly<Record<string, number>> = { never: 0, 'once-per-process': 1, always: 2 };

/**
 * Refuses a profile change the page may not make: `guard` or `proxy` from any page (they have
 * their own operations), and from a page opened through the socket an `approval` that asks less
 * than now (it would turn off the question a program cannot answer itself, as it cannot Allow;
 * asking more only tightens, as putting a guard back does). Undefined when the change may go ahead.
 */
export function profileChangeRefusal(
  origin: LinkOrigin | undefined,
  profile: { readonly name: string; readonly approval: string },
  changes: ProfileChanges,
): HttpFailure | undefined {
  for (const [field, instead] of Object.entries(OWN_OPERATION))
    if (field in changes)
      return new HttpFailure(
        400,
        'bad-request',
        `the edit form does not change ${field}: of profile ${profile.name}`,
        instead,
      );
  const fromSocket = !origin || origin.overSocket === true;
  if (fromSocket && 'approval' in changes && !tightens(profile.approval, changes.approval))
    return new HttpFailure(
      403,
      'denied',
      `a page opened through the socket (kubecred ui, or any other program) cannot lower approval: of profile ${profile.name}: any program of yours could have opened it`,
      'lower it in the Kubecred tray window or a page Kubecred opened itself; raising it works anywhere',
    );
  return undefined;
}

function tightens(now: string, next: unknown): boolean {
  const before = APPROVAL_STRICTNESS[now];
  const after = typeof next === 'string' ? APPROVAL_STRICTNESS[next] : undefined;
  return before !== undefined && after !== undefined && after >= before;
}
