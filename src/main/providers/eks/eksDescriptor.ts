import type { ProviderDescriptor } from '../providerDescriptor.js';
import { EKS_FIELDS, EksProvider } from './eksProvider.js';
import { eksSignsIn } from './eksSignsIn.js';

export const eksDescriptor: ProviderDescriptor<'eks'> = {
  kind: 'eks',
  secretFields: Object.values(EKS_FIELDS),
  create: (profile, { storeFor, clock, awsSessions }) =>
    new EksProvider(profile, { store: () => storeFor(profile.name), clock, sessions: awsSessions }),
  signsIn: (profile, env) => eksSignsIn(profile, env),
};
