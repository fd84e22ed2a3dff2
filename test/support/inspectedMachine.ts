import path from 'node:path';
import { startTestBrokerInMounts, type TestBroker } from './broker.js';
import { osBundleWithRoot, startInspectingProxy, type InspectingProxy } from './inspectingProxy.js';
import type { Bind } from './privateMounts.js';

/**
 * Every variable through which a client could be handed trust or a proxy from outside the OS
 * store: the machine that runs the tests sets several bundles, and a case that inherited one
 * could pass without the OS store it means to test. Given as undefined, so each is unset.
 */
export const NOTHING_INHERITED: Readonly<Record<string, undefined>> = Object.fromEntries(
  [
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'NODE_EXTRA_CA_CERTS',
    'AWS_CA_BUNDLE',
    'CURL_CA_BUNDLE',
    'HTTPS_PROXY',
    'https_proxy',
    'HTTP_PROXY',
    'http_proxy',
    'ALL_PROXY',
    'all_proxy',
    'NO_PROXY',
    'no_proxy',
  ].map((name) => [name, undefined]),
);

/**
 * A company machine behind a TLS-inspecting proxy (mitmproxy) whose root the company installed in
 * the OS trust store only: what a broker on it trusts is that store, never a file a test names.
 */
export interface InspectedMachine {
  readonly proxy: InspectingProxy;
  /** The OS bundle with the proxy's root, laid over the machine's for a process tree in private mounts. */
  readonly osBundle: Bind;
  /**
   * A broker as the person's session starts it: HTTPS_PROXY `proxy` or none, the OS store with
   * the proxy's root or as the machine has it, `env`, and nothing inherited besides.
   */
  startBroker(
    home: string,
    options: { proxy: string | undefined; rootInOsStore: boolean; env?: Record<string, string> },
  ): Promise<TestBroker>;
  stop(): Promise<void>;
}

/**
 * The proxy's files under `home`. The names in `hosts` resolve for the proxy alone (to loopback,
 * where the tests' servers listen), so a client reaches them through it or not at all; the proxy
 * trusts `upstreamCaFiles` as a company's proxy trusts the servers' CAs, which no client sees.
 */
export async function startInspectedMachine(
  home: string,
  options: { readonly hosts: readonly string[]; readonly upstreamCaFiles: readonly string[] },
): Promise<InspectedMachine> {
  const proxy = await startInspectingProxy({
    dir: path.join(home, 'mitmproxy'),
    hosts: Object.fromEntries(options.hosts.map((host) => [host, '127.0.0.1'])),
    upstreamCaFiles: options.upstreamCaFiles,
  });
  const osBundle = await osBundleWithRoot(proxy, path.join(home, 'os-bundle-with-proxy-root.crt')).catch(
    async (error: unknown) => {
      await proxy.stop();
      throw error;
    },
  );
  return {
    proxy,
    osBundle,
    startBroker: (brokerHome, { proxy: httpsProxy, rootInOsStore, env = {} }) =>
      startTestBrokerInMounts(brokerHome, rootInOsStore ? [osBundle] : [], {
        ...NOTHING_INHERITED,
        ...env,
        ...(httpsProxy ? { HTTPS_PROXY: httpsProxy } : {}),
      }),
    stop: () => proxy.stop(),
  };
}
