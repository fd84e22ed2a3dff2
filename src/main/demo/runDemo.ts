import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { UrlOpener } from '../core/ports.js';
import { InteractionBoard } from '../ui/interactionBoard.js';
import { jsonLinesLogger } from '../core/logger.js';
import { BrokerClient } from '../client/brokerClient.js';
import { startBroker } from '../hosts/startBroker.js';
import { privateBrowserOpener } from '../platform/privateLinkOpener.js';
import type { KubecredPaths } from '../platform/paths.js';
import { nativeShimPath, nodeCliPath } from '../platform/shimLocation.js';
import { demoConfig } from './demoConfig.js';
import { demoKubeconfig } from './demoKubeconfig.js';
import { startDemoServices } from './demoServices.js';
import { divertIssuerNotices } from './issuerNotices.js';
import type { BrowserDriver } from './scriptedBrowser.js';
import { untilStopSignal } from '../platform/stopSignals.js';

export interface DemoOptions {
  readonly paths: KubecredPaths;
  /** Where the demo tells its steps (the CLI's stderr). */
  readonly io: { readonly stderr: NodeJS.WritableStream };
  /** Run the kubectl checks (a scripted chromium does the OIDC login) and stop, instead of serving until Ctrl-C. */
  readonly once: boolean;
  /** The demo's home is its own temp dir: removed when the demo ends, keychain item included. */
  readonly removeHome: boolean;
}

/**
 * A complete Kubecred on this machine: a broker; a local HTTPS Kubernetes API stand-in that
 * accepts one bearer token or an ID token from a local OIDC issuer; the token in the OS
 * keychain; and a kubeconfig that reaches the API only through Kubecred.
 */
