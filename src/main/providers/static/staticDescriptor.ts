import type { ProviderDescriptor } from '../providerDescriptor.js';
import { STATIC_FIELDS, StaticProvider } from './staticProvider.js';

export const staticDescriptor: ProviderDescriptor<'static'> = {
  kind: 'static',
  secretFields: STATIC_FIELDS,
  create: (profile, { storeFor, tokenCertificate, proxyCredential }) =>
    new StaticProvider(profile, { storeFor, tokenCertificate, proxyCredential }),
};
