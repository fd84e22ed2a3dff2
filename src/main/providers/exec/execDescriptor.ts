import type { ProviderDescriptor } from '../providerDescriptor.js';
import { ExecProvider } from './execProvider.js';

export const execDescriptor: ProviderDescriptor<'exec'> = {
  kind: 'exec',
  // The wrapped plugin keeps its own secrets; Kubecred only caches what it prints.
  secretFields: [],
  create: (profile, { clock, showMessage, network }) =>
    new ExecProvider(
      profile,
      clock,
      (text, until) => showMessage(profile.name, text, until),
      () => network.proxies.variables,
    ),
};
