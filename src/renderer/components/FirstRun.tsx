import { routeHref } from '../route.js';

/** No profiles yet: what Kubecred does, in two lines, and the two ways to start. */
export function FirstRun() {
  return (
    <section className="first-run" aria-label="first run">
      <h2>Your Kubernetes credentials, out of your kubeconfig</h2>
      <p>Kubecred keeps tokens and keys in the OS keychain or on a hardware token, never in a file.</p>
      <p>kubectl, k9s, Lens and your IDE ask it through one small exec plugin, and it answers from memory.</p>
      <div className="actions">
        <a className="button" href={routeHref({ section: 'profiles', view: 'import' })}>
          Import my kubeconfig
        </a>
        <a className="button secondary" href={routeHref({ section: 'profiles', view: 'add' })}>
          Add a profile
        </a>
        <a className="button secondary" href={routeHref({ section: 'profiles', view: 'enroll' })}>
          Use a hardware key
        </a>
      </div>
    </section>
  );
}
