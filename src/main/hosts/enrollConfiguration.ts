import path from 'node:path';
import { loadConfig } from '../config/configLoader.js';
import { addProfile } from '../config/configEditor.js';
import { BrokerError } from '../core/brokerError.js';
import type { Logger } from '../core/logger.js';
import type { EnrollmentConfiguration } from '../enroll/enrollment.js';
import { addContextBeside } from '../kubeconfig/contextBeside.js';
import { contextUpstream } from '../kubeconfig/contextUpstream.js';
import { readKubeconfigs } from '../kubeconfig/kubeconfigUsers.js';
import { installProfile } from '../kubeconfig/installUser.js';
import { turnOnProxy } from '../kubeconfig/proxyToggle.js';
import { freePort } from '../platform/freePort.js';
import type { KubecredPaths } from '../platform/paths.js';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import { nativeShimPath, nodeCliPath } from '../platform/shimLocation.js';

export interface EnrollConfigurationOptions {
  readonly paths: Pick<KubecredPaths, 'configFile' | 'stateDir' | 'kubeconfigBackups'>;
  /** The kubeconfig files of whoever enrolls: the terminal's KUBECONFIG, or the broker's. */
  readonly kubeconfigFiles: () => string[];
  /** The exec proxy's local CA: the CLI asks the broker for it, the broker has it. */
  readonly localCa: () => Promise<string>;
  readonly logger: Logger;
  /** What to do when the new context's name is taken: a flag in the terminal, another name in the window. */
  readonly newContextTakenHint?: string;
}

/**
 * The profile, its context and the exec proxy, written the way install and the window write
 * them; the same for `kubecred enroll` and the window's "Use a hardware key".
 */
export function enrollConfiguration({
  paths,
  kubeconfigFiles: files,
  localCa,
  logger,
  newContextTakenHint = 'name another with --new-context <name>',
}: EnrollConfigurationOptions): EnrollmentConfiguration {
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
          newContextTakenHint,
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
          localCa,
          freePort,
          logger,
          now: () => new Date(),
        },
        profile,
      );
      return { port: proxy.port, upstream: proxy.upstream };
    },
  };
}
