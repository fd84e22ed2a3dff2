import { useEffect, useMemo, useRef, useState } from 'react';
import type {
  AuditEntry,
  CertificateFacts,
  GuardStateView,
  ProfileChanges,
  ProfileInstalled,
  ProxyTurnedOn,
  TokenView,
} from '../../shared/api/webUiApi.js';
import { ProxyOffer } from './ProxyOffer.js';
import { GuardPanel } from './GuardPanel.js';
import { GuardOffer } from './GuardOffer.js';
import { guardRuleLines } from '../guardView.js';
import { guardRows, type GuardRuleInput } from '../guardEdit.js';
import { isGuardChange } from '../auditRows.js';
import type { GuardChange, ProfileSummary } from '../../shared/api/status.js';
import { profileBadge, secretHome } from '../profileBadge.js';
import { routeHref } from '../route.js';
import { formatTimeLeft, hasLogin } from '../../shared/api/profileWords.js';
import { loginOffer } from '../profileTone.js';
import { AuditTable, auditTime, callerText } from './AuditLogView.js';
import { ProfileEditForm } from './ProfileEditForm.js';
import { StatusBadge } from './StatusBadge.js';
import { clusterServers, offersProxy, profileFacts } from '../profileFacts.js';
import { CertificateFact, Fact } from './ProfileFacts.js';
import { RemoveConfirm } from './RemoveConfirm.js';
import { UseForContext } from './UseForContext.js';

const PROVIDER_WORDS: Record<string, string> = {
  static: 'a long-lived token or client certificate',
  exec: 'an exec plugin Kubecred runs, its answers cached',
  oidc: 'OpenID Connect: you sign in with your browser',
  keystone: 'OpenStack Keystone',
  eks: 'AWS EKS tokens from your AWS keys',
};

interface Props {
  readonly profile: ProfileSummary | undefined;
  readonly name: string;
  readonly now: number;
  readonly busy: boolean;
  readonly loginError: string | undefined;
  readonly token: TokenView | undefined;
  /** The audit records of this profile, newest first. */
  readonly activity: readonly AuditEntry[];
  load(profile: string): Promise<Record<string, unknown>>;
  /** The client certificate the profile presents from its store, or null. */
  loadCertificate(profile: string): Promise<CertificateFacts | null>;
  onTurnOnProxy(): Promise<ProxyTurnedOn>;
  /** The contexts of the kubeconfig, for "Use for a context…". */
  loadContexts(): Promise<readonly string[]>;
  /** Points a context's user at this profile (kubecred install); rejects with the broker's refusal. */
  onInstall(context: string): Promise<ProfileInstalled>;
  /** Lifts the profile's guard for a while, or puts it back; answers where it stands. */
  onGuard(change: GuardChange): Promise<GuardStateView>;
  /** Writes the guard's rules to config.yaml, or takes the guard away (null); rejects with the broker's refusal. */
  onSetGuard(rules: GuardRuleInput[] | null): Promise<void>;
  onLogin(): void;
  onLogout(): void;
  onRemove(): void;
  onUpdate(changes: ProfileChanges): Promise<void>;
  onStoreSecret(field: string, value: string): Promise<void>;
}

