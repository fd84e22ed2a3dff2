import type { ProxyTurnedOn } from '../../shared/api/webUiApi.js';
import { useProxyTurnOn } from '../useProxyTurnOn.js';
import { ProblemText } from './FieldInput.js';

/** What the proxy gives a profile whose own credential goes to the cluster; `whose`: "this profile's". */
export const proxyGives = (whose: string) =>
  `With it on, kubectl talks to a local listener, and the listener shows the cluster ${whose} credential; kubectl holds only a short-lived certificate for the listener: a copied kubeconfig grants nothing.`;

/** What else the proxy opens up, for every provider. */
export const PROXY_GUARD =
  'It also lets you give the profile a guard in config.yaml (read-only, or rules that confirm or deny requests).';

/** "Context a" or "Contexts a, b": the contexts the proxy now stands in front of. */
export const contextsWords = (contexts: readonly string[]) =>
  `Context${contexts.length === 1 ? '' : 's'} ${contexts.join(', ')}`;

/** Where kubectl's requests go once the proxy is on: kubectl → https://127.0.0.1:<port> → the cluster. */
export function ProxyRoute({ on }: { on: ProxyTurnedOn }) {
  return (
    <>
      kubectl → <code>https://127.0.0.1:{on.port}</code> → <code>{on.upstream}</code>
    </>
  );
}

/**
 * For a profile that does not go through the exec proxy yet: what the proxy gives, and one
 * button that turns it on from the kubeconfig as it is (the broker takes the cluster, its CA
 * and a free port, and points the contexts at the listener). `keyOnToken`: the listener signs
 * in with the key on a hardware token; otherwise it sends the profile's own credential.
 */
export function ProxyOffer({
  contexts,
  keyOnToken,
  onTurnOn,
}: {
  contexts: readonly string[];
  keyOnToken: boolean;
  onTurnOn(): Promise<ProxyTurnedOn>;
}) {
  const { busy, done, problem, start } = useProxyTurnOn(onTurnOn);
  const nextKubectl = keyOnToken
    ? 'the next kubectl there uses the key on the token'
    : "the next kubectl there holds only a certificate for the listener, which sends the cluster the profile's credential";
  if (done)
    return (
      <div className="card proxy-offer" role="status" aria-label="exec proxy">
        <p className="done-head">
          <span className="done-mark" aria-hidden="true">
            ✓
          </span>
          The exec proxy is on
        </p>
        <p>
          <ProxyRoute on={done} />. {contextsWords(done.contexts)} now go{done.contexts.length === 1 ? 'es' : ''}{' '}
          through it; {nextKubectl}.
        </p>
      </div>
    );
  return (
    <div className="card proxy-offer" aria-label="exec proxy">
      <h2>Exec proxy: off</h2>
      <p className="hint">
        {keyOnToken
          ? 'With it on, kubectl talks to a local listener with a short-lived certificate, and the listener signs in to the cluster with the key on the token, which never leaves it: a copied kubeconfig grants nothing.'
          : proxyGives("this profile's")}{' '}
        {PROXY_GUARD}
      </p>
      {contexts.length === 0 ? (
        <p className="hint">No context of your kubeconfig uses this profile yet: install it for one first.</p>
      ) : null}
      <ProblemText problem={problem} />
      <button
        type="button"
        className={keyOnToken ? undefined : 'secondary'}
        disabled={busy || contexts.length === 0}
        onClick={start}
      >
        Turn on the exec proxy
      </button>
    </div>
  );
}
