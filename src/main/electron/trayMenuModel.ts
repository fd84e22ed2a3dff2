import type { MenuItemConstructorOptions } from 'electron';
import type { ProfileSummary } from '../../shared/api/status.js';
import {
  EXPIRING_SOON_MS,
  describeProfile,
  guardWords,
  hasLogin,
  proxyWords,
  waitsForSignIn,
} from '../../shared/api/profileWords.js';

export type TrayAction =
  | { readonly kind: 'login' | 'logout' | 'refresh'; readonly profile: string }
  /** Lift the profile's guard for TRAY_GUARD_LIFT_MS, or put it back now. */
  | { readonly kind: 'liftGuard' | 'guardBack'; readonly profile: string }
  /** showQuestions: bring the waiting PIN or approval prompts to the front (or back, if closed). */
  | { readonly kind: 'open' | 'lockAll' | 'quit' | 'toggleStartAtLogin' | 'showQuestions' };

/** What the tray shows besides the profiles. */
export interface TrayContext {
  /** The start-at-login switch's state; undefined where the platform has none. */
  readonly startAtLogin?: boolean;
  /** How many PIN or approval questions wait for the person (the broker's open prompts). */
  readonly questionsWaiting?: number;
}

/** A menu as plain data, so it is tested without Electron; tray.ts turns it into a Menu. */
export interface MenuItemModel {
  readonly label: string;
  readonly enabled?: boolean;
  readonly action?: TrayAction;
  readonly submenu?: readonly MenuItemModel[];
  readonly separator?: boolean;
  /** A checkbox item, checked or not. */
  readonly checked?: boolean;
}

/**
 * All locked: nothing cached. Signed in: something cached, nothing wrong. Needs attention: a
 * profile failed, or a question waits for the person (its window may be behind others).
 */
export type TrayIconState = 'locked' | 'signedIn' | 'attention';

export function trayIconState(profiles: readonly ProfileSummary[], now: number, questionsWaiting = 0): TrayIconState {
  if (questionsWaiting > 0 || profiles.some((p) => p.state === 'error')) return 'attention';
  return profiles.some((p) => holdsLiveCredential(p, now)) ? 'signedIn' : 'locked';
}

function holdsLiveCredential(profile: ProfileSummary, now: number): boolean {
  return profile.state === 'ready' && (profile.expiresAt === null || Date.parse(profile.expiresAt) > now);
}

/** The template image (resources/) for each state: black, which macOS tints to its menu bar. */
export const TRAY_ICONS: Readonly<Record<TrayIconState, string>> = {
  locked: 'trayLockedTemplate.png',
  signedIn: 'traySignedInTemplate.png',
  attention: 'trayAttentionTemplate.png',
};

/** The same padlocks light (the attention dot amber), for dark panels and taskbars. */
export const LIGHT_TRAY_ICONS: Readonly<Record<TrayIconState, string>> = {
  locked: 'trayLockedLight.png',
  signedIn: 'traySignedInLight.png',
  attention: 'trayAttentionLight.png',
};

/** Where the icon is drawn: the platform, and whether the OS uses dark colours (Electron's nativeTheme). */
export interface TrayIconLook {
  readonly platform: NodeJS.Platform;
  readonly darkColors: boolean;
}

/**
 * The image for the state where it is drawn. Linux and Windows show a template image as drawn,
 * black, all but invisible on a dark panel or taskbar (electron review 2, F4): Windows follows
 * its theme; Linux panels (GNOME's top bar, Breeze Dark) are nearly always dark, and no API says
 * a panel's colour, so they get the light ones.
 */
export function trayIconImage(state: TrayIconState, look: TrayIconLook): string {
  if (look.platform === 'darwin') return TRAY_ICONS[state];
  if (look.platform === 'win32' && !look.darkColors) return TRAY_ICONS[state];
  return LIGHT_TRAY_ICONS[state];
}

/** "Kubecred: 2 signed in", and "; guard lifted on prod" while a guard is lifted. */
export function trayTooltip(profiles: readonly ProfileSummary[], now: number, questionsWaiting = 0): string {
  const lifted = profiles.filter((p) => guardLifted(p, now)).map((p) => p.name);
  const guards = lifted.length > 0 ? `; guard lifted on ${lifted.join(', ')}` : '';
  if (questionsWaiting > 0) return `Kubecred: ${questionsWaitingWords(questionsWaiting)}${guards}`;
  return `${stateTooltip(profiles, now)}${guards}`;
}

/** "1 question waiting", "2 questions waiting". */
function questionsWaitingWords(count: number): string {
  return `${count} question${count === 1 ? '' : 's'} waiting`;
}

function stateTooltip(profiles: readonly ProfileSummary[], now: number): string {
  const failing = profiles.filter((p) => p.state === 'error').length;
  if (failing > 0)
    return `Kubecred: ${failing} profile${failing === 1 ? '' : 's'} need${failing === 1 ? 's' : ''} attention`;
  if (trayIconState(profiles, now) === 'locked') return 'Kubecred: locked';
  // Nobody signs in to a stored token or a wrapped plugin: those are ready, not signed in.
  const signedIn = profiles.filter((p) => hasLogin(p) && holdsLiveCredential(p, now)).length;
  return signedIn > 0 ? `Kubecred: ${signedIn} signed in` : 'Kubecred: ready';
}

/** What the tray says before the broker's first answer, so it has a tooltip and a menu from the start. */
export const STARTING_TOOLTIP = 'Kubecred: starting…';

