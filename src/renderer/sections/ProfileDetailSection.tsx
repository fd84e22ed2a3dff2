import { useCallback } from 'react';
import { ProfileDetail } from '../components/ProfileDetail.js';
import { profileActivity } from '../auditRows.js';
import { go } from '../route.js';
import type { SectionProps } from './sectionProps.js';

/** One profile's page, at #/profile/<name>. */
export function ProfileDetailSection({
  name,
  state,
  now,
  busy,
  run,
  audit,
  tokenFor,
  transport,
}: SectionProps & { readonly name: string }) {
  // Stable, so the edit form reads config.yaml once when it opens, not on every new state.
  const load = useCallback(
    (profile: string) => transport.profileConfig(profile).then((answer) => answer.profile),
    [transport],
  );
  return (
    <ProfileDetail
      key={name}
      name={name}
      profile={state.profiles.find((p) => p.name === name)}
      now={now}
      busy={busy.has(name)}
      loginError={state.loginErrors[name]}
      token={tokenFor(name)}
      activity={profileActivity(audit, name)}
      load={load}
      loadCertificate={async (profile) => (await transport.profileCertificate(profile)).certificate}
      onTurnOnProxy={() => transport.turnOnProxy(name)}
      loadContexts={async () => (await transport.kubeconfigContexts()).contexts}
      onInstall={(context) => transport.installProfile(name, { context })}
      onGuard={(change) => transport.guard(name, change)}
      onSetGuard={(rules) => transport.setGuard(name, { rules })}
      onLogin={() => void run(name, () => transport.login(name))}
      onLogout={() => void run(name, () => transport.logout(name))}
      onRemove={() => void run(name, async () => (await transport.removeProfile(name), go({ section: 'profiles' })))}
      onUpdate={(changes) => transport.updateProfile(name, changes)}
      onStoreSecret={(field, value) => transport.storeSecret(name, field, { value })}
    />
  );
}
