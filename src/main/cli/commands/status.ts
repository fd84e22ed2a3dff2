import { statusSchema, type ProfileSummary, type RegistrySummary } from '../../../shared/api/status.js';
import {
  RESTART_FROM_THIS_SHELL,
  describeDifference,
  differingVariables,
  secretSourceEnvironment,
} from '../../../shared/api/secretSourceVariables.js';
import { PROVIDER_FACTS } from '../../../shared/config/providerFacts.js';
import { certificateRenewal, guardWords, proxyWords, waitsForSignIn } from '../../../shared/api/profileWords.js';
import { formatRemaining } from '../../../shared/duration.js';
import { summarizeRegistry } from '../../../shared/api/registrySummary.js';
import { loadConfig } from '../../config/configLoader.js';
import { BrokerClient, BrokerUnreachableError } from '../../client/brokerClient.js';
import type { Command, CliContext } from '../io.js';
import { chosenProxies } from '../../platform/configuredProxies.js';
import { renderRoutes } from '../profileRoutes.js';
import { networkWords, profileNetworkSummary } from '../../providers/profileNetworkSummary.js';
import { parseOutputFlag } from '../outputFlag.js';

export const statusCommand: Command = {
  name: 'status',
  usage: 'kubecred status [-o json]',
  async run(args, context) {
    const output = parseOutputFlag(args);
    const report = await gatherStatus(context);
    if (output === 'json') {
      context.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return exitCodeOfReport(report);
    }
    const { io } = context;
    io.stdout.write(
      report.running
        ? `broker: running (pid ${report.pid}, version ${report.version})\n`
        : 'broker: not running (kubectl starts it on first use, or run: kubecred daemon)\n',
    );
    io.stdout.write(`socket: ${report.socket}\nconfig: ${report.configPath}\n`);
    if (report.configError) io.stdout.write(`config problem: ${report.configError.split('\n').join('\n  ')}\n`);
    const differing = report.running
      ? differingVariables(secretSourceEnvironment(context.io.env), report.secretSources)
      : [];
    if (report.running && differing.length > 0)
      io.stdout.write(
        `environment problem: ${describeDifference(report.pid, differing)}, so it may see another keychain or other tokens; ${RESTART_FROM_THIS_SHELL}\n`,
      );
    if (report.keychainError)
      io.stdout.write(
        `keychain problem (the broker's): ${report.keychainError}; restart it from a shell where the keychain works: kubecred restart\n`,
      );
    io.stdout.write(renderProfiles(report.profiles, Date.now(), report.configError !== null));
    const loaded = await loadConfig(context.paths.configFile).catch(() => undefined);
    const network = loaded?.ok ? loaded.config.network : undefined;
    io.stdout.write(renderRoutes(report.profiles, chosenProxies(network, io.env), report.running ? 'broker' : 'shell'));
    if (report.registries.length > 0) io.stdout.write(`\n${renderRegistries(report.registries)}`);
    return exitCodeOfReport(report);
  },
};

export async function gatherStatus({ paths, io }: CliContext) {
  try {
    const answer = await new BrokerClient(paths).call('status');
    if (answer.status !== 200) throw new Error(`the broker answered ${answer.status}: ${answer.body.trim()}`);
    return { running: true as const, ...statusSchema.parse(JSON.parse(answer.body)) };
  } catch (error) {
    if (!(error instanceof BrokerUnreachableError)) throw error;
  }
  const loaded = await loadConfig(paths.configFile);
  // No broker to ask: the routes a broker started from this shell would take.
  const shellWords = networkWords(chosenProxies(loaded.ok ? loaded.config.network : undefined, io.env), io.env);
  const profiles: ProfileSummary[] = loaded.ok
    ? loaded.config.profiles.map((p) => ({
        name: p.name,
        provider: p.provider,
        state: 'idle',
        expiresAt: null,
        lastError: null,
        silentRefresh: PROVIDER_FACTS[p.provider].renewsSilently,
        ...profileNetworkSummary(p, shellWords),
      }))
    : [];
  const registries: RegistrySummary[] = loaded.ok ? (loaded.config.registries ?? []).map(summarizeRegistry) : [];
  return {
    running: false as const,
    pid: null,
    version: null,
    home: paths.home,
    socket: paths.socket,
    configPath: paths.configFile,
    configError: loaded.ok ? null : loaded.error,
    keychainError: null,
    secretSources: {},
    profiles,
    registries,
  };
}

const LOGIN_TEXT: Record<RegistrySummary['login'], string> = {
  command: 'passwordCommand',
  store: 'secret store (docker login, kubecred registry login)',
};

export function renderRegistries(registries: readonly RegistrySummary[]): string {
  return renderTable(
    ['REGISTRY', 'MATCHES', 'LOGIN', 'USER'],
    registries.map((r) => [r.name, r.matchImages.join(','), LOGIN_TEXT[r.login], r.username ?? '']),
  );
}

/**
 * A config.yaml with problems fails the command (1, as every error but a usage error does), so
 * a script or CI step that checks the file notices; a running broker still serves the last good one.
 */
export function exitCodeOfReport(report: { configError: string | null }): number {
  return report.configError === null ? 0 : 1;
}

/**
 * The profiles as a table. With no profiles to show because config.yaml has problems, it says to
 * fix those lines: "none yet … import" would invite importing on top of a file only mistyped.
 */
export function renderProfiles(profiles: readonly ProfileSummary[], now: number, configHasProblems = false): string {
  if (profiles.length === 0 && configHasProblems)
    return 'profiles: none readable while config.yaml has the problems above: fix those lines, then run this again\n';
  if (profiles.length === 0)
    return "profiles: none yet: move a kubeconfig's credentials in with `kubecred import`, or add one with `kubecred profile add <name>`\n";
  const rows = profiles.map((p) => [
    p.name,
    p.provider,
    waitsForSignIn(p) ? 'signing-in' : p.tokenMissing ? 'no-token' : p.secretMissing ? 'no-secret' : p.state,
    p.account ?? '-',
    p.expiresAt ? formatRemaining(Date.parse(p.expiresAt) - now) : '-',
    p.waitsOn ?? p.lastError ?? '',
  ]);
  const renewals = profiles.flatMap((p) => {
    const renewal = certificateRenewal(p, now);
    const guard = guardWords(p, now);
    const proxy = proxyWords(p) && `${proxyWords(p)}${guard ? `, ${guard}` : ''}`;
    return [renewal, proxy].flatMap((line) => (line ? [`${p.name}: ${line}\n`] : []));
  });
  return (
    renderTable(['PROFILE', 'PROVIDER', 'STATE', 'SIGNED IN AS', 'EXPIRES IN', 'LAST ERROR'], rows) + renewals.join('')
  );
}

function renderTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return (
    [header, ...rows]
      .map((r) =>
        r
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
