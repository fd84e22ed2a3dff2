import { useEffect, useRef } from 'react';
import type { ProxyTurnedOn } from '../../shared/api/webUiApi.js';
import { useProxyTurnOn } from '../useProxyTurnOn.js';
import { PROXY_GUARD, ProxyRoute, contextsWords, proxyGives } from './ProxyOffer.js';

/**
 * After an import: the exec proxy offered for each new profile, as an option and no more (the
 * import is done without it). One quiet button a profile; its row then says in one line where
 * kubectl goes, or the broker's refusal. The calls run one after another, since each one
 * rewrites the same kubeconfig.
 */
export function ImportProxyOffer({
  profiles,
  onTurnOn,
}: {
  profiles: readonly string[];
  onTurnOn(profile: string): Promise<ProxyTurnedOn>;
}) {
  const last = useRef<Promise<unknown>>(Promise.resolve());
  const inTurn = (profile: string) => {
    const mine = last.current.then(() => onTurnOn(profile));
    last.current = mine.catch(() => undefined);
    return mine;
  };
  return (
    <section className="import-proxy" aria-labelledby="import-proxy-head">
      <h3 id="import-proxy-head" className="subheading">
        Optional: route through the exec proxy
      </h3>
      <p className="hint">
        Nothing more is needed: kubectl works as it is. A profile can also go through the exec proxy.{' '}
        {proxyGives("the profile's")} {PROXY_GUARD} You can do this later on the profile&apos;s page too.
      </p>
      <ul className="proxy-rows" aria-label="new profiles and the exec proxy">
        {profiles.map((profile) => (
          <ProxyRow key={profile} profile={profile} onTurnOn={() => inTurn(profile)} />
        ))}
      </ul>
    </section>
  );
}

function ProxyRow({ profile, onTurnOn }: { profile: string; onTurnOn(): Promise<ProxyTurnedOn> }) {
  const { busy, done, problem, start } = useProxyTurnOn(onTurnOn);
  // The button goes away or waits: the focus moves to the line that answers it.
  const answer = useRef<HTMLParagraphElement>(null);
  useEffect(() => answer.current?.focus(), [done, problem]);
  return (
    <li className="proxy-row" data-proxy-profile={profile}>
      <strong className="proxy-row-name">{profile}</strong>
      {done ? (
        <p className="proxy-row-outcome" role="status" tabIndex={-1} ref={answer}>
          <span className="done-mark" aria-hidden="true">
            ✓
          </span>{' '}
          {contextsWords(done.contexts)}: <ProxyRoute on={done} />
        </p>
      ) : (
        <button
          type="button"
          className="secondary small"
          disabled={busy}
          aria-label={`Route through the exec proxy: ${profile}`}
          onClick={start}
        >
          Route through the exec proxy
        </button>
      )}
      {problem && !done ? (
        <p className="error-text proxy-row-refusal" role="alert" tabIndex={-1} ref={answer}>
          {problem}
        </p>
      ) : null}
    </li>
  );
}
