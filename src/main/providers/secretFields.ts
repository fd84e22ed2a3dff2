import type { ProfileConfig } from '../../shared/config/schema.js';
import { EKS_FIELDS } from './eks/eksProvider.js';
import { SECRET_FIELD as KEYSTONE_FIELDS } from './keystone/loginForm.js';
import { CLIENT_SECRET_FIELD } from './oidc/issuerConnection.js';
import { REFRESH_TOKEN_FIELD } from './oidc/oidcProvider.js';
import { STATIC_FIELDS } from './static/staticProvider.js';

/**
 * The secret fields a profile's provider reads, from the providers' own constants: a secret
 * stored under any other name would sit in the keychain unused while kubectl keeps failing.
 */
export function secretFieldsOf(profile: ProfileConfig): readonly string[] {
  switch (profile.provider) {
    case 'static':
      return STATIC_FIELDS;
    case 'oidc':
      return [REFRESH_TOKEN_FIELD, CLIENT_SECRET_FIELD];
    case 'keystone':
      return Object.values(KEYSTONE_FIELDS);
    case 'eks':
      return Object.values(EKS_FIELDS);
    case 'exec':
      return [];
  }
}
