import type { ProviderDescriptor } from '../providerDescriptor.js';
import { KeystoneProvider } from './keystoneProvider.js';
import { SECRET_FIELD } from './loginForm.js';

export const keystoneDescriptor: ProviderDescriptor<'keystone'> = {
  kind: 'keystone',
  secretFields: Object.values(SECRET_FIELD),
  create: (profile, { storeFor, askingUi, clock, typedSecrets, network }) =>
    new KeystoneProvider(profile, { store: () => storeFor(profile.name), ui: askingUi, clock, typedSecrets, network }),
};
