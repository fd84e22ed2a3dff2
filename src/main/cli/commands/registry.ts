import { printBrokerError } from '../printError.js';
import { readSecretInput } from '../readSecretInput.js';
import { UsageError, type CliContext, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';
import { readStdin, runDockerCredentialHelper } from './dockerCredential.js';

/**
 * Image registry credentials. `get-credentials` is the kubelet's credential provider plugin
 * (CredentialProviderRequest on stdin, the response on stdout and nothing else there);
 * `docker-credential` is what bin/docker-credential-kubecred runs.
 */
export const registryCommand: Command = {
  name: 'registry',
  usage:
    'kubecred registry get-credentials          (the kubelet credential provider: request on stdin)\n' +
    '       kubecred registry login <server> <username>   (password on stdin)\n' +
    '       kubecred registry docker-credential get|store|erase|list',
  async run(args, context) {
    const [sub, ...rest] = args;
    if (sub === 'get-credentials' && rest.length === 0) return getCredentials(context);
    if (sub === 'docker-credential') return runDockerCredentialHelper(rest, context);
    if (sub === 'login' && rest.length === 2) return login(rest[0] ?? '', rest[1] ?? '', context);
    if (sub === 'get-credentials' || sub === 'login')
      throw new UsageError(
        sub === 'login'
          ? 'expected: registry login <server> <username>, with the password on stdin'
          : 'get-credentials takes no arguments: the kubelet writes the request on stdin',
      );
    throw new UsageError(sub ? `unknown subcommand "${sub}"` : 'expected a subcommand');
  },
};

async function getCredentials(context: CliContext): Promise<number> {
  const { io } = context;
  const request = await readStdin(io.stdin);
  const answer = await requestStartingBroker(context, (client) =>
    client.call('credentialProvider', { body: { request, parentPid: process.ppid } }),
  );
  if (answer.status !== 200) return printBrokerError(answer, io.stderr);
  io.stdout.write(answer.body);
  return 0;
}

/** What `docker login` would store, for a user without docker: the password never touches argv. */
async function login(server: string, username: string, context: CliContext): Promise<number> {
  const { io } = context;
  const secret = await readSecretInput(io, `password for ${username} at ${server}`);
  if (!secret) {
    io.stderr.write(
      'kubecred: no password on stdin. Pipe it in, e.g. kubecred registry login registry.example.com me < password.txt\n',
    );
    return 1;
  }
  const input = JSON.stringify({ ServerURL: server, Username: username, Secret: secret });
  const answer = await requestStartingBroker(context, (client) => client.call('dockerStore', { body: { input } }));
  if (answer.status !== 200) return printBrokerError(answer, io.stderr);
  const { registry } = JSON.parse(answer.body) as { registry: string };
  io.stderr.write(`kubecred: stored the login for ${server} under registry "${registry}"\n`);
  return 0;
}
