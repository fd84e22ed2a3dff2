import type { BrokerServices } from '../broker/brokerServices.js';
import type { BrokerHandler } from './route.js';
import { replyJson, send } from './reply.js';
import { verifiedParentPid, type CallerWitnesses } from './verifiedCaller.js';

type RegistryOperation = 'credentialProvider' | 'dockerGet' | 'dockerStore' | 'dockerErase' | 'dockerList';

/** The kubelet credential provider and the docker credential helper (docs/registry.md). */
export function registryHandlers(
  registries: BrokerServices['registries'],
  witnesses: CallerWitnesses,
): { readonly [O in RegistryOperation]: BrokerHandler<O> } {
  return {
    credentialProvider: async ({ body, request, response }) =>
      // Already the JSON the kubelet reads.
      send(
        response,
        200,
        'application/json',
        await registries.providerResponse(body.request, {
          client: 'kubelet',
          parentPid: await verifiedParentPid(request, response, body.parentPid, witnesses),
        }),
      ),
    dockerGet: async ({ body, request, response }) =>
      replyJson(response, 200, {
        credentials: await registries.dockerGet(body.serverUrl, {
          client: 'docker-helper',
          parentPid: await verifiedParentPid(request, response, body.parentPid, witnesses),
        }),
      }),
    dockerStore: async ({ body, response }) => replyJson(response, 200, await registries.dockerStore(body.input)),
    dockerErase: async ({ body, response }) => replyJson(response, 200, await registries.dockerErase(body.serverUrl)),
    dockerList: async ({ response }) => replyJson(response, 200, await registries.dockerList()),
  };
}
