import path from 'node:path';
import { parseArgs } from 'node:util';
import { turnOnProxy } from '../../kubeconfig/proxyToggle.js';
import { freePort } from '../../platform/freePort.js';
import { silentLogger } from '../../core/logger.js';
import { loadServedConfig } from '../../config/configSource.js';
import { unknownProfileWords } from '../../config/unknownProfile.js';
import { installProfile } from '../../kubeconfig/installUser.js';
import { kubeconfigFiles } from '../../kubeconfig/kubeconfigFiles.js';
import { parseExecApiVersion, type InstallApiVersion } from '../../kubeconfig/kubecredExec.js';
import { currentPlatformEnv } from '../../platform/paths.js';
import { nativeShimPath, nodeCliPath } from '../../platform/shimLocation.js';
import { profileName } from '../../../shared/config/schema.js';
import { UsageError, type Command } from '../io.js';
import { proxyClusterName, type ProxyCluster } from '../../kubeconfig/proxyCluster.js';
import { printBrokerError } from '../printError.js';
import { requestStartingBroker } from '../withBroker.js';

export const installCommand: Command = {
  name: 'install',
  usage:
    "kubecred install --profile <profile> [--context <context>] [--kubeconfig <file>] [--api-version v1|v1beta1] [--replace] [--force] [--proxy]   (--force: point at a profile config.yaml does not have yet; --proxy: turn the exec proxy on for it; a profile with proxy: also points the context's cluster at kubecred-proxy)",
  async run(args, context) {
    const { values } = parseFlags(args);
    if (!values.profile) throw new UsageError('say which profile the user should call: --profile <name>');
    const named = profileName.safeParse(values.profile);
    if (!named.success)
      throw new UsageError(
        `--profile ${JSON.stringify(values.profile)}: ${named.error.issues[0]?.message ?? 'not a profile name'}`,
      );
    const { io, paths } = context;
    // A typo in --profile would point a working user at nothing: refuse before writing a byte.
    // While config.yaml is broken, the broker serves its last good copy: check against that.
    const served = await loadServedConfig(paths.configFile, paths.stateDir);
    const exists = served.config?.profiles.some((p) => p.name === values.profile) === true;
    if (!exists && !values.force) {
      const known = served.config?.profiles.map((p) => p.name) ?? [];
      const broken = served.error
        ? ` (config.yaml is invalid, so the last good copy was checked: ${served.error.split('\n')[0]})`
        : '';
      const { message, hint } = unknownProfileWords(values.profile, paths.configFile, known);
      io.stderr.write(
        `kubecred: there is ${message}${broken}. ${hint.charAt(0).toUpperCase()}${hint.slice(1)}, or pass --force to point the kubeconfig at it now and add it later\n`,
      );
      return 1;
    }
    const profile = served.config?.profiles.find((p) => p.name === values.profile);
    const proxyPort = profile?.proxy?.port;
    const proxy = proxyPort === undefined ? undefined : await localProxyCluster(context, proxyPort);
    if (proxy && 'failed' in proxy) return proxy.failed;
    const result = await installProfile({
      files: kubeconfigFiles({ ...currentPlatformEnv(), env: io.env }, values.kubeconfig),
      profile: values.profile,
      ...(values.context ? { context: values.context } : {}),
      command: nativeShimPath() ?? nodeCliPath(),
      ...(values['api-version'] ? { apiVersion: apiVersionFlag(values['api-version']) } : {}),
      replace: values.replace ?? false,
      ...(proxy ? { proxy } : {}),
      backupDir: paths.kubeconfigBackups,
      now: new Date(),
    });
    io.stderr.write(
      `kubecred: user "${result.user}" of context "${result.context}" in ${result.file} ${result.created ? 'was created and ' : ''}now gets its credentials from profile ${values.profile}\n`,
    );
    if (result.backup) io.stderr.write(`  backup of the file as it was: ${result.backup}\n`);
    if (proxy)
      io.stderr.write(
        `  context "${result.context}" now reaches the cluster through kubecred-proxy at ${proxy.server} (cluster ${proxyClusterName(values.profile)}${result.proxyFile ? ` in ${result.proxyFile.file}` : ''})\n`,
      );
    if (values.proxy && !proxy) {
      if (!exists) {
        io.stderr.write(`kubecred: --proxy needs profile "${values.profile}" in ${paths.configFile} first\n`);
        return 1;
      }
      // As the window's toggle does: the upstream from the context just installed, a free port
      // kept in config.yaml, every context of the profile pointed at the listener.
      const files = kubeconfigFiles({ ...currentPlatformEnv(), env: io.env }, values.kubeconfig);
      let localCa: ProxyCluster | { failed: number } | undefined;
      const on = await turnOnProxy(
        {
          configFile: paths.configFile,
          caDir: path.join(paths.stateDir, 'proxy-ca'),
          kubeconfigFiles: () => files,
          backupDir: paths.kubeconfigBackups,
          shim: nativeShimPath() ?? nodeCliPath(),
          localCa: async () => {
            localCa = await localProxyCluster(context, 0);
            if ('failed' in localCa) throw new Error('the broker did not give the local CA');
            return localCa.caPem;
          },
          freePort,
          logger: silentLogger,
          now: () => new Date(),
        },
        values.profile,
      ).catch((error: unknown) => {
        if (localCa && 'failed' in localCa) return localCa;
        throw error;
      });
      if ('failed' in on) return on.failed;
      io.stderr.write(
        `  profile ${values.profile} now goes through kubecred-proxy at https://127.0.0.1:${on.port} to ${on.upstream} (contexts: ${on.contexts.join(', ')}); the kubeconfig holds no credential of it\n`,
      );
    }
    if (!exists) {
      io.stderr.write(
        `  note: there is no profile "${values.profile}" in ${paths.configFile} yet: add it with kubecred profile add ${values.profile} --provider ...\n`,
      );
    }
    return 0;
  },
};

/** The proxied profile's listener and the local CA, from the broker (which keeps the CA). */
async function localProxyCluster(
  context: Parameters<Command['run']>[1],
  port: number,
): Promise<ProxyCluster | { failed: number }> {
  const answer = await requestStartingBroker(context, (client) => client.call('proxyCa'));
  if (answer.status !== 200) return { failed: printBrokerError(answer, context.io.stderr) };
  return {
    server: `https://127.0.0.1:${port}`,
    caPem: (JSON.parse(answer.body) as { certificatePem: string }).certificatePem,
  };
}

function parseFlags(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        profile: { type: 'string' },
        context: { type: 'string' },
        kubeconfig: { type: 'string' },
        'api-version': { type: 'string' },
        replace: { type: 'boolean' },
        force: { type: 'boolean' },
        proxy: { type: 'boolean' },
      },
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function apiVersionFlag(value: string): InstallApiVersion {
  const version = parseExecApiVersion(value);
  if (!version) throw new UsageError('--api-version is v1 (kubectl 1.22 and later) or v1beta1');
  return version;
}
