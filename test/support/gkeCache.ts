// Seeds the token cache of gke-gcloud-auth-plugin (Debian package
// google-cloud-cli-gke-gcloud-auth-plugin, /usr/bin/gke-gcloud-auth-plugin) so that it
// answers from the cache: no gcloud run, no network. Used as the "Go plugin with a file
// cache" baseline in benchmarks.
//
// How the plugin decides (cmd/gke-gcloud-auth-plugin/cred.go in kubernetes/cloud-provider-gcp,
// checked against the installed v1.30 binary):
// - Cache file: `gke_gcloud_auth_plugin_cache` in the directory of the kubeconfig that
//   clientcmd's default path options pick: $KUBECONFIG (its only entry, else the first
//   entry that exists, else the last), else $HOME/.kube/config. kubectl's --kubeconfig
//   flag is NOT seen by the plugin: set KUBECONFIG instead.
// - Format: JSON {"current_context", "access_token", "token_expiry" (RFC 3339), "extra_args"}.
// - Used only if: access_token non-empty; now < token_expiry - 10 s; current_context equals
//   the current-context of the (merged) kubeconfig from $KUBECONFIG / ~/.kube/config;
//   extra_args equals the plugin's own flags joined by spaces, in the order
//   --project=P --account=A --impersonate-service-account=S (gcloud spelling; empty when
//   the plugin gets none of --project/--account/--impersonate_service_account);
//   and CLOUDSDK_AUTH_ACCESS_TOKEN is unset (it turns the cache off).
// - Otherwise it runs `gcloud config config-helper --format=json` (and rewrites the cache).
// - It ignores KUBERNETES_EXEC_INFO and always prints apiVersion
//   client.authentication.k8s.io/v1beta1, so the kubeconfig must ask for v1beta1.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const GKE_CACHE_FILE_NAME = 'gke_gcloud_auth_plugin_cache';

export interface SeedGkeCacheOptions {
  /**
   * Directory of the kubeconfig the plugin will load; the run env sets
   * KUBECONFIG=<dir>/<kubeconfigName>. Give exactly one of dir and home.
   */
  dir?: string;
  /** A home directory instead: cache in <home>/.kube/, run env sets HOME and unsets KUBECONFIG. */
  home?: string;
  /** File name of the kubeconfig inside dir (default 'config'). */
  kubeconfigName?: string;
  /** Must equal the current-context of the kubeconfig the plugin loads. */
  currentContext: string;
  token: string;
  /** The plugin uses the cache only while now < expiry - 10 s. */
  expiry: Date;
  /** Plugin flags that become part of the cache key. */
  project?: string;
  account?: string;
  impersonateServiceAccount?: string;
}

export interface GkeCachedPlugin {
  cacheFile: string;
  /** The kubeconfig path the plugin will load (write your kubeconfig there). */
  kubeconfig: string;
  /** Absolute path of gke-gcloud-auth-plugin. */
  command: string;
  /** Flags matching the seeded extra_args. */
  args: string[];
  /** Merge over process.env; undefined means "remove this variable". */
  env: Record<string, string | undefined>;
}

/** Where gke-gcloud-auth-plugin is: /usr/bin, else on PATH; undefined when absent. */
export function findGkePlugin(): string | undefined {
  const dirs = ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)];
  for (const d of dirs) {
    const p = join(d, 'gke-gcloud-auth-plugin');
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Writes the cache file and returns how to run the plugin so it answers from it. */
export function seedGkeCache(opts: SeedGkeCacheOptions): GkeCachedPlugin {
  if ((opts.dir === undefined) === (opts.home === undefined)) {
    throw new Error('seedGkeCache: give exactly one of dir and home');
  }
  const command = findGkePlugin();
  if (!command) throw new Error('gke-gcloud-auth-plugin not found (apt: google-cloud-cli-gke-gcloud-auth-plugin)');

  const kubeDir = opts.dir ?? join(opts.home as string, '.kube');
  const kubeconfig = join(kubeDir, opts.dir !== undefined ? (opts.kubeconfigName ?? 'config') : 'config');
  mkdirSync(kubeDir, { recursive: true });

  const args: string[] = [];
  const extraArgs: string[] = [];
  if (opts.project) {
    args.push(`--project=${opts.project}`);
    extraArgs.push(`--project=${opts.project}`);
  }
  if (opts.account) {
    args.push(`--account=${opts.account}`);
    extraArgs.push(`--account=${opts.account}`);
  }
  if (opts.impersonateServiceAccount) {
    args.push(`--impersonate_service_account=${opts.impersonateServiceAccount}`);
    extraArgs.push(`--impersonate-service-account=${opts.impersonateServiceAccount}`);
  }

  const cacheFile = join(kubeDir, GKE_CACHE_FILE_NAME);
  const body = {
    current_context: opts.currentContext,
    access_token: opts.token,
    token_expiry: opts.expiry.toISOString(),
    extra_args: extraArgs.join(' '),
  };
  writeFileSync(cacheFile, JSON.stringify(body, null, 4), { mode: 0o600 });
  chmodSync(cacheFile, 0o600);

  const env: Record<string, string | undefined> =
    opts.dir !== undefined ? { KUBECONFIG: kubeconfig } : { HOME: opts.home, KUBECONFIG: undefined };
  env.CLOUDSDK_AUTH_ACCESS_TOKEN = undefined;
  return { cacheFile, kubeconfig, command, args, env };
}

/**
 * The `user.exec` block that `gcloud container clusters get-credentials` writes, for a
 * kubeconfig whose user runs the plugin.
 */
export function gkeExecBlock(plugin: Pick<GkeCachedPlugin, 'command' | 'args'>): Record<string, unknown> {
  return {
    apiVersion: 'client.authentication.k8s.io/v1beta1',
    command: plugin.command,
    ...(plugin.args.length > 0 ? { args: plugin.args } : {}),
    installHint: 'Install gke-gcloud-auth-plugin for use with kubectl',
    provideClusterInfo: true,
    interactiveMode: 'IfAvailable',
  };
}
