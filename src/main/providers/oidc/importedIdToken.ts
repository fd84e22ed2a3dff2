import type { OidcProfileConfig } from '../../../shared/config/schema.js';
import type { Credential } from '../../../shared/credential.js';
import type { SecretStore } from '../../core/secretStore.js';
import { credentialFromIdToken } from './idTokenCredential.js';

/** Where `kubecred import` puts the ID token a legacy `auth-provider: oidc` user held. */
export const IMPORTED_ID_TOKEN_FIELD = 'id-token';

/** Not served closer than this to its end: a kubectl that got it must still get through. */
const LEAST_LIFE_MS = 60_000;

/**
 * The ID token a legacy kubeconfig held when it was imported (new user review 4, N3): served
 * while it lives, so an import costs neither a login nor a refresh and the contexts keep working
 * at once. Taken from the store on first read, whatever it holds: an ID token Kubecred gets
 * itself lives in broker memory only, and a `kubecred refresh` after this must reach the issuer.
 * Undefined when there is none, or it is not this issuer's and client's, or it is too near its
 * end. Its signature is the API server's to check, as kubectl left it to the server before.
 */
export async function takeImportedIdToken(
  store: SecretStore,
  profile: OidcProfileConfig,
  options: { readonly clockSkewMs: number; readonly nowMs: number },
): Promise<Credential | undefined> {
  const ref = { profile: profile.name, field: IMPORTED_ID_TOKEN_FIELD };
  const idToken = await store.get(ref);
  if (idToken === undefined) return undefined;
  await store.delete(ref);
  const claims = payloadOf(idToken);
  if (!claims || !isFor(claims, profile)) return undefined;
  if (typeof claims.exp !== 'number' || claims.exp * 1000 < options.nowMs + LEAST_LIFE_MS) return undefined;
  try {
    return credentialFromIdToken(idToken, claims, { ...options, profile: profile.name });
  } catch {
    return undefined;
  }
}

function payloadOf(jwt: string): Record<string, unknown> | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Issued by the profile's issuer to its client, as the API server will demand. */
function isFor(claims: Record<string, unknown>, profile: OidcProfileConfig): boolean {
  const trimmed = (url: string) => url.replace(/\/+$/, '');
  if (typeof claims.iss !== 'string' || trimmed(claims.iss) !== trimmed(profile.issuer)) return false;
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  return audience.includes(profile.clientId);
}
