import { access, stat } from 'node:fs/promises';
import type { KubecredConfig } from '../../shared/config/schema.js';
import { systemClock } from '../core/clock.js';
import { loadConfig } from '../config/configLoader.js';
import { loadServedConfig } from '../config/configSource.js';
import { kubeconfigFiles } from '../kubeconfig/kubeconfigFiles.js';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import type { KubecredPaths, PlatformEnv } from '../platform/paths.js';
import { nativeShimPath, nodeCliPath } from '../platform/shimLocation.js';
import { listBackups } from '../kubeconfig/importRecord.js';
import { backupsCheck } from './checks/backupsCheck.js';
import { brokerCheck } from './checks/brokerCheck.js';
import { clockSkewCheck, type IssuerToProbe } from './checks/clockSkewCheck.js';
import { configCheck } from './checks/configCheck.js';
import { keychainCheck } from './checks/keychainCheck.js';
import { kubeconfigExposureCheck } from './checks/kubeconfigExposureCheck.js';
import { kubeconfigProfilesCheck } from './checks/kubeconfigProfilesCheck.js';
import { pluginCommandsCheck } from './checks/pluginCommandsCheck.js';
import { findOnPath } from '../platform/findOnPath.js';
import { kubectlVersionCheck } from './checks/kubectlVersionCheck.js';
import { pkcs11Check } from './checks/pkcs11Check.js';
import { runDirCheck, type FileFacts } from './checks/runDirCheck.js';
import { shimCheck } from './checks/shimCheck.js';
import { proxiedPorts, proxyPortsCheck } from './checks/proxyPortsCheck.js';
import { awsProfilesCheck, awsProfilesInUse } from './checks/awsProfilesCheck.js';
import { readAwsProfilePlan } from '../providers/eks/awsProfilePlan.js';
import { portHolder } from './probes/portHolder.js';
import type { Check } from './finding.js';
import { readKubeconfigs } from '../kubeconfig/kubeconfigUsers.js';
import { probeBroker } from './probes/brokerProbe.js';
import { issuerDate } from './probes/issuerDate.js';
import { kubectlVersion } from './probes/kubectlVersion.js';
import { runProbe } from './probes/probeProcess.js';
import { probeBrokerTokens } from './probes/brokerTokensProbe.js';
import { tlsReach } from './probes/tlsReach.js';
import { networkRouteCheck, networkTargets } from './checks/networkRouteCheck.js';
import { proxyVariablesWords } from '../platform/proxyRouteWords.js';
import { chosenProxies } from '../platform/configuredProxies.js';
import { osTrustStoreAccess, readTrustedRoots } from '../platform/systemTrust.js';
import { silentLogger } from '../core/logger.js';

/** Each probe gets less than the runner's deadline, so its own, more precise message wins. */
export const PROBE_TIMEOUT_MS = 6_000;

export interface DoctorEnvironment extends Pick<PlatformEnv, 'env' | 'homedir' | 'platform' | 'uid'> {
  readonly paths: KubecredPaths;
  readonly arch: string;
}

/** The composition root of doctor: every check, wired to the real file system and probes. */
export async function doctorChecks(e: DoctorEnvironment): Promise<Check[]> {
  const loaded = await loadConfig(e.paths.configFile);
  // While config.yaml is broken a broker serves the last good copy: the tokens and issuers to check are its.
  const config = loaded.ok ? loaded.config : (await loadServedConfig(e.paths.configFile, e.paths.stateDir)).config;
  const kubeconfigs = await readKubeconfigs(kubeconfigFiles(e), { read: readTextWithMode });
  const backupDir = e.paths.kubeconfigBackups;
  const backups = await readKubeconfigs(await listBackups(backupDir).catch(() => []), { read: readTextWithMode });
  // As the broker reads them: config.yaml's network, else this shell's variables (the proxy a
  // broker started from here would take).
  const roots = await readTrustedRoots({ ...osTrustStoreAccess(silentLogger), env: e.env });
  const network = { proxies: chosenProxies(config?.network, e.env), roots };
  const { targets, plugins } = networkTargets(config, network.proxies, e.env);
  return [
    brokerCheck(() => probeBroker(e.paths, e.env)),
    runDirCheck({
      runDir: e.paths.runDir,
      socket: e.paths.socket,
      clientSecret: e.paths.clientSecret,
      uid: e.uid,
      platform: e.platform,
      stat: factsOf,
    }),
    configCheck(e.paths.configFile, loaded, await exists(e.paths.configFile)),
    keychainCheck(usesKeychain(config), () =>
      runProbe(['keychain'], PROBE_TIMEOUT_MS, 'the keychain does not answer: unlock it, or restart its service'),
    ),
    pkcs11Check({
      tokens: config?.tokens ?? [],
      exists,
      probe: (token) =>
        runProbe(
          ['pkcs11', JSON.stringify(token)],
          PROBE_TIMEOUT_MS,
          'the module hangs in C_Initialize: reconnect the token or its reader',
        ),
      brokerSees: () => probeBrokerTokens(e.paths),
    }),
    shimCheck(nativeShimPath(e.platform, e.arch), e.platform, e.arch, nodeCliPath()),
    kubeconfigProfilesCheck({ files: kubeconfigs, config, exists }),
    kubeconfigExposureCheck(kubeconfigs, e.platform),
    pluginCommandsCheck(kubeconfigs, config, (command) => findOnPath(command, e.env, e.platform)),
    backupsCheck(backupDir, backups),
    kubectlVersionCheck(kubeconfigs, () => kubectlVersion(e.env.KUBECTL || 'kubectl', PROBE_TIMEOUT_MS)),
    clockSkewCheck(
      oidcIssuers(config),
      (url, caFile) => issuerDate(url, caFile, PROBE_TIMEOUT_MS, network),
      systemClock,
    ),
    networkRouteCheck(targets, plugins, proxyVariablesWords(network.proxies), (target) =>
      tlsReach(target, target.route, network.roots, PROBE_TIMEOUT_MS),
    ),
    proxyPortsCheck(proxiedPorts(config), (port) => portHolder(port, PROBE_TIMEOUT_MS)),
    awsProfilesCheck(awsProfilesInUse(config), (awsProfile) => readAwsProfilePlan(awsProfile, e.env, e.homedir)),
  ];
}

/** A broken config is probed as if it used the keychain: that is the default store. */
function usesKeychain(config: KubecredConfig | undefined): boolean {
  if (!config || config.secretStore === 'keychain') return true;
  return config.profiles.some((p) => 'secretStore' in p && p.secretStore === 'keychain');
}

export function oidcIssuers(config: KubecredConfig | undefined): IssuerToProbe[] {
  const byIssuer = new Map<string, { issuer: string; caFile?: string; profiles: string[] }>();
  for (const profile of config?.profiles ?? []) {
    if (profile.provider !== 'oidc') continue;
    const key = `${profile.issuer}\n${profile.caFile ?? ''}`;
    const entry = byIssuer.get(key) ?? {
      issuer: profile.issuer,
      ...(profile.caFile ? { caFile: profile.caFile } : {}),
      profiles: [],
    };
    entry.profiles.push(profile.name);
    byIssuer.set(key, entry);
  }
  return [...byIssuer.values()];
}

async function factsOf(file: string): Promise<FileFacts | undefined> {
  try {
    const info = await stat(file);
    return { mode: info.mode, uid: info.uid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
