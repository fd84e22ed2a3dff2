import { operationRoute, type Route } from './route.js';
import { replyJson } from './reply.js';

/**
 * POST /v1/stop: the broker answers, then stops as on SIGTERM (the socket, lock and secret go).
 * `kubecred stop` and `restart` use it; the next kubectl call starts a fresh broker.
 */
export function stopRoute(requestStop: () => void): Route {
  return operationRoute('stop', async ({ response }) => {
    replyJson(response, 202, { pid: process.pid, stopping: true });
    response.once('finish', requestStop);
  });
}
