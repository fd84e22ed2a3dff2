import { PreferencesView } from '../components/PreferencesView.js';
import type { SectionProps } from './sectionProps.js';

export function SettingsSection({ state, updates, transport }: SectionProps) {
  return (
    <section className="view" aria-label="settings">
      <h1>Settings</h1>
      <PreferencesView transport={transport} brokerUpdates={updates} configBroken={state.configError !== null} />
    </section>
  );
}
