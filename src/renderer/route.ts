import { useEffect, useState } from 'react';

// The main window's place in the fragment (#/activity, #/profile/prod), so a reload or a
// bookmark keeps it. A fragment never reaches the server; the one-time link's #token=... and
// a prompt window's #prompt=<id> are told apart by the leading slash.

export const SECTIONS = [
  { id: 'profiles', label: 'Profiles' },
  { id: 'tokens', label: 'Hardware tokens' },
  { id: 'registries', label: 'Registries' },
  { id: 'activity', label: 'Activity' },
  { id: 'settings', label: 'Settings' },
] as const;
export type SectionId = (typeof SECTIONS)[number]['id'];

export type Route =
  | { readonly section: SectionId; readonly view?: undefined }
  | { readonly section: 'profiles'; readonly view: 'add' | 'import' | 'enroll' }
  | { readonly section: 'profiles'; readonly view: 'detail'; readonly profile: string };

const SECTION_IDS = new Set<string>(SECTIONS.map((s) => s.id));

/** "#/profile/prod" -> the route; anything unknown is the profile list. */
export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#?\/?/, '')
    .split('/')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return '';
      }
    });
  const [first = '', second] = parts;
  if (first === 'profile' && second) return { section: 'profiles', view: 'detail', profile: second };
  if (first === 'profiles' && (second === 'add' || second === 'import' || second === 'enroll'))
    return { section: 'profiles', view: second };
  if (SECTION_IDS.has(first)) return { section: first as SectionId };
  return { section: 'profiles' };
}

export function routeHref(route: Route): string {
  if (route.view === 'detail') return `#/profile/${encodeURIComponent(route.profile)}`;
  if (route.view) return `#/profiles/${route.view}`;
  return `#/${route.section}`;
}

/** A main-window route rather than a link's token or a prompt window's id. */
export function isPageRoute(hash: string): boolean {
  return hash === '' || hash === '#' || hash.startsWith('#/');
}

/** The route of the address bar, followed as links and Back change it. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return route;
}

export function go(route: Route): void {
  location.hash = routeHref(route).slice(1);
}
