import type { ProviderDescriptor } from '../providerDescriptor.js';
import { CLIENT_SECRET_FIELD } from './issuerConnection.js';
import { IMPORTED_ID_TOKEN_FIELD } from './importedIdToken.js';
import { OidcProvider, REFRESH_TOKEN_FIELD } from './oidcProvider.js';

export const oidcDescriptor: ProviderDescriptor<'oidc'> = {
  kind: 'oidc',
  secretFields: [REFRESH_TOKEN_FIELD, CLIENT_SECRET_FIELD, IMPORTED_ID_TOKEN_FIELD],
  create: (profile, { storeFor, loginUi, clock, logger, network }) =>
    new OidcProvider(profile, { store: () => storeFor(profile.name), ui: loginUi, clock, logger, network }),
};
