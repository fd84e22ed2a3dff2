import { useEffect, useState, type FormEvent } from 'react';
import { ENROLL_KEY_TYPES, type EnrollKeyType, type EnrollRequest } from '../../shared/api/webUiApi.js';
import type { Transport } from '../api/transport.js';
import { FieldErrorText, FormErrorText, type FieldError } from './FieldInput.js';
import { refusalWords } from '../refusalWords.js';

const KEY_TYPE_WORDS: Record<EnrollKeyType, string> = {
  'ec-p256': 'EC P-256',
  'ec-p384': 'EC P-384',
  'rsa-2048': 'RSA 2048',
};

const FIELDS: ReadonlySet<string> = new Set(['profile', 'context', 'token', 'user', 'groups', 'keyType']);

interface Props {
  transport: Pick<Transport, 'kubeconfigContexts' | 'tokens'>;
  /** Rejects with the broker's refusal (an unknown token, a taken name) before anything is made. */
  onEnroll(request: EnrollRequest): Promise<void>;
}

/**
 * "Use a hardware key": a key made on a token, its certificate from the cluster (an admin
 * approves it), and a profile and context that use it. The broker does the work; the steps
 * and the admin's command show above the page as it goes.
 */
export function EnrollForm({ transport, onEnroll }: Props) {
  const [profile, setProfile] = useState('');
  const [context, setContext] = useState('');
  const [token, setToken] = useState('');
  const [user, setUser] = useState('');
  const [groups, setGroups] = useState('');
  const [keyType, setKeyType] = useState<EnrollKeyType>('ec-p256');
  const [contexts, setContexts] = useState<readonly string[] | null>(null);
  const [tokens, setTokens] = useState<readonly string[] | null>(null);
  const [error, setError] = useState<FieldError | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let live = true;
    const failed = (e: Error) => live && setError({ field: 'form', text: e.message });
    transport.kubeconfigContexts().then((answer) => {
      if (!live) return;
      setContexts(answer.contexts);
      setContext((current) => current || (answer.contexts[0] ?? ''));
    }, failed);
    transport.tokens().then((answer) => {
      if (!live) return;
      const names = answer.tokens.map((t) => t.name);
      setTokens(names);
      setToken((current) => current || (names[0] ?? ''));
    }, failed);
    return () => {
      live = false;
    };
  }, [transport]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      await onEnroll({
        profile: profile.trim(),
        context,
        token,
        user: user.trim(),
        groups: groups
          .split('\n')
          .map((g) => g.trim())
          .filter(Boolean),
        keyType,
      });
    } catch (e) {
      const failure = e as Error & { field?: string; hint?: string };
      setError({
        field: failure.field ?? 'form',
        text: refusalWords(failure),
      });
    } finally {
      setSaving(false);
    }
  };

  const errorFor = (field: string) => <FieldErrorText error={error} field={field} />;
  const ready = profile.trim() && context && token && user.trim();

  return (
    <form className="card" aria-label="use a hardware key" onSubmit={(e) => void submit(e)}>
      <h2>The key and its certificate request</h2>
      <p className="hint">
        Kubecred makes a key on the token (it never leaves it) and asks the cluster for a certificate. A cluster admin
        approves the request; the command to give them shows at the top of this window.
      </p>
      <label>
        Profile name
        <input
          name="profile"
          value={profile}
          autoComplete="off"
          onChange={(e) => setProfile(e.target.value)}
          aria-invalid={error?.field === 'profile'}
        />
        <span className="hint">Also the name of the new kubectl context.</span>
        {errorFor('profile')}
      </label>
      <label>
        Reach the cluster through context
        <select name="context" value={context} onChange={(e) => setContext(e.target.value)}>
          {contexts?.length === 0 ? <option value="">no context in your kubeconfig</option> : null}
          {contexts?.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <span className="hint">The certificate request is sent with this context&apos;s credentials.</span>
        {errorFor('context')}
      </label>
      <label>
        Token
        <select name="token" value={token} onChange={(e) => setToken(e.target.value)}>
          {tokens?.length === 0 ? <option value="">no token in config.yaml</option> : null}
          {tokens?.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        {errorFor('token')}
      </label>
      <label>
        User name
        <input
          name="user"
          value={user}
          autoComplete="off"
          onChange={(e) => setUser(e.target.value)}
          aria-invalid={error?.field === 'user'}
        />
        <span className="hint">The name the cluster sees (the certificate&apos;s CN).</span>
        {errorFor('user')}
      </label>
      <label>
        Groups (one per line)
        <textarea name="groups" rows={3} value={groups} onChange={(e) => setGroups(e.target.value)} />
        {errorFor('groups')}
      </label>
      <label>
        Key type
        <select name="keyType" value={keyType} onChange={(e) => setKeyType(e.target.value as EnrollKeyType)}>
          {ENROLL_KEY_TYPES.map((k) => (
            <option key={k} value={k}>
              {KEY_TYPE_WORDS[k]}
            </option>
          ))}
        </select>
        {errorFor('keyType')}
      </label>
      <FormErrorText error={error} fields={FIELDS} />
      <div className="actions">
        <button type="submit" disabled={saving || !ready}>
          {saving ? 'Starting…' : 'Make the key'}
        </button>
      </div>
    </form>
  );
}
