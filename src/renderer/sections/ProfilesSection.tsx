import { EnrollForm } from '../components/EnrollForm.js';
import { FirstRun } from '../components/FirstRun.js';
import { ImportWizard } from '../components/ImportWizard.js';
import { ProfileForm } from '../components/ProfileForm.js';
import { ProfileList } from '../components/ProfileList.js';
import { go, routeHref } from '../route.js';
import { ProfileDetailSection } from './ProfileDetailSection.js';
import type { SectionProps } from './sectionProps.js';

/** The profile list, and the pages it leads to: one profile, a new one, an import. */
export function ProfilesSection(props: SectionProps) {
  const { route, transport } = props;
  if (route.view === 'detail') return <ProfileDetailSection {...props} name={route.profile} />;
  if (route.view === 'add')
    return (
      <section className="view" aria-label="add a profile">
        <BackToProfiles />
        <h1 tabIndex={-1}>Add a profile</h1>
        <ProfileForm
          onAdd={async (profile, secrets) => {
            await transport.addProfile(profile);
            const name = String(profile.name);
            try {
              for (const [field, value] of Object.entries(secrets)) await transport.storeSecret(name, field, { value });
            } catch {
              // The profile is there: Add again would be refused, so its page (and Edit…) is where to go on.
              return go({ section: 'profiles', view: 'detail', profile: name });
            }
            go({ section: 'profiles' });
          }}
        />
      </section>
    );
  if (route.view === 'enroll')
    return (
      <section className="view" aria-label="use a hardware key">
        <BackToProfiles />
        <h1 tabIndex={-1}>Use a hardware key</h1>
        <EnrollForm
          transport={transport}
          // The steps and the admin's command show in the band above the list from here on.
          onEnroll={async (request) => (await transport.enrollProfile(request), go({ section: 'profiles' }))}
        />
      </section>
    );
  if (route.view === 'import')
    return (
      <section className="view" aria-label="import">
        <BackToProfiles />
        <h1 tabIndex={-1}>Import a kubeconfig</h1>
        <ImportWizard transport={transport} />
      </section>
    );
  return <ProfileListSection {...props} />;
}

function ProfileListSection({ state, now, busy, run, tokenFor, transport }: SectionProps) {
  return (
    <section className="view" aria-label="profile list">
      <div className="view-head">
        <h1>Profiles</h1>
        {state.profiles.length > 0 ? (
          <div className="button-row">
            <a className="button secondary small" href={routeHref({ section: 'profiles', view: 'import' })}>
              Import kubeconfig
            </a>
            <a className="button secondary small" href={routeHref({ section: 'profiles', view: 'enroll' })}>
              Use a hardware key
            </a>
            <a className="button small" href={routeHref({ section: 'profiles', view: 'add' })}>
              Add a profile
            </a>
          </div>
        ) : null}
      </div>
      {state.profiles.length === 0 ? (
        state.configError ? (
          <p className="empty">No profiles can be read while config.yaml is broken.</p>
        ) : (
          <FirstRun />
        )
      ) : (
        <ProfileList
          profiles={state.profiles}
          now={now}
          busy={busy}
          loginErrors={state.loginErrors}
          tokenOf={tokenFor}
          onLogin={(name) => void run(name, () => transport.login(name))}
          onLogout={(name) => void run(name, () => transport.logout(name))}
        />
      )}
    </section>
  );
}

function BackToProfiles() {
  return (
    <p className="back">
      <a href={routeHref({ section: 'profiles' })}>← All profiles</a>
    </p>
  );
}
