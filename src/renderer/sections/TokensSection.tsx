import { TokenList } from '../components/TokenList.js';
import type { SectionProps } from './sectionProps.js';

export function TokensSection({ tokens, profileTokens }: SectionProps) {
  return (
    <section className="view" aria-label="hardware tokens">
      <h1>Hardware tokens</h1>
      <p className="hint">
        Smart cards, YubiKeys and HSMs under tokens: in config.yaml. A PIN is asked for when a profile on the token is
        first used.
      </p>
      <TokenList
        tokens={tokens}
        usedBy={(token) => Object.keys(profileTokens).filter((name) => profileTokens[name] === token)}
      />
    </section>
  );
}
