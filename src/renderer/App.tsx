import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PromptAnswer } from '../shared/api/prompts.js';
import type { AuditEntry, TokenView, WebUiState } from '../shared/api/webUiApi.js';
import { ApiError, type Transport } from './api/transport.js';
import { AuditLogView } from './components/AuditLogView.js';
import { FirstRun } from './components/FirstRun.js';
import { ImportWizard } from './components/ImportWizard.js';
import { Nav } from './components/Nav.js';
import { PendingLogins } from './components/PendingLogins.js';
import { PreferencesView } from './components/PreferencesView.js';
import { ProfileDetail } from './components/ProfileDetail.js';
import { ProfileForm } from './components/ProfileForm.js';
import { ProfileList } from './components/ProfileList.js';
import { useUnlockNotice } from './useUnlockNotice.js';
import { PromptView } from './components/PromptView.js';
import { RegistryList } from './components/RegistryList.js';
import { TokenList } from './components/TokenList.js';
import { profileBadge, tickMs, tokenOf } from './profileBadge.js';
import { go, routeHref, useRoute } from './route.js';

/** The time left on screen moves on its own; the broker only says when things change. */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/**
 * The main window: a nav of sections, the open section, and above it whatever blocks
 * someone's kubectl (questions, logins waiting on the user), whichever section is open.
 */
