import { useCallback, useEffect, useState } from 'react';
import type { AuditEntry, PromptAnswer, TokenView, WebUiState } from '../shared/api/prompts.js';
import type { Transport } from './api/transport.js';
import { AuditLogView } from './components/AuditLogView.js';
import { ImportWizard } from './components/ImportWizard.js';
import { PendingLogins } from './components/PendingLogins.js';
import { PreferencesView } from './components/PreferencesView.js';
import { PromptView } from './components/PromptView.js';
import { ProfileForm } from './components/ProfileForm.js';
import { ProfileList } from './components/ProfileList.js';
import { RegistryList } from './components/RegistryList.js';
import { TokenList } from './components/TokenList.js';

/** The time left on screen moves on its own; the broker only says when things change. */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** The main window: prompts first (they block someone's kubectl), then pending logins, then profiles. */
export function App({ transport }: { transport: Transport }) {
  const [state, setState] = useState<WebUiState | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const now = useNow(15_000);
  const [audit, setAudit] = useState<AuditEntry[]>([]);
  const [tokens, setTokens] = useState<TokenView[]>([]);

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
    transport.state().then((s) => live && setState(s), (e: Error) => live && setProblem(e.message));
    const stop = transport.subscribe(
      (s) => {
        setState(s);
        setProblem(null);
      },
      (e) => setProblem(e.message),
    );
    return () => {
      live = false;
      stop();
    };
  }, [transport]);

  const run = useCallback(
    async (profile: string, action: () => Promise<void>) => {
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
    },
    [],
  );

  // Stable, so the edit form reads config.yaml once when it opens, not on every new state.
  const loadProfile = useCallback((name: string) => transport.profileConfig(name), [transport]);

  const answer = (id: string, reply: PromptAnswer) => {
    transport.answer(id, reply).catch((e: Error) => setProblem(e.message));
  };

  return (
    <main>
      <header>
        <h1>Kubecred</h1>
      </header>
      {problem ? (
        <p className="problem" role="alert">
          {problem}
        </p>
      ) : null}
      {state?.configError ? (
        <p className="problem" role="alert">
          config.yaml cannot be used: {state.configError}. Kubecred keeps serving its last good version until the file is fixed.
        </p>
      ) : null}
      {state === null ? (
        <p className="empty">Connecting to the broker…</p>
      ) : (
        <>
          {state.prompts.map((p) => (
            <PromptView key={p.id} prompt={p} onAnswer={(reply) => answer(p.id, reply)} />
          ))}
          <PendingLogins interactions={state.interactions} onCancel={(name) => void run(name, () => transport.cancelLogin(name))} />
          <h2 className="section">Profiles</h2>
          <ProfileList
            profiles={state.profiles}
            now={now}
            busy={busy}
            loginErrors={state.loginErrors}
            onLogin={(name) => void run(name, () => transport.login(name))}
            onLogout={(name) => void run(name, () => transport.logout(name))}
            onRemove={(name) => void run(name, () => transport.removeProfile(name))}
            loadProfile={loadProfile}
            onUpdate={(name, changes) => transport.updateProfile(name, changes)}
            onStoreSecret={(name, field, value) => transport.storeSecret(name, field, value)}
          />
          <ProfileForm onAdd={(profile) => transport.addProfile(profile)} />
          <h2 className="section">Import a kubeconfig</h2>
          <ImportWizard transport={transport} />
          <h2 className="section">Tokens</h2>
          <TokenList tokens={tokens} />
          <h2 className="section">Image registries</h2>
          <RegistryList registries={state.registries} />
          <h2 className="section">Preferences</h2>
          <PreferencesView transport={transport} version={state.profiles} configBroken={state.configError !== null} />
          <h2 className="section">Audit log</h2>
          <AuditLogView records={audit} onRefresh={reload} />
        </>
      )}
    </main>
  );
}
