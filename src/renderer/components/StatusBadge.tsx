import type { BadgeKind, Badge } from '../profileBadge.js';

// One small outline icon per kind (24x24 grid, stroked in the text colour): a check, a person
// with a check, a clock, an arrow into a door, a padlock, an unplugged plug, an exclamation mark in a triangle.
const PATHS: Record<BadgeKind, string> = {
  ready: 'M20 6 9 17l-5-5',
  'signed-in': 'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M2 21a7 7 0 0 1 14 0 M16 11l2 2 4-4',
  expiring: 'M12 7v5l3 2 M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z',
  'needs-login': 'M15 3h4a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2h-4 M10 17l5-5-5-5 M15 12H3',
  'token-locked': 'M5 11h14v10H5z M8 11V7a4 4 0 0 1 8 0v4',
  'token-missing': 'M9 2v6 M15 2v6 M6 8h12v4a6 6 0 0 1-12 0z M12 18v4 M3 3l18 18',
  error: 'M12 3 2 21h20L12 3z M12 10v5 M12 18h.01',
};

export function BadgeIcon({ kind }: { kind: BadgeKind }) {
  return (
    <svg className="badge-icon" viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" focusable="false">
      <path
        d={PATHS[kind]}
        fill="none"
        stroke="currentColor"
        strokeWidth="2.4"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * A profile's state at a glance: icon, colour and the tray's words. `.state` holds the words
 * alone (the icon adds no text), so what a test or a screen reader reads is the state itself.
 */
export function StatusBadge({ badge, stateClass }: { badge: Badge; stateClass: string }) {
  return (
    <span className={`badge badge-${badge.kind} tone-${badge.tone}`} data-badge={badge.kind}>
      <BadgeIcon kind={badge.kind} />
      <span className={`state ${stateClass}`}>{badge.words}</span>
    </span>
  );
}
