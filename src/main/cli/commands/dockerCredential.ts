import { parseErrorBody, renderErrorLine } from '../../../shared/api/errors.js';
import {
  CREDENTIALS_NOT_FOUND,
  DOCKER_HELPER_ACTIONS,
  type DockerGetAnswer,
} from '../../../shared/registry/dockerCredentialHelper.js';
import type { BrokerAnswer, BrokerClient } from '../../client/brokerClient.js';
import type { CliContext } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';

const USAGE =
  'docker-credential-kubecred get|store|erase|list   (input on stdin, as docker, podman and skopeo send it)';

/**
 * The docker credential helper protocol. Clients read the helper's stdout, on failure too
 * (they show it as the error), so every message goes there; "not found" is the exact text
 * they look for, and makes them carry on without credentials.
 */
export async function runDockerCredentialHelper(args: readonly string[], context: CliContext): Promise<number> {
  const { io } = context;
  const [action, ...rest] = args;
  if (action === 'version') {
    io.stdout.write('docker-credential-kubecred (Kubecred)\n');
    return 0;
  }
  if (!action || rest.length > 0 || !(DOCKER_HELPER_ACTIONS as readonly string[]).includes(action)) {
    io.stdout.write(
      `docker-credential-kubecred: unknown action ${JSON.stringify(args.join(' ')).slice(0, 100)}; usage: ${USAGE}\n`,
    );
    return 1;
  }
  const input = action === 'list' ? '' : await readStdin(io.stdin);
  const parentPid = process.ppid;
  const send = (call: (client: BrokerClient) => Promise<BrokerAnswer>) => requestStartingBroker(context, call);
  if (action === 'get') {
    const answer = await send((client) => client.call('dockerGet', { body: { serverUrl: input.trim(), parentPid } }));
    if (answer.status !== 200) return fail(answer, io.stdout);
    const { credentials } = JSON.parse(answer.body) as DockerGetAnswer;
    io.stdout.write(credentials ? `${JSON.stringify(credentials)}\n` : `${CREDENTIALS_NOT_FOUND}\n`);
    return credentials ? 0 : 1;
  }
  const answer =
    action === 'store'
      ? await send((client) => client.call('dockerStore', { body: { input } }))
      : action === 'erase'
        ? await send((client) => client.call('dockerErase', { body: { serverUrl: input.trim(), parentPid } }))
        : await send((client) => client.call('dockerList'));
  if (answer.status !== 200) return fail(answer, io.stdout);
  if (action === 'list') io.stdout.write(answer.body);
  return 0;
}

function fail(answer: BrokerAnswer, out: NodeJS.WritableStream): number {
  const parsed = parseErrorBody(answer.body);
  out.write(parsed ? renderErrorLine(parsed.error) : `kubecred: the broker answered ${answer.status}\n`);
  return 1;
}

/** All of stdin as text: both protocols write one small document and close it. */
export async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
