import type { PendingPrompt } from '../../shared/api/prompts.js';
import type { LoginPrompt } from '../core/uiPorts.js';

/** Something that lists what waits on the user and says when that changes. */
export interface WaitingSource<T> {
  list(): T[];
  onChange(listener: () => void): () => void;
}

const MAX_NOTICES = 4;

export interface NoticeSources {
  readonly logins: WaitingSource<LoginPrompt>;
  readonly prompts?: WaitingSource<PendingPrompt>;
}

/**
 * While a caller waits on a profile, tells it each thing that waits on the user for that
 * profile (a browser login, a device code, an approval), once each. The caller's terminal is
 * often the only place a person looks: a kubectl that hangs in silence looks broken.
 */
export function followNotices(profile: string, sources: NoticeSources, say: (text: string) => void): () => void {
  const told = new Set<string>();
  const check = () => {
    // Go's HTTP client gives up after a handful of interim answers; a few notices say enough.
    if (told.size >= MAX_NOTICES) return;
    const waiting = [
      ...sources.logins
        .list()
        .filter((login) => login.profile === profile)
        .map(loginNotice),
      ...(sources.prompts?.list() ?? []).flatMap((prompt) => promptNotice(prompt, profile)),
    ];
    for (const text of waiting) {
      if (told.has(text) || told.size >= MAX_NOTICES) continue;
      told.add(text);
      say(text);
    }
  };
  const off = [sources.logins.onChange(check), sources.prompts?.onChange(check)];
  check();
  return () => off.forEach((unsubscribe) => unsubscribe?.());
}

function loginNotice(login: LoginPrompt): string {
  if (login.kind === 'message') return `profile "${login.profile}", its plugin says: ${login.text}`;
  if (login.kind === 'device') {
    return `sign in to profile "${login.profile}": open ${login.verificationUriComplete ?? login.verificationUri} and enter the code ${login.userCode}`;
  }
  return `sign in to profile "${login.profile}" in your browser; if none opened, run: kubecred login ${login.profile}`;
}

/** Where a question waits, as the caller's terminal says it: what is asked, where to answer, until when. */
function promptNotice(prompt: PendingPrompt, profile: string): string[] {
  const until = new Date(prompt.expiresAt).toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const where = 'in the Kubecred window (if none is open, run: kubecred ui)';
  switch (prompt.kind) {
    case 'approval':
      if (prompt.profile !== profile) return [];
      // Not `kubecred ui`: a page any program can open through the socket never allows.
      return [
        `profile "${profile}" waits for your approval in the Kubecred window, or the page Kubecred opened in your browser; it gives up at ${until}`,
      ];
    case 'pin':
      if (prompt.profile !== undefined && prompt.profile !== profile) return [];
      return [
        `token "${prompt.token}" needs its PIN: enter it ${where}, or run: kubecred token login ${prompt.token}; it gives up at ${until}`,
      ];
    case 'form':
      if (prompt.profile !== profile) return [];
      return [`profile "${profile}" needs a login: fill in the form ${where}; it gives up at ${until}`];
    case 'pin-refused':
      return [];
    case 'passphrase':
      return [
        `the ${prompt.store} secret store needs its passphrase: enter it ${where}, or run: kubecred unlock; it gives up at ${until}`,
      ];
  }
}