export function startingMenuModel(): MenuItemModel[] {
  return [
    { label: STARTING_TOOLTIP, enabled: false },
    { label: '', separator: true },
    { label: 'Open Kubecred', action: { kind: 'open' } },
    { label: '', separator: true },
    { label: 'Quit', action: { kind: 'quit' } },
  ];
}

/** How long the tray lifts a guard for: one choice, the window's default; the window and the CLI offer others. */
export const TRAY_GUARD_LIFT_MS = 15 * 60_000;

/**
 * "prod: signed in as ada, 42 min": the same words and time left as the window
 * (src/shared/api/profileWords.ts); "; guard lifted" after them while its guard is lifted, so
 * nobody forgets it in a submenu.
 */
export function profileLabel(profile: ProfileSummary, now: number): string {
  const lifted = guardLifted(profile, now) ? '; guard lifted' : '';
  return `${profile.name}: ${describeProfile(profile, now)}${lifted}`;
}

function guardLifted(profile: ProfileSummary, now: number): boolean {
  const until = profile.guard?.offUntil;
  return until != null && Date.parse(until) > now;
}

/** A guarded profile's guard: its state in the window's words, and the one change that fits now. */
function guardItems(profile: ProfileSummary, now: number): MenuItemModel[] {
  const words = guardWords(profile, now);
  if (words === null) return [];
  const change: MenuItemModel = guardLifted(profile, now)
    ? { label: 'Put guard back now', action: { kind: 'guardBack', profile: profile.name } }
    : {
        label: `Lift guard for ${TRAY_GUARD_LIFT_MS / 60_000} minutes`,
        action: { kind: 'liftGuard', profile: profile.name },
      };
  return [{ label: words, enabled: false }, change];
}

/** The way kubectl reaches a proxied profile's cluster, in `kubecred status`'s words. */
function proxyItems(profile: ProfileSummary): MenuItemModel[] {
  const words = proxyWords(profile);
  return words === null ? [] : [{ label: words, enabled: false }];
}

/**
 * The window's actions for the profile: a profile with nothing to log in to (static, exec, EKS)
 * offers no Log in, and Forget for Log out; a guarded one, its guard's state and change.
 */
function profileSubmenu(profile: ProfileSummary, now: number): MenuItemModel[] {
  const signedIn = profile.state === 'ready';
  const login = hasLogin(profile);
  const items: MenuItemModel[] = [
    ...(login ? loginItems(profile, now) : []),
    { label: login ? 'Log out' : 'Forget', enabled: signedIn, action: { kind: 'logout', profile: profile.name } },
    { label: 'Refresh', enabled: signedIn, action: { kind: 'refresh', profile: profile.name } },
  ];
  const path = [...proxyItems(profile), ...guardItems(profile, now)];
  if (path.length > 0) items.push({ label: '', separator: true }, ...path);
  if (profile.state === 'error' && profile.lastError)
    items.unshift({ label: profile.lastError, enabled: false }, { label: '', separator: true });
  return items;
}

/**
 * Log in; while a login already waits for the person, the way to where it waits (its page or
 * code is in the window). Signed in, none beside Log out, as in the window; "Log in again" only
 * once the credential ends soon with nothing to renew it.
 */
function loginItems(profile: ProfileSummary, now: number): MenuItemModel[] {
  if (waitsForSignIn(profile)) return [{ label: 'Signing in: show where…', action: { kind: 'open' } }];
  const action = { kind: 'login', profile: profile.name } as const;
  if (profile.state !== 'ready') return [{ label: 'Log in', action }];
  const left = profile.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(profile.expiresAt) - now;
  return profile.silentRefresh !== true && left <= EXPIRING_SOON_MS ? [{ label: 'Log in again', action }] : [];
}

export function trayMenuModel(
  profiles: readonly ProfileSummary[],
  now: number,
  context: TrayContext = {},
): MenuItemModel[] {
  const items: MenuItemModel[] = profiles.map((profile) => ({
    label: profileLabel(profile, now),
    submenu: profileSubmenu(profile, now),
  }));
  if (items.length === 0) items.push({ label: 'No profiles yet', enabled: false });
  return [
    ...questionItems(context.questionsWaiting ?? 0),
    ...items,
    { label: '', separator: true },
    { label: 'Open Kubecred', action: { kind: 'open' } },
    { label: 'Lock all', action: { kind: 'lockAll' } },
    ...(context.startAtLogin === undefined
      ? []
      : [
          {
            label: 'Start at login',
            checked: context.startAtLogin,
            action: { kind: 'toggleStartAtLogin' },
          } as const,
        ]),
    { label: '', separator: true },
    { label: 'Quit', action: { kind: 'quit' } },
  ];
}

/**
 * On top while a PIN or approval question waits: its window may open behind others (desktops
 * that keep a background app from taking focus), and kubectl waits on it (electron review 2, F7).
 */
function questionItems(count: number): MenuItemModel[] {
  if (count === 0) return [];
  return [
    { label: `${questionsWaitingWords(count)}: show`, action: { kind: 'showQuestions' } },
    { label: '', separator: true },
  ];
}

/** Turns the pure menu model into Electron's template; each action goes to `run`. */
export function menuTemplate(
  items: readonly MenuItemModel[],
  run: (action: TrayAction) => void,
): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    if (item.separator) return { type: 'separator' };
    const { action, submenu } = item;
    return {
      label: item.label,
      enabled: item.enabled ?? true,
      ...(item.checked !== undefined ? { type: 'checkbox' as const, checked: item.checked } : {}),
      ...(submenu ? { submenu: menuTemplate(submenu, run) } : {}),
      ...(action ? { click: () => run(action) } : {}),
    };
  });
}