export function App({ transport }: { transport: Transport }) {
  const route = useRoute();
  const [state, setState] = useState<WebUiState | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  /** Why this page can do nothing more (its session ended, or its broker is gone): outranks any other problem. */
  const [ended, setEnded] = useState<string | null>(null);
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const [tick, setTick] = useState(15_000);
  const now = useNow(tick);
  const [audit, setAudit] = useState<AuditEntry[]>([]);
  const [tokens, setTokens] = useState<TokenView[]>([]);
  const [profileTokens, setProfileTokens] = useState<Record<string, string>>({});
  const unlockNotice = useUnlockNotice(tokens);

  // The audit log and tokens are read on demand; every new state (a login, a served request
  // that changed a profile) is a good moment to read them again.
  const reload = useCallback(() => {
    transport.auditLog().then(setAudit, (e: Error) => setProblem(e.message));
    transport.tokens().then(setTokens, (e: Error) => setProblem(e.message));
  }, [transport]);
  useEffect(() => {
    if (state !== null) reload();
  }, [state, reload]);

  useEffect(() => {
    let live = true;
    transport.state().then(
      (s) => live && setState(s),
      (e: Error) => live && setProblem(e.message),
    );
    const stop = transport.subscribe(
      (s) => {
        setState(s);
        setProblem(null);
      },
      (e) => {
        setProblem(e.message);
        if (e instanceof ApiError) setEnded(e.hint ? `${e.message}: ${e.hint}` : e.message);
        // Questions and logins shown now could only be answered to whatever holds the port next.
        setState((s) => s && { ...s, prompts: [], interactions: [] });
      },
    );
    return () => {
      live = false;
      stop();
    };
  }, [transport]);

  useEffect(() => {
    if (state) setTick(tickMs(state.profiles, Date.now()));
  }, [state, now]);

  // Which profiles keep their secret on a token: only asked when tokens exist, and once per set of names.
  const names = state?.profiles.map((p) => p.name).join('\n') ?? '';
  const hasTokens = tokens.length > 0;
  useEffect(() => {
    if (!hasTokens || !names) return;
    let live = true;
    void Promise.all(
      names.split('\n').map((name) =>
        transport.profileConfig(name).then(
          (c) => [name, tokenOf(c)] as const,
          () => [name, undefined] as const,
        ),
      ),
    ).then(
      (pairs) =>
        live &&
        setProfileTokens(Object.fromEntries(pairs.filter((p): p is readonly [string, string] => p[1] !== undefined))),
    );
    return () => {
      live = false;
    };
  }, [transport, names, hasTokens]);
  const tokenFor = useCallback(
    (profile: string) => tokens.find((t) => t.name === profileTokens[profile]),
    [tokens, profileTokens],
  );

  const run = useCallback(async (profile: string, action: () => Promise<void>) => {
    setBusy((b) => new Set(b).add(profile));
    try {
      await action();
      setProblem(null);
    } catch (error) {
      const e = error as Error & { hint?: string };
      setProblem(e.hint ? `${e.message}. ${e.hint}` : e.message);
    } finally {
      setBusy((b) => {
        const next = new Set(b);
        next.delete(profile);
        return next;
      });
    }
  }, []);

  // Stable, so the edit form reads config.yaml once when it opens, not on every new state.
  const loadProfile = useCallback((name: string) => transport.profileConfig(name), [transport]);

  const answer = (id: string, reply: PromptAnswer) => {
    transport.answer(id, reply).catch((e: Error) => setProblem(e.message));
  };

  // A new question scrolls the band into view, wherever the section was scrolled to.
  const band = useRef<HTMLDivElement>(null);
  const waiting = (state?.prompts.length ?? 0) + (state?.interactions.length ?? 0);
  const seen = useRef(0);
  useEffect(() => {
    if (waiting > seen.current && band.current && band.current.getBoundingClientRect().top < 0)
      band.current.scrollIntoView({ block: 'start' });
    seen.current = waiting;
  }, [waiting]);

  const attention = useMemo(
    () => state?.profiles.filter((p) => profileBadge(p, now, tokenFor(p.name)).tone !== 'ok').length ?? 0,
    [state, now, tokenFor],
  );
  const denials = audit.filter((r) => r.outcome === 'denied').length;

  return (
    <div className="shell">
      <aside className="sidebar">
        <p className="brand">
          <svg viewBox="0 0 32 32" width="22" height="22" aria-hidden="true" focusable="false">
            <rect width="32" height="32" rx="7" fill="#1a5bc4" />
            <path d="M11 22v-6a5 5 0 0 1 10 0v6" fill="none" stroke="#fff" strokeWidth="3" />
            <rect x="8" y="17" width="16" height="10" rx="2" fill="#fff" />
          </svg>
          Kubecred
        </p>
        <Nav current={route.section} counts={{ profiles: attention, activity: denials }} />
      </aside>
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
        <div className="waiting-band" ref={band}>
          {/* The newest is on top (the last modal opened); it says how many wait under it. */}
          {state?.prompts.map((p, i, all) => (
            <PromptView
              key={p.id}
              prompt={p}
              onAnswer={(reply) => answer(p.id, reply)}
              behind={i === all.length - 1 ? all.length - 1 : 0}
            />
          ))}
          {state ? (
            <PendingLogins
              interactions={state.interactions}
              onCancel={(name) => void run(name, () => transport.cancelLogin(name))}
            />
          ) : null}
        </div>
        {ended ? (
          <p className="empty">
            This page shows nothing more: what it showed may no longer be true, and it sends nothing to whatever now
            answers at its address.
          </p>
        ) : state === null ? (
          <p className="empty">Connecting to the broker…</p>
        ) : route.section === 'profiles' && route.view === 'detail' ? (
          <ProfileDetail
            key={route.profile}
            name={route.profile}
            profile={state.profiles.find((p) => p.name === route.profile)}
            now={now}
            busy={busy.has(route.profile)}
            loginError={state.loginErrors[route.profile]}
            token={tokenFor(route.profile)}
            activity={audit.filter((r) => r.profile === route.profile)}
            load={loadProfile}
            loadCertificate={(profile) => transport.profileCertificate(profile)}
            onTurnOnProxy={() => transport.turnOnProxy(route.profile)}
            onLogin={() => void run(route.profile, () => transport.login(route.profile))}
            onLogout={() => void run(route.profile, () => transport.logout(route.profile))}
            onRemove={() =>
              void run(
                route.profile,
                async () => (await transport.removeProfile(route.profile), go({ section: 'profiles' })),
              )
            }
            onUpdate={(changes) => transport.updateProfile(route.profile, changes)}
            onStoreSecret={(field, value) => transport.storeSecret(route.profile, field, value)}
          />
        ) : route.section === 'profiles' && route.view === 'add' ? (
          <section className="view" aria-label="add a profile">
            <BackToProfiles />
            <h1 tabIndex={-1}>Add a profile</h1>
            <ProfileForm
              onAdd={async (profile) => (await transport.addProfile(profile), go({ section: 'profiles' }))}
            />
          </section>
        ) : route.section === 'profiles' && route.view === 'import' ? (
          <section className="view" aria-label="import">
            <BackToProfiles />
            <h1 tabIndex={-1}>Import a kubeconfig</h1>
            <ImportWizard transport={transport} />
          </section>
        ) : route.section === 'profiles' ? (
          <section className="view" aria-label="profile list">
            <div className="view-head">
              <h1>Profiles</h1>
              {state.profiles.length > 0 ? (
                <div className="button-row">
                  <a className="button secondary small" href={routeHref({ section: 'profiles', view: 'import' })}>
                    Import kubeconfig
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
        ) : route.section === 'tokens' ? (
          <section className="view" aria-label="hardware tokens">
            <h1>Hardware tokens</h1>
            <p className="hint">
              Smart cards, YubiKeys and HSMs under tokens: in config.yaml. A PIN is asked for when a profile on the
              token is first used.
            </p>
            <TokenList
              tokens={tokens}
              usedBy={(token) => Object.keys(profileTokens).filter((name) => profileTokens[name] === token)}
            />
          </section>
        ) : route.section === 'registries' ? (
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
        ) : route.section === 'activity' ? (
          <AuditLogView records={audit} onRefresh={reload} />
        ) : (
          <section className="view" aria-label="settings">
            <h1>Settings</h1>
            <PreferencesView transport={transport} version={state.profiles} configBroken={state.configError !== null} />
          </section>
        )}
      </main>
    </div>
  );
}

function BackToProfiles() {
  return (
    <p className="back">
      <a href={routeHref({ section: 'profiles' })}>← All profiles</a>
    </p>
  );
}
