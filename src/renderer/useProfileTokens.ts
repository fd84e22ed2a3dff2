import { useEffect, useState } from 'react';
import type { WebUiState } from '../shared/api/webUiApi.js';
import type { Transport } from './api/transport.js';
import { tokenOf } from './profileBadge.js';

/**
 * Which token holds each profile's secret, for the profiles that keep it on one. config.yaml
 * says so, not the state: asked only when tokens exist, and once per set of profile names.
 */
export function useProfileTokens(
  transport: Transport,
  state: WebUiState | null,
  hasTokens: boolean,
): Readonly<Record<string, string>> {
  const [profileTokens, setProfileTokens] = useState<Readonly<Record<string, string>>>({});
  const names = state?.profiles.map((p) => p.name).join('\n') ?? '';
  useEffect(() => {
    if (!hasTokens || !names) return;
    let live = true;
    void Promise.all(
      names.split('\n').map((name) =>
        transport.profileConfig(name).then(
          (c) => [name, tokenOf(c.profile)] as const,
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
  return profileTokens;
}
