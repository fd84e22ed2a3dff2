import type { ProfileSummary } from '../shared/api/status.js';

/** The main window's profile list; the shells (Electron, headless web UI) feed it. */
export function ProfileList({ profiles }: { profiles: readonly ProfileSummary[] }) {
  if (profiles.length === 0) return <p>No profiles yet. Add one to config.yaml.</p>;
  return (
    <ul aria-label="profiles">
      {profiles.map((p) => (
        <li key={p.name}>
          <strong>{p.name}</strong> ({p.provider}): {p.state}
        </li>
      ))}
    </ul>
  );
}
