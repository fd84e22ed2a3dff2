import path from 'node:path';
import { loadConfig } from '../config/configLoader.js';
import { addProfile } from '../config/configEditor.js';
import { BrokerError } from '../core/brokerError.js';
import { systemClock } from '../core/clock.js';
import { silentLogger } from '../core/logger.js';
import type { SecretPromptPort } from '../core/uiPorts.js';
import type { EnrollmentConfiguration, EnrollmentToken } from '../enroll/enrollment.js';
import { addContextBeside } from '../kubeconfig/contextBeside.js';
import { contextUpstream } from '../kubeconfig/contextUpstream.js';
import { readKubeconfigs } from '../kubeconfig/kubeconfigUsers.js';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import { installProfile } from '../kubeconfig/installUser.js';
import { kubeconfigFiles } from '../kubeconfig/kubeconfigFiles.js';
import { turnOnProxy } from '../kubeconfig/proxyToggle.js';
import { freePort } from '../platform/freePort.js';
import { currentPlatformEnv } from '../platform/paths.js';
import { nativeShimPath, nodeCliPath } from '../platform/shimLocation.js';
import { createPkcs11Service, type Pkcs11Service } from '../secrets/pkcs11/pkcs11Service.js';
import type { CliContext } from './io.js';
import { readSecretInput } from './readSecretInput.js';
import { printBrokerError } from './printError.js';
import { requestStartingBroker } from './withBroker.js';

/**
 * The token as `kubecred enroll` reaches it: in this process, its PIN asked in the terminal
 * once and kept in memory for the command (and handed to the broker at the end, so the first
 * kubectl through the new identity does not ask again).
 */
export function terminalToken(context: CliContext, tokens: Parameters<typeof createPkcs11Service>[0]['tokens']) {
  let pinTyped: { token: string; pin: string } | undefined;
  const ui: SecretPromptPort = {
    async askPin(request) {
      const pin = await readSecretInput(context.io, `PIN for token ${request.token} (${request.tokenLabel})`);
      if (!pin) return null;
      pinTyped = { token: request.token, pin };
      return pin;
    },
    pinRefused(_request, why) {
      pinTyped = undefined;
      context.io.stderr.write(`kubecred: ${why.message}${why.hint ? `\n  ${why.hint}` : ''}\n`);
    },
    askPassphrase: async () => null,
  };
  const service: Pkcs11Service = createPkcs11Service({ tokens, ui, clock: systemClock });
  const token: EnrollmentToken = service;
  return { token, service, pinTyped: () => pinTyped };
}

/** The profile, its context and the exec proxy, written the way install and the window write them. */
export function cliConfiguration(context: CliContext): EnrollmentConfiguration {
  const { paths, io } = context;
  const files = () => kubeconfigFiles({ ...currentPlatformEnv(), env: io.env });
  const shim = nativeShimPath() ?? nodeCliPath();
  return {
    async config() {
      const loaded = await loadConfig(paths.configFile);
      if (!loaded.ok)
        throw new BrokerError(
          'config-invalid',
          `config.yaml cannot be read: ${loaded.error}`,
          'kubecred doctor says what is wrong',
        );
      return loaded.config;
    },
    async preflight({ fromContext, newContext }) {
      const readings = await readKubeconfigs(files(), { read: readTextWithMode });
      const contexts = readings.flatMap((reading) => (reading.state === 'read' ? reading.contexts : []));
      if (!contexts.some((c) => c.name === fromContext))
        throw new BrokerError(
          'bad-request',
          `no context "${fromContext}" in ${files().join(', ')}`,
          'kubectl config get-contexts lists them; enroll from one that reaches the cluster',
        );
      if (contexts.some((c) => c.name === newContext))
        throw new BrokerError(
          'bad-request',
          `there is a context "${newContext}" already, and enroll makes a new one for the new identity`,
          'name another with --new-context <name>',
        );
      const upstream = contextUpstream(readings, fromContext);
      if (!upstream?.server.startsWith('https://'))
        throw new BrokerError(
          'bad-request',
          `the cluster of context "${fromContext}" is ${upstream?.server ?? 'missing'}, not https://`,
          'the exec proxy authenticates with TLS: enroll from a context whose cluster is reached over https',
        );
    },
    async configureNew({ profile, token, label, fromContext, newContext }) {
      await addProfile(paths.configFile, { name: profile, provider: 'static', tokenCertificate: { token, label } });
      const user = `kubecred-${profile}`;
      await addContextBeside({
        files: files(),
        like: fromContext,
        name: newContext,
        user,
        backupDir: paths.kubeconfigBackups,
        now: new Date(),
      });
      await installProfile({
        files: files(),
        profile,
        context: newContext,
        command: shim,
        backupDir: paths.kubeconfigBackups,
        now: new Date(),
      });
      const proxy = await turnOnProxy(
        {
          configFile: paths.configFile,
          caDir: path.join(paths.stateDir, 'proxy-ca'),
          kubeconfigFiles: files,
          backupDir: paths.kubeconfigBackups,
          shim,
          localCa: () => brokerLocalCa(context),
          freePort,
          logger: silentLogger,
          now: () => new Date(),
        },
        profile,
      );
      return { port: proxy.port, upstream: proxy.upstream };
    },
  };
}

async function brokerLocalCa(context: CliContext): Promise<string> {
  const answer = await requestStartingBroker(context, (client) => client.call('proxyCa'));
  if (answer.status !== 200) {
    printBrokerError(answer, context.io.stderr);
    throw new BrokerError(
      'broker-unavailable',
      "the broker did not give the exec proxy's local CA",
      'kubecred status says whether it runs',
    );
  }
  return (JSON.parse(answer.body) as { certificatePem: string }).certificatePem;
}
