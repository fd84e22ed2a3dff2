import { RegistryList } from '../components/RegistryList.js';
import type { SectionProps } from './sectionProps.js';

export function RegistriesSection({ state, audit, transport }: SectionProps) {
  return (
    <section className="view" aria-label="image registries">
      <h1>Image registries</h1>
      <p className="hint">
        Logins Kubecred serves to docker, podman, skopeo and the kubelet. Passwords never show here.
      </p>
      <RegistryList
        registries={state.registries}
        activity={audit}
        onLogin={(login) => transport.registryLogin(login)}
      />
    </section>
  );
}
