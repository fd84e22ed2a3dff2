import { useMemo, type ReactNode } from 'react';
import type { Transport } from './api/transport.js';
import { Sidebar } from './components/Sidebar.js';
import { WaitingBand } from './components/WaitingBand.js';
import { profileBadge } from './profileBadge.js';
import { useRoute, type SectionId } from './route.js';
import { ActivitySection } from './sections/ActivitySection.js';
import { ProfilesSection } from './sections/ProfilesSection.js';
import { RegistriesSection } from './sections/RegistriesSection.js';
import type { SectionProps } from './sections/sectionProps.js';
import { SettingsSection } from './sections/SettingsSection.js';
import { TokensSection } from './sections/TokensSection.js';
import { useBrokerState } from './useBrokerState.js';
import { useNow } from './useNow.js';
import { useProfileWork } from './useProfileWork.js';
import { useUnlockNotice } from './useUnlockNotice.js';

// What each section of the nav shows: a new screen is its route (route.ts), its view and a line here.
const VIEWS: Record<SectionId, (props: SectionProps) => ReactNode> = {
  profiles: ProfilesSection,
  tokens: TokensSection,
  registries: RegistriesSection,
  activity: ActivitySection,
  settings: SettingsSection,
};

/**
 * The main window: a nav of sections, the open section, and above it whatever blocks
 * someone's kubectl (questions, logins waiting on the user), whichever section is open.
 */
export function App({ transport }: { transport: Transport }) {
  const route = useRoute();
  const broker = useBrokerState(transport);
  const { state, problem, ended, report, audit, tokens, tokenFor } = broker;
  const now = useNow(state?.profiles);
  const work = useProfileWork(report);
  const unlockNotice = useUnlockNotice(tokens);

  const attention = useMemo(
    () => state?.profiles.filter((p) => profileBadge(p, now, tokenFor(p.name)).tone !== 'ok').length ?? 0,
    [state, now, tokenFor],
  );
  const denials = audit.filter((r) => r.outcome === 'denied').length;
  const Section = VIEWS[route.section];

  return (
    <div className="shell">
      <Sidebar current={route.section} counts={{ profiles: attention, activity: denials }} />
      <main className="content">
        {/* Always in the page, so a screen reader hears the words when they appear. */}
        <p className={unlockNotice ? 'toast' : 'sr-only'} role="status">
          {unlockNotice}
        </p>
        {ended || problem ? (
          <p className="problem" role="alert">
            {ended ?? problem}
          </p>
        ) : null}
        {state?.configError ? (
          <p className="problem" role="alert">
            config.yaml cannot be used: {state.configError}. Kubecred keeps serving its last good version until the file
            is fixed.
          </p>
        ) : null}
        <WaitingBand
          state={state}
          onAnswer={(id, reply) => void transport.answer(id, reply).catch((e: Error) => report(e.message))}
          onCancel={(name) => void work.run(name, () => transport.cancelLogin(name))}
        />
        {ended ? (
          <p className="empty">
            This page shows nothing more: what it showed may no longer be true, and it sends nothing to whatever now
            answers at its address.
          </p>
        ) : state === null ? (
          <p className="empty">Connecting to the broker…</p>
        ) : (
          <Section {...broker} {...work} state={state} route={route} now={now} transport={transport} />
        )}
      </main>
    </div>
  );
}
