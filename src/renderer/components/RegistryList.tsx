import type { RegistrySummary } from '../../shared/api/status.js';
import type { AuditEntry, RegistryLoginRequest } from '../../shared/api/webUiApi.js';
import { auditTime, callerText } from './AuditLogView.js';
import { RegistryLoginForm } from './RegistryLoginForm.js';
import { registryHosts } from '../registryHosts.js';

const LOGIN: Record<RegistrySummary['login'], string> = {
  command: 'password from its command',
  store: 'login in the secret store (docker login, skopeo login or Log in here)',
};

interface Props {
  readonly registries: readonly RegistrySummary[];
  /** The audit records, newest first: a registry's requests are kept under "registry:<name>". */
  readonly activity: readonly AuditEntry[];
  onLogin(login: RegistryLoginRequest): Promise<void>;
}

/** The image registries the broker serves to docker, skopeo and the kubelet; never a password. */
export function RegistryList({ registries, activity, onLogin }: Props) {
  if (registries.length === 0)
    return <p className="empty">No image registries configured (registries: in config.yaml).</p>;
  return (
    <>
      <ul className="profiles" aria-label="registries">
        {registries.map((r) => {
          const last = activity.find((entry) => entry.profile === `registry:${r.name}`);
          return (
            <li key={r.name} className="profile registry" data-registry={r.name}>
              <div className="profile-text">
                <div className="profile-head">
                  <strong className="profile-name">{r.name}</strong>{' '}
                  <span className="provider">{r.matchImages.join(', ')}</span>
                </div>
                <div className="description">
                  {LOGIN[r.login]}
                  {r.username ? `, as ${r.username}` : ''}
                </div>
                <div className={`description last-use${last && last.outcome !== 'served' ? ' error-text' : ''}`}>
                  {last
                    ? `last asked by ${callerText(last)}, ${auditTime(last.time)}: ${last.outcome}${last.error ? ` (${last.error})` : ''}`
                    : 'not asked for yet'}
                </div>
                {r.login === 'store' ? <RegistryLoginForm registry={r} onLogin={onLogin} /> : null}
              </div>
            </li>
          );
        })}
      </ul>
      <HowToUse registries={registries} />
    </>
  );
}

function HowToUse({ registries }: { registries: readonly RegistrySummary[] }) {
  // credHelpers names exact hosts; credsStore would send every registry (Docker Hub too) here.
  const { exact, patterns } = registryHosts(registries);
  const example = { credHelpers: Object.fromEntries(exact.map((host) => [host, 'kubecred'])) };
  return (
    <details className="card how-to">
      <summary>How to use them with docker, podman and skopeo</summary>
      <p className="hint">
        Put <code>docker-credential-kubecred</code> (beside the kubecred command) on PATH and add this to{' '}
        <code>~/.docker/config.json</code>, or to podman&apos;s and skopeo&apos;s auth.json:
      </p>
      <pre className="config-example">{JSON.stringify(example, null, 2)}</pre>
      {patterns.length > 0 ? (
        <p className="hint">
          For {patterns.map((p) => `"${p}"`).join(', ')}: add each registry host you pull from the same way (credHelpers
          takes exact hosts).
        </p>
      ) : null}
      <p className="hint">
        Then <code>docker login</code> (or <code>kubecred registry login &lt;server&gt; &lt;user&gt;</code>) stores a
        password in Kubecred instead of that file. For the kubelet, name <code>kubecred registry get-credentials</code>{' '}
        in its CredentialProviderConfig (docs/registry.md).
      </p>
    </details>
  );
}
