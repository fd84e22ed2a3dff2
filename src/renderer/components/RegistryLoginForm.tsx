import { useState, type FormEvent } from 'react';
import type { RegistrySummary } from '../../shared/api/status.js';
import type { RegistryLoginRequest } from '../../shared/api/webUiApi.js';
import { registryHosts } from '../registryHosts.js';
import { refusalWords } from '../refusalWords.js';

/**
 * Log in to a registry whose login lives in the secret store, as `docker login` would store
 * it; the password is sent once and never shown again. Opened on request: most people log in
 * with docker itself.
 */
export function RegistryLoginForm({
  registry,
  onLogin,
}: {
  registry: RegistrySummary;
  onLogin(login: RegistryLoginRequest): Promise<void>;
}) {
  const host = registryHosts([registry]).exact[0] ?? '';
  const [open, setOpen] = useState(false);
  const [server, setServer] = useState(host);
  const [username, setUsername] = useState(registry.username ?? '');
  const [password, setPassword] = useState('');
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  if (!open)
    return (
      <p className="actions">
        <button type="button" className="secondary small" onClick={() => (setOpen(true), setOutcome(null))}>
          Log in…
        </button>
        {outcome ? (
          <span className="saved saved-saved" role="status">
            ✓ {outcome.text}
          </span>
        ) : null}
      </p>
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    onLogin({ server: server.trim(), username: username.trim(), password }).then(
      () => {
        setPassword('');
        setOpen(false);
        setOutcome({ ok: true, text: `Stored the login of ${username.trim()} for ${server.trim()}` });
        setBusy(false);
      },
      (e: Error & { hint?: string }) => {
        setOutcome({ ok: false, text: refusalWords(e) });
        setBusy(false);
      },
    );
  };
  return (
    <form className="registry-login" aria-label={`log in to ${registry.name}`} onSubmit={submit}>
      <label>
        Server
        <input name="server" value={server} onChange={(e) => setServer(e.target.value)} placeholder="quay.io" />
      </label>
      <label>
        User name
        <input name="username" value={username} autoComplete="username" onChange={(e) => setUsername(e.target.value)} />
      </label>
      <label>
        Password or token
        <input
          name="password"
          type="password"
          value={password}
          autoComplete="current-password"
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      {outcome && !outcome.ok ? (
        <p className="error-text" role="alert">
          {outcome.text}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" disabled={busy || !server.trim() || !username.trim() || !password}>
          Store the login
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
