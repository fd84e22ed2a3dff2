import type { SectionId } from '../route.js';
import { Nav } from './Nav.js';

/** The brand and the sections, with how many things in each need the user. */
export function Sidebar({ current, counts }: { current: SectionId; counts: Partial<Record<SectionId, number>> }) {
  return (
    <aside className="sidebar">
      <p className="brand">
        <svg viewBox="0 0 32 32" width="22" height="22" aria-hidden="true" focusable="false">
          <rect width="32" height="32" rx="7" fill="#1a5bc4" />
          <path d="M11 22v-6a5 5 0 0 1 10 0v6" fill="none" stroke="#fff" strokeWidth="3" />
          <rect x="8" y="17" width="16" height="10" rx="2" fill="#fff" />
        </svg>
        Kubecred
      </p>
      <Nav current={current} counts={counts} />
    </aside>
  );
}
