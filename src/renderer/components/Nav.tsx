import { SECTIONS, routeHref, type SectionId } from '../route.js';

// A small outline icon per section, drawn in the link's colour.
const ICONS: Record<SectionId, string> = {
  profiles: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M4 21a8 8 0 0 1 16 0',
  tokens: 'M7 3h10v18H7z M10 7h4 M12 15v2',
  registries: 'M4 7l8-4 8 4-8 4z M4 12l8 4 8-4 M4 17l8 4 8-4',
  activity: 'M3 12h4l3-8 4 16 3-8h4',
  settings: 'M4 6h10 M18 6h2 M4 12h4 M12 12h8 M4 18h12 M20 18h0 M16 4v4 M10 10v4 M18 16v4',
};

/** The sections, as real links: Tab reaches them, Enter follows them, the address keeps the place. */
export function Nav({ current, counts }: { current: SectionId; counts: Partial<Record<SectionId, number>> }) {
  return (
    <nav className="nav" aria-label="sections">
      <ul>
        {SECTIONS.map((s) => (
          <li key={s.id}>
            <a href={routeHref({ section: s.id })} aria-current={s.id === current ? 'page' : undefined} data-nav={s.id}>
              <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
                <path
                  d={ICONS[s.id]}
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                  strokeLinecap="round"
                  strokeLinejoin="round"
                />
              </svg>
              <span className="nav-label">{s.label}</span>
              {counts[s.id] ? (
                <span className="nav-count">
                  {counts[s.id]}
                  <span className="sr-only"> need you</span>
                </span>
              ) : null}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