export async function runDemo({ paths, io, once, removeHome }: DemoOptions): Promise<number> {
  // Listening from the start: Ctrl-C while the demo starts must still end in its cleanup.
  // (`--once` keeps the default: Ctrl-C ends it at once.)
  const stopped = once ? undefined : untilStopSignal();
  const say = (line: string) => io.stderr.write(`${line}\n`);
  await mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  const log = createWriteStream(paths.daemonLog, { flags: 'a', mode: 0o600 });
  const restoreConsole = divertIssuerNotices((line) =>
    log.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', message: line })}\n`),
  );
  const token = `demo-${randomBytes(16).toString('hex')}`;
  const services = await startDemoServices(paths.home, token);
  const { api, issuer } = services;
  await writeFile(paths.configFile, demoConfig(issuer));
  const board = new InteractionBoard();
  const shown = new Set<string>();
  board.onChange(() => {
    for (const prompt of board.list().filter((p) => !shown.has(JSON.stringify(p)) && shown.add(JSON.stringify(p))))
      say(
        prompt.kind === 'browser'
          ? `\n[login] ${prompt.profile}: continue in the browser: ${prompt.url}`
          : prompt.kind === 'device'
            ? `\n[login] ${prompt.profile}: open ${prompt.verificationUri} and enter ${prompt.userCode}`
            : `\n[login] ${prompt.profile}: ${prompt.text}`,
      );
  });
  let scripted: BrowserDriver | undefined;
  // Sign-ins still finishing when the checks are done: the browser closes only after them, so
  // a passing run does not end with the error of a page it closed itself.
  const signIns: Promise<void>[] = [];
  const opener: UrlOpener = once
    ? {
        open: async (url) =>
          scriptedSignIn(
            url,
            async () => (scripted ??= await (await import('./scriptedBrowser.js')).startBrowser()),
            say,
            (signIn) => signIns.push(signIn),
          ),
      }
    : privateBrowserOpener(paths);
  const server = await startBroker(
    paths,
    jsonLinesLogger((line) => log.write(line)),
    // The broker's own UI, as `kubecred daemon` has it: `kubecred ui` opens its web UI.
    { interactions: board, opener },
  );
  try {
    const stored = await new BrokerClient(paths).call('storeSecret', {
      params: { profile: 'demo', field: 'token' },
      body: { value: token },
    });
    if (stored.status !== 204) {
      say(`The demo could not put its token in the OS keychain:\n  ${stored.body.trim()}`);
      return 1;
    }
    const shim = nativeShimPath() ?? nodeCliPath();
    const kubeconfig = path.join(paths.home, 'kubeconfig');
    await writeFile(
      kubeconfig,
      demoKubeconfig({
        server: api.url,
        caPem: api.caPem,
        command: shim,
        home: paths.home,
        profiles: issuer ? ['demo', 'sso'] : ['demo'],
      }),
      { mode: 0o600 },
    );
    say(`Kubecred demo
  broker     ${server.socket} (home ${paths.home})
  API        ${api.url} (${api.description})
  issuer     ${issuer ? `${issuer.issuer} (a local OIDC issuer: any user name signs in; its certificate is from the demo's throw-away CA, so a browser warns once)` : services.issuerProblem}
  token      in the OS keychain as kubecred/demo/token; the kubeconfig holds none
  kubeconfig ${kubeconfig}, exec plugin ${shim}`);
    const kubectl = (context: string) => [
      'kubectl',
      '--kubeconfig',
      kubeconfig,
      '--context',
      `kubecred-${context}`,
      ...api.check,
    ];
    if (!(await check(kubectl('demo'), say, 'kubectl reached the API with the token from the keychain.'))) return 1;
    if (issuer && once) {
      if (
        !(await check(kubectl('sso'), say, 'kubectl reached the API with an ID token: the login ran in the browser.'))
      )
        return 1;
      if (!(await check(kubectl('sso'), say, 'Again, from the cache: no browser this time.'))) return 1;
    }
    if (once) return 0;
    say(`\nTry it yourself in another terminal:
  ${kubectl('demo').join(' ')}
  ${issuer ? `${kubectl('sso').join(' ')}    # the first call logs in (browser or device code, shown here); the next come from the cache` : ''}
  KUBECRED_HOME=${paths.home} ${nodeCliPath()} status
  KUBECRED_HOME=${paths.home} ${nodeCliPath()} ui        # the window: profiles, logins, activity, settings

Ctrl-C stops the demo.`);
    await stopped;
    return 0;
  } finally {
    await Promise.race([Promise.all(signIns), new Promise((resolve) => setTimeout(resolve, SIGN_IN_SETTLE_MS))]);
    await scripted?.close();
    // The demo's token leaves the keychain with the demo; a failure here is only reported.
    if (removeHome)
      await new BrokerClient(paths)
        .call('deleteSecret', { params: { profile: 'demo', field: 'token' } })
        .catch(() => undefined);
    await server.close();
    await services.close();
    restoreConsole();
    await new Promise((resolve) => log.end(resolve));
    if (removeHome) {
      await rm(paths.home, { recursive: true, force: true });
      say(`\nRemoved the demo's files (${paths.home}) and its keychain item.`);
    }
  }
}

/** How long a finished run waits for a scripted sign-in to settle before closing its browser. */
const SIGN_IN_SETTLE_MS = 10_000;

async function scriptedSignIn(
  url: string,
  browser: () => Promise<BrowserDriver>,
  say: (line: string) => void,
  started: (signIn: Promise<void>) => void,
): Promise<boolean> {
  try {
    const driver = await browser();
    started(
      driver.signIn(url).then(
        () => undefined,
        (error: unknown) => say(`(the scripted browser failed: ${(error as Error).message})`),
      ),
    );
    return true;
  } catch (error) {
    say(`(no scripted browser: ${(error as Error).message.split('\n')[0]})`);
    return false;
  }
}

async function check(command: string[], say: (line: string) => void, success: string): Promise<boolean> {
  const started = Date.now();
  const result = await runCommand(command);
  const elapsed = `${Date.now() - started} ms`;
  if (result.missing) {
    say('\n(kubectl is not on PATH here, so the demo could not try it.)');
    return true;
  }
  if (result.code !== 0) {
    say(`\n$ ${command.join(' ')}\nfailed (exit ${result.code}): ${result.stderr.trim()}`);
    return false;
  }
  say(`\n$ ${command.join(' ')}    (${elapsed})\n${result.stdout.trim()}\n${success}`);
  return true;
}

// Asynchronous: the API stand-in and the issuer that answer kubectl live in this process.
function runCommand([command, ...args]: string[]): Promise<{
  missing: boolean;
  code: number;
  stdout: string;
  stderr: string;
}> {
  return new Promise((resolve) => {
    execFile(command!, args, { timeout: 90_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ missing: (error as NodeJS.ErrnoException | null)?.code === 'ENOENT', code, stdout, stderr });
    });
  });
}
