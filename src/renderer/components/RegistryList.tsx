import type { RegistrySummary } from '../../shared/api/status.js';

const LOGIN: Record<RegistrySummary['login'], string> = {
  command: 'password from its command',
  store: 'login in the secret store (docker login, skopeo login or kubecred registry login)',
};

/** The image registries the broker serves to docker, skopeo and the kubelet; never a password. */
export function RegistryList({ registries }: { registries: readonly RegistrySummary[] }) {
  if (registries.length === 0)
    return <p className="empty">No image registries configured (registries: in config.yaml).</p>;
  return (
    <ul className="profiles" aria-label="registries">
      {registries.map((r) => (
        <li key={r.name} className="profile" data-registry={r.name}>
          <div className="profile-text">
            <div className="profile-head">
              <strong className="profile-name">{r.name}</strong>{' '}
              <span className="provider">{r.matchImages.join(', ')}</span>
            </div>
            <div className="description">
              {LOGIN[r.login]}
              {r.username ? `, as ${r.username}` : ''}
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}