/** One profile: what it is, where its secret lives, who uses it, and only the actions its provider has. */
export function ProfileDetail({
  profile,
  name,
  now,
  busy,
  loginError,
  token,
  activity,
  load,
  loadCertificate,
  onTurnOnProxy,
  loadContexts,
  onInstall,
  onGuard,
  onSetGuard,
  onLogin,
  onLogout,
  onRemove,
  onUpdate,
  onStoreSecret,
}: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [config, setConfig] = useState<Record<string, unknown> | null>(null);
  // config.yaml is read once for this page (again after the page changed the guard); the edit form gets the same answer.
  const exists = profile !== undefined;
  const loaded = useMemo(() => (exists ? load(name) : null), [load, name, exists]);
  const loadOnce = useMemo(() => () => loaded ?? load(name), [loaded, load, name]);
  /** After a guard was added or taken away, the card that took the used one's place has the focus. */
  const [guardFocus, setGuardFocus] = useState<'panel' | 'offer' | null>(null);
  useEffect(() => {
    let live = true;
    loaded?.then(
      (c) => live && setConfig(c),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [loaded]);
  useEffect(() => heading.current?.focus(), [name]);
  // A static profile's certificate is read from its store once per page (and after an edit).
  const [certificate, setCertificate] = useState<CertificateFacts | null>(null);
  const isStatic = profile?.provider === 'static';
  useEffect(() => {
    if (!isStatic || editing) return;
    let live = true;
    loadCertificate(name).then(
      (facts) => live && setCertificate(facts),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [loadCertificate, name, isStatic, editing]);

  const back = (
    <p className="back">
      <a href={routeHref({ section: 'profiles' })}>← All profiles</a>
    </p>
  );
  if (!profile) {
    return (
      <section aria-label={`profile ${name}`} className="view">
        {back}
        <h1 ref={heading} tabIndex={-1}>
          {name}
        </h1>
        <p className="empty">There is no profile named {name} (it was removed, or config.yaml changed).</p>
      </section>
    );
  }
  const badge = profileBadge(profile, now, token);
  const error = loginError ?? profile.lastError;
  const offer = loginOffer(profile);
  const left = formatTimeLeft(profile.expiresAt, now);
  const keyOnToken = typeof config?.tokenCertificate === 'object' && config.tokenCertificate !== null;
  const proxyOffer = !config || !offersProxy(config) ? 'none' : keyOnToken ? 'token' : 'credential';
  // A change of the guard is in the activity, but no program called.
  const last = activity.find((r) => !isGuardChange(r));
  const setGuard = async (rules: GuardRuleInput[] | null) => {
    await onSetGuard(rules);
    // An edit keeps the Guard card (and the focus where it was); an added or removed guard swaps the cards.
    if (rules === null) setGuardFocus('offer');
    else if (!profile.guard) setGuardFocus('panel');
    load(name).then(setConfig, () => undefined);
  };
  return (
    <section aria-label={`profile ${name}`} className="view" data-profile-detail={name}>
      {back}
      <div className="detail-head">
        <h1 ref={heading} tabIndex={-1}>
          {name} <span className="provider">{profile.provider}</span>
        </h1>
        <StatusBadge badge={badge} stateClass={`state-${profile.state}`} />
      </div>
      {profile.description ? <p className="description">{profile.description}</p> : null}
      {error ? <p className="error-text">{error}</p> : null}
      {badge.fix ? <p className="fix">{badge.fix}</p> : null}
      <div className="actions detail-actions">
        {offer !== 'none' ? (
          <button
            type="button"
            className={offer === 'secondary' ? 'secondary' : undefined}
            disabled={busy}
            onClick={onLogin}
          >
            Log in
          </button>
        ) : null}
        {profile.state === 'ready' ? (
          <button type="button" className="secondary" disabled={busy} onClick={onLogout}>
            {hasLogin(profile) ? 'Log out' : 'Forget cached credential'}
          </button>
        ) : null}
        <button type="button" className="secondary" disabled={busy || editing} onClick={() => setEditing(true)}>
          Edit…
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy || confirming}
          aria-expanded={confirming}
          onClick={() => setConfirming(true)}
        >
          Remove…
        </button>
      </div>
      {confirming ? (
        <RemoveConfirm
          name={name}
          contexts={profile.contexts ?? []}
          busy={busy}
          onRemove={() => (setConfirming(false), onRemove())}
          onKeep={() => setConfirming(false)}
        />
      ) : null}
      {editing ? (
        <ProfileEditForm
          name={name}
          provider={profile.provider}
          load={loadOnce}
          onSave={onUpdate}
          onStoreSecret={onStoreSecret}
          onClose={() => setEditing(false)}
        />
      ) : null}
      {/* For a key on a token the proxy is the way to use it: offered first. For others, after the facts. */}
      {proxyOffer === 'token' ? (
        <ProxyOffer contexts={profile.contexts ?? []} keyOnToken onTurnOn={onTurnOnProxy} />
      ) : null}
      {profile.guard ? (
        <GuardPanel
          profile={{ ...profile, guard: profile.guard }}
          rules={config ? guardRuleLines(config) : null}
          editRows={config ? guardRows(config.guard) : null}
          now={now}
          autoFocus={guardFocus === 'panel'}
          onChange={onGuard}
          onSetGuard={setGuard}
        />
      ) : profile.proxyPort !== undefined ? (
        <GuardOffer profile={name} autoFocus={guardFocus === 'offer'} onSetGuard={setGuard} />
      ) : null}
      <dl className="facts detail-facts">
        <dt>Provider</dt>
        <dd>
          {profile.provider}
          {PROVIDER_WORDS[profile.provider] ? (
            <span className="hint"> · {PROVIDER_WORDS[profile.provider]}</span>
          ) : null}
        </dd>
        {(config ? profileFacts(profile.provider, config) : []).map((fact) => (
          <Fact key={fact.label} fact={fact} />
        ))}
        {certificate ? <CertificateFact facts={certificate} now={now} /> : null}
        <dt>Secret kept in</dt>
        <dd>{config ? secretHome(profile.provider, config, profile.secretStore) : '…'}</dd>
        {token ? (
          <>
            <dt>Token</dt>
            <dd>
              {token.name}
              {token.label ? ` (${token.label})` : ''}:{' '}
              {!token.present
                ? 'not plugged in'
                : token.flags?.locked
                  ? 'locked by wrong PINs'
                  : token.loggedIn
                    ? 'PIN entered'
                    : 'asks for its PIN on use'}
            </dd>
          </>
        ) : null}
        <dt>Used by</dt>
        <dd className="used-by">
          {profile.contexts?.length ? (
            <ul className="inline-list" aria-label="kubeconfig contexts">
              {profile.contexts.map((c) => (
                <li key={c}>
                  <code>{c}</code>
                </li>
              ))}
            </ul>
          ) : (
            <span className="hint">No context of your kubeconfig uses this profile yet.</span>
          )}
          <UseForContext profile={name} using={profile.contexts ?? []} loadContexts={loadContexts} onUse={onInstall} />
        </dd>
        {profile.servers?.length ? (
          <>
            <dt>Clusters</dt>
            <dd>
              <ul className="inline-list" aria-label="cluster API servers">
                {clusterServers(profile.servers, config).map((server) => (
                  <li key={server}>
                    <code>{server}</code>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
        {profile.account ? (
          <>
            <dt>Signed in as</dt>
            <dd data-fact="Signed in as">{profile.account}</dd>
          </>
        ) : null}
        {/* A certificate's end is on its own row: "nothing cached" beside it would only confuse. */}
        {certificate && !(profile.expiresAt && left) ? null : (
          <>
            <dt>Expires</dt>
            <dd className="tabular">
              {profile.expiresAt && left
                ? `${auditTime(profile.expiresAt)} (${left === 'expired' ? 'expired' : `in ${left}`})`
                : profile.state === 'ready'
                  ? 'no expiry given'
                  : 'nothing cached'}
            </dd>
          </>
        )}
        <dt>Last caller</dt>
        <dd>{last ? `${callerText(last)}, ${auditTime(last.time)}, ${last.outcome}` : 'nobody yet'}</dd>
      </dl>
      {proxyOffer === 'credential' ? (
        <ProxyOffer contexts={profile.contexts ?? []} keyOnToken={false} onTurnOn={onTurnOnProxy} />
      ) : null}
      <h2 className="section">Recent activity</h2>
      {activity.length === 0 ? (
        <p className="empty">No request for this profile in the audit log.</p>
      ) : (
        <AuditTable records={activity.slice(0, 8)} label={`recent activity of ${name}`} />
      )}
      <p>
        <a href={routeHref({ section: 'activity' })}>All activity</a>
      </p>
    </section>
  );
}
