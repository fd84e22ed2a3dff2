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

/** Fields a page whose link came through the socket may not change: any program of the user could have opened it. */
const PERSON_ONLY = ['approval'] as const;

/**
 * Refuses a profile change the page may not make: `guard` or `proxy` from any page (they have
 * their own operations), `approval` from a page opened through the socket (it could turn off
 * the question a program cannot answer itself). Undefined when the change may go ahead.
 */
export function profileChangeRefusal(
  origin: LinkOrigin | undefined,
  profile: string,
  changes: ProfileChanges,
): HttpFailure | undefined {
  for (const [field, instead] of Object.entries(OWN_OPERATION))
    if (field in changes)
      return new HttpFailure(
        400,
        'bad-request',
        `the edit form does not change ${field}: of profile ${profile}`,
        instead,
      );
  const fromSocket = !origin || origin.overSocket === true;
  const gated = PERSON_ONLY.find((field) => field in changes);
  if (fromSocket && gated)
    return new HttpFailure(
      403,
      'denied',
      `a page opened through the socket (kubecred ui, or any other program) cannot change ${gated}: of profile ${profile}: any program of yours could have opened it`,
      'change it in the Kubecred tray window or a page Kubecred opened itself',
    );
  return undefined;
}
