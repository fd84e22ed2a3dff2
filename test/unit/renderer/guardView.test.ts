import { describe, expect, it } from 'vitest';
import { guardRuleLines, guardTag } from '../../../src/renderer/guardView.js';
import { offersProxy, profileFacts } from '../../../src/renderer/profileFacts.js';
import { tickMs } from '../../../src/renderer/profileBadge.js';
import type { ProfileSummary } from '../../../src/shared/api/status.js';

const now = Date.parse('2026-01-01T12:00:00Z');
const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
const lines = (guard: unknown) => guardRuleLines({ guard }).map((r) => `${r.action}: ${r.text}`);

// Issue 33: a proxied profile's guard, on its page and its row.
describe("a guard's rules in a person's words", () => {
  it('reads the short form and every selector of a rule, one line each', () => {
    expect(lines('read-only')).toEqual(['read-only: every write refused, dry runs allowed']);
    expect(
      lines({
        rules: [
          { action: 'confirm', verbs: ['delete'], resources: ['pods', 'deployments.apps'] },
          { action: 'deny', resources: ['secrets'] },
          { action: 'read-only', resources: ['configmaps'], namespaces: ['kube-system'] },
          { action: 'confirm', verbs: ['create', 'patch'], namespaces: ['prod', 'billing'], names: ['web'] },
          { action: 'deny', verbs: ['*'], resources: ['*'] },
          { action: 'deny', verbs: ['deletecollection'] },
        ],
      }),
    ).toEqual([
      'confirm: delete on pods, deployments.apps',
      'deny: secrets',
      'read-only: every write to configmaps in namespace kube-system refused, dry runs allowed',
      'confirm: create, patch on anything in namespaces prod, billing named "web"',
      'deny: every request',
      'deny: deletecollection on anything',
    ]);
  });

  it('names a rule only where config.yaml names it', () => {
    expect(
      guardRuleLines({ guard: { rules: [{ name: 'no deletes', action: 'confirm', verbs: ['delete'] }] } }),
    ).toEqual([{ action: 'confirm', text: 'delete on anything', name: 'no deletes' }]);
  });

  it('has no lines for a profile without a guard, or one config.yaml would refuse', () => {
    expect(guardRuleLines({})).toEqual([]);
    expect(guardRuleLines(null)).toEqual([]);
    expect(guardRuleLines({ guard: 'write-only' })).toEqual([]);
    expect(guardRuleLines({ guard: { rules: 'all' } })).toEqual([]);
    expect(guardRuleLines({ guard: { rules: [{ verbs: ['get'] }, 7] } })).toEqual([]);
  });
});

describe("a guarded profile's row", () => {
  const guarded = (offUntil: string | null): Pick<ProfileSummary, 'guard'> => ({ guard: { rules: 2, offUntil } });

  it('says guarded, or guard lifted while the lift lasts, with the full words for its tooltip', () => {
    expect(guardTag({}, now)).toBeNull();
    expect(guardTag(guarded(null), now)).toEqual({ words: 'guarded', lifted: false, full: 'guard on (2 rules)' });
    expect(guardTag(guarded(at(14.5)), now)).toEqual({
      words: 'guard lifted',
      lifted: true,
      full: 'guard lifted, back in 15 min',
    });
    // The clock decides: a lift whose time is up is a guard that holds.
    expect(guardTag(guarded(at(-1)), now)?.words).toBe('guarded');
  });

  it("redraws every second in a lift's last minutes, so its countdown never lies", () => {
    const profile = (offUntil: string | null): ProfileSummary => ({
      name: 'prod',
      provider: 'exec',
      state: 'idle',
      expiresAt: null,
      lastError: null,
      guard: { rules: 1, offUntil },
    });
    expect(tickMs([profile(at(1))], now)).toBe(1_000);
    expect(tickMs([profile(at(14))], now)).toBe(15_000);
    expect(tickMs([profile(null)], now)).toBe(15_000);
  });
});

describe('the exec proxy on a profile page', () => {
  it('is offered for any profile that does not go through it yet, whatever its provider', () => {
    expect(offersProxy({ provider: 'oidc' })).toBe(true);
    expect(offersProxy({ provider: 'exec', command: 'gke-gcloud-auth-plugin' })).toBe(true);
    expect(offersProxy({ provider: 'static', tokenCertificate: { token: 'yubikey', label: 'k8s' } })).toBe(true);
    expect(offersProxy({ provider: 'eks', proxy: { port: 47001, server: 'https://k8s:6443' } })).toBe(false);
  });

  it("shows a proxied profile's local port and upstream in its facts", () => {
    const facts = profileFacts('oidc', { proxy: { port: 47001, server: 'https://k8s.example.com:6443' } });
    expect(facts.find((f) => f.label === 'Exec proxy')?.value).toBe(
      'kubectl → https://127.0.0.1:47001 → https://k8s.example.com:6443',
    );
  });
});
