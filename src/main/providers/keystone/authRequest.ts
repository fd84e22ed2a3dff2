import type { DomainRef, KeystoneScope, KeystoneSettings } from './keystoneSettings.js';

type UserRef = { id: string } | { name: string; domain: DomainRef };

function userRef(settings: KeystoneSettings): UserRef | undefined {
  if (settings.userId !== undefined) return { id: settings.userId };
  if (settings.username !== undefined && settings.userDomain !== undefined)
    return { name: settings.username, domain: settings.userDomain };
  return undefined;
}

function scopeBody(scope: KeystoneScope): Record<string, unknown> | undefined {
  switch (scope.kind) {
    case 'project':
      return 'id' in scope ? { project: { id: scope.id } } : { project: { name: scope.name, domain: scope.domain } };
    case 'domain':
      return { domain: scope.domain };
    default:
      return undefined;
  }
}

/**
 * The body of POST /v3/auth/tokens (Identity API v3). The caller has checked that the
 * settings name a user (or an application credential) completely.
 */
export function authRequestBody(settings: KeystoneSettings, secret: string): { auth: Record<string, unknown> } {
  const user = userRef(settings);
  if (settings.method === 'application-credential') {
    // Keystone refuses a scope here: the credential is bound to its project.
    const credential =
      settings.applicationCredentialId !== undefined
        ? { id: settings.applicationCredentialId, secret }
        : { name: settings.applicationCredentialName, secret, user };
    return { auth: { identity: { methods: ['application_credential'], application_credential: credential } } };
  }
  const scope = scopeBody(settings.scope);
  return {
    auth: {
      identity: { methods: ['password'], password: { user: { ...user, password: secret } } },
      ...(scope ? { scope } : {}),
    },
  };
}
