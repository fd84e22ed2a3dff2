import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrokerError } from '../core/brokerError.js';
import type { Logger } from '../core/logger.js';
import { readProfile, updateProfile } from '../config/configEditor.js';
import { contextUpstream } from './contextUpstream.js';
import { installProfile } from './installUser.js';
import { readKubeconfigs } from './kubeconfigUsers.js';
import { usesByProfile } from './profileContexts.js';
import { readTextWithMode } from '../platform/readTextWithMode.js';

export interface ProxyToggleDeps {
  readonly configFile: string;
  /** Where a CA the kubeconfig holds inline is written as a file, for proxy.caFile (a CA is no secret). */
  readonly caDir: string;
  /** kubectl's files in precedence order. */
  kubeconfigFiles(): readonly string[];
  readonly backupDir: string;
  /** The shim a kubeconfig runs. */
  readonly shim: string;
  /** The local CA kubectl trusts for the listeners (PEM). */
  localCa(): Promise<string>;
  /** A loopback port free now; it is kept in config.yaml from then on. */
  freePort(): Promise<number>;
  readonly logger: Logger;
  readonly now: () => Date;
}

export interface ProxyTurnedOn {
  readonly port: number;
  readonly upstream: string;
  readonly contexts: string[];
}

/**
 * Turns on the exec proxy for a profile, from its kubeconfig as it is: with a key on a token,
 * the proxy signs with it; otherwise the profile's own credential goes upstream from the proxy
 * and kubectl holds only a certificate for the listener. From the kubeconfig:
 * the upstream server, CA and TLS name come from the cluster of the first context that uses the
 * profile, a free port is chosen and kept in config.yaml, and every context of the profile is
 * pointed at the listener (as `kubecred install` does). Refuses, with what to do, anything else.
 */
export async function turnOnProxy(deps: ProxyToggleDeps, profile: string): Promise<ProxyTurnedOn> {
  const config = await readProfile(deps.configFile, profile);
  if (config.proxy !== undefined)
    throw new BrokerError('bad-request', `profile "${profile}" goes through the exec proxy already`, 'nothing to do');
  const readings = await readKubeconfigs(deps.kubeconfigFiles(), { read: readTextWithMode });
  const contexts = usesByProfile(readings).get(profile)?.contexts ?? [];
  const [first] = contexts;
  if (first === undefined)
    throw new BrokerError(
      'bad-request',
      `no context of your kubeconfig uses profile "${profile}", so there is no cluster to put the proxy in front of`,
      `run: kubecred install --profile ${profile} --context <context>, then turn the proxy on`,
    );
  const upstream = contextUpstream(readings, first);
  if (!upstream)
    throw new BrokerError(
      'bad-request',
      `context "${first}" names no cluster with a server`,
      'check the context and its cluster in your kubeconfig',
    );
  if (!upstream.server.startsWith('https://'))
    throw new BrokerError(
      'bad-request',
      `the cluster of context "${first}" is ${upstream.server}, not https://`,
      'the exec proxy authenticates with TLS: the cluster must be reached over https',
    );
  let caFile = upstream.caFile;
  if (!caFile && upstream.caPem) {
    await mkdir(deps.caDir, { recursive: true, mode: 0o700 });
    caFile = path.join(deps.caDir, `${profile}.pem`);
    await writeFile(caFile, upstream.caPem, { mode: 0o644 });
  }
  const port = await deps.freePort();
  await updateProfile(deps.configFile, profile, {
    proxy: {
      port,
      server: upstream.server,
      ...(caFile ? { caFile } : {}),
      ...(upstream.tlsServerName ? { tlsServerName: upstream.tlsServerName } : {}),
    },
  });
  const listener = { server: `https://127.0.0.1:${port}`, caPem: await deps.localCa() };
  for (const context of contexts)
    await installProfile({
      files: deps.kubeconfigFiles(),
      profile,
      context,
      command: deps.shim,
      proxy: listener,
      backupDir: deps.backupDir,
      now: deps.now(),
    });
  deps.logger.info('exec proxy turned on', { profile, port, contexts: contexts.length });
  return { port, upstream: upstream.server, contexts };
}
