import type { GuardAct, GuardAsker } from '../broker/guardControl.js';
import { HttpFailure } from './httpFailure.js';
import type { LinkOrigin } from './sessionKeeper.js';

// Lifting, changing or removing a guard from a page is the person's act, as an approval's Allow
// is (issue 41, security review 4 D5): these say who a page is, and refuse the pages that may
// not be the person.

/** Who changes a guard from a page: the person, unless the page's link came through the socket. */
export function pageAsker(origin: LinkOrigin | undefined): GuardAsker {
  return {
    caller: { name: `a Kubecred page (link of ${origin?.label ?? 'nobody'})` },
    client: 'web-ui',
    byThePerson: origin !== undefined && !origin.overSocket,
  };
}

/** What each act is called in a refusal and in the web UI's log. */
export const ACT_WORDS: Readonly<Record<GuardAct, string>> = {
  lift: 'lift the guard of',
  change: 'change the guard rules of',
  remove: 'remove the guard of',
};

/**
 * The refusal for a page whose link came through the socket: it may put a guard back, never
 * lift, change or remove it, since any program of the user could have asked for that link.
 * Undefined for the person's pages (the tray app's windows, a page the broker opened).
 */
export function socketPageRefusal(
  origin: LinkOrigin | undefined,
  profile: string,
  act: GuardAct,
): HttpFailure | undefined {
  if (origin && !origin.overSocket) return undefined;
  return new HttpFailure(
    403,
    'denied',
    `a page opened through the socket (kubecred ui, or any other program) cannot ${ACT_WORDS[act]} ${profile}: any program of yours could have opened it`,
    'do it in the Kubecred tray window, a page Kubecred opened itself, or with kubecred guard in a terminal',
  );
}
