// `npm run bench`: Kubecred's hot path measured side by side with its baselines in one run.
// Prints a table of subjects, then the credential path's goals (issue 32), each figure beside
// its floor measured in the same run, and writes test-results/bench.json. Not a test: a goal
// missed is printed as such; it exits 1 only when a hard bound (one plugin run per cold cache,
// no descriptor or memory growth) is broken.
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brokerEnv, startTestBroker, writeConfig } from '../support/broker.js';
import { seedGkeCache, findGkePlugin } from '../support/gkeCache.js';
import { writeExecKubeconfig, writeTokenKubeconfig } from '../support/kubeconfig.js';
import { startKubeApiServer } from '../support/kubeApiServer.js';
import { findKubectlBuilds } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { KUBECRED_CLI, NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome } from '../support/tempHome.js';
import { coldCacheStampede } from './coldCacheStampede.js';
import { bareClientAnswers, coldFirstCalls, inProcessAnswers, startHttpFloor } from './credentialPath.js';
import { goalTable, type GoalRow } from './goals.js';
import { guardedProxyBench } from './guardedProxyBench.js';
import { buildGoTools } from './goTools.js';
import { execProxyBench } from './execProxyBench.js';
import { summarize, type Stats } from './stats.js';
import { footprint, sustainedLoad } from './sustainedLoad.js';
import { interleave, type Subject } from './timeCommand.js';

const SHIM_RUNS = Number(process.env.BENCH_RUNS ?? 200);
const KUBECTL_RUNS = Number(process.env.BENCH_KUBECTL_RUNS ?? 60);
const AWS_RUNS = Number(process.env.BENCH_AWS_RUNS ?? 20);
const STAMPEDE_CALLERS = Number(process.env.BENCH_STAMPEDE ?? 200);
const SUSTAINED_REQUESTS = Number(process.env.BENCH_SUSTAINED ?? 10_000);
const ANSWER_RUNS = Number(process.env.BENCH_ANSWERS ?? 3000);
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 12);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 15_000);
// Bounds the run must hold: one plugin run however many callers, no descriptor leak, and
// memory that does not grow with the number of requests served.
const BOUNDS = {
  stampedeProviderCalls: 1,
  rssGrowthMiB: 10,
  descriptorGrowth: 2,
  proxyGoroutineGrowth: 2,
  proxyOpenFileGrowth: 2,
};
const TOKEN = 'bench-token-0b7c1e';
const V1_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

function withoutUndefined(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
}

async function main(): Promise<void> {
  assertBuilt({ shim: true });
  const home = await makeTempHome();
  const plugin = path.join(home.dir, 'plugin.sh');
  await writeFile(
    plugin,
    `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`,
    { mode: 0o755 },
  );
  const stampedePlugin = path.join(home.dir, 'stampede-plugin.sh');
  const stampedeLog = path.join(home.dir, 'stampede-calls.log');
  // Slow like a real IdP round trip, and it counts its own runs.
  await writeFile(
    stampedePlugin,
    `#!/bin/sh\necho run >> ${stampedeLog}\nsleep 0.3\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`,
    { mode: 0o755 },
  );
  const benchProfile = `  - name: bench\n    provider: exec\n    command: ${plugin}\n    ttl: 24h\n`;
  await writeConfig(
    home.dir,
    `profiles:\n${benchProfile}  - name: stampede\n    provider: exec\n    command: ${stampedePlugin}\n    ttl: 24h\n`,
  );
  const go = buildGoTools();
  const broker = await startTestBroker(home.dir);
  const pki = await createTestPki(path.join(home.dir, 'pki'));
  const api = await startKubeApiServer({
    dir: path.join(home.dir, 'apiserver'),
    pki,
    tokens: [{ token: TOKEN, user: 'bench' }],
  });
  try {
    const env = { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_INFO };
    const shims: Subject[] = [
      { name: 'go no-op', command: go.noop, args: [], env },
      { name: 'node -e 0', command: process.execPath, args: ['-e', '0'], env },
      { name: 'kubecred-shim (native), cache hit', command: NATIVE_SHIM, args: ['credential', 'bench'], env },
      {
        name: 'kubecred credential (node), cache hit',
        command: process.execPath,
        args: [KUBECRED_CLI, 'credential', 'bench'],
        env,
      },
    ];
    if (findGkePlugin()) {
      const gkeDir = path.join(home.dir, 'gke');
      const gke = seedGkeCache({
        dir: gkeDir,
        currentContext: 'bench',
        token: 'gke-token',
        expiry: new Date(Date.now() + 3_600_000),
      });
      await writeFile(
        gke.kubeconfig,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [],
          users: [],
          contexts: [{ name: 'bench', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'bench',
        }),
      );
      shims.push({
        name: 'gke-gcloud-auth-plugin, cached',
        command: gke.command,
        args: gke.args,
        env: withoutUndefined({ ...process.env, ...gke.env }),
      });
    }
    const shimSamples = await interleave(shims, SHIM_RUNS);
    const aws = awsSubject(home.dir);
    const awsSamples = aws ? await interleave([aws], AWS_RUNS, 2) : new Map<string, number[]>();

    const stampede = await coldCacheStampede(
      STAMPEDE_CALLERS,
      NATIVE_SHIM,
      ['credential', 'stampede'],
      env,
      stampedeLog,
    );
    const secretFile = path.join(home.dir, 'run', 'client-secret');
    const secret = (await readFile(secretFile, 'utf8')).trim();
    const body = JSON.stringify({
      argv: ['credential', 'bench'],
      execInfo: V1_INFO,
      stdinIsTerminal: false,
      client: 'shim',
    });
    const sustained = await sustainedLoad({
      pid: broker.process.pid!,
      socket: broker.socket,
      secret,
      body,
      requests: SUSTAINED_REQUESTS,
      concurrency: 16,
    });
    const answersOn = async (socket: string) =>
      summarize(
        await bareClientAnswers({
          bareClient: go.bareClient,
          socket,
          secretFile,
          body,
          requests: ANSWER_RUNS,
          dir: home.dir,
        }),
      );
    const brokerAnswers = await answersOn(broker.socket);
    // V8 gives memory back once the broker has been idle a while: what a user sees between bursts.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = await footprint(broker.process.pid!);
    const floorServer = await startHttpFloor(path.join(home.dir, 'floor'));
    const floorAnswers = await answersOn(floorServer.socket);
    const floorSustained = await sustainedLoad({
      pid: floorServer.pid,
      socket: floorServer.socket,
      secret,
      body,
      requests: SUSTAINED_REQUESTS,
      concurrency: 16,
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const floorSettled = await floorServer.footprint();
    await floorServer.stop();
    const inProcess = await inProcessAnswers({
      home: path.join(home.dir, 'in-process'),
      config: `profiles:\n${benchProfile}`,
      execInfo: V1_INFO,
      calls: ANSWER_RUNS,
    });
    const coldHome = path.join(home.dir, 'cold');
    await mkdir(coldHome, { recursive: true, mode: 0o700 });
    await writeConfig(coldHome, `profiles:\n${benchProfile}`);
    const cold = summarize(
      await coldFirstCalls(
        {
          name: 'first call, no broker running',
          command: NATIVE_SHIM,
          args: ['credential', 'bench'],
          env: { ...env, KUBECRED_HOME: coldHome },
        },
        coldHome,
        COLD_RUNS,
      ),
    );

    const kubectl = findKubectlBuilds()
      .filter((b) => b.name !== 'kubectl')
      .pop();
    if (!kubectl) throw new Error('no versioned kubectl build found');
    const inline = await writeTokenKubeconfig({
      path: path.join(home.dir, 'kubeconfig-inline'),
      server: api.url,
      caPem: api.caPem,
      token: TOKEN,
    });
    const viaShim = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig-kubecred'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'bench'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
    });
    const kubectlArgs = ['get', '--raw', '/version'];
    const kubectlSubjects: Subject[] = [
      {
        name: `${kubectl.name} get --raw /version, token inline`,
        command: kubectl.path,
        args: kubectlArgs,
        env: { ...process.env, KUBECONFIG: inline },
      },
      {
        name: `${kubectl.name} get --raw /version, via kubecred-shim`,
        command: kubectl.path,
        args: kubectlArgs,
        env: { ...process.env, KUBECONFIG: viaShim },
      },
    ];
    const kubectlSamples = await interleave(kubectlSubjects, KUBECTL_RUNS, 3);

    const rows: Array<{ name: string } & Stats> = [...shimSamples, ...awsSamples, ...kubectlSamples].map(
      ([name, samples]) => ({ name, ...summarize(samples) }),
    );
    const [inlineStats, shimStats] = kubectlSubjects.map((s) => rows.find((r) => r.name === s.name)!);
    const ratio = { p50: shimStats!.p50 / inlineStats!.p50, mean: shimStats!.mean / inlineStats!.mean };
    const p50Of = (name: string) => rows.find((r) => r.name === name)!.p50;
    const noopP50 = p50Of('go no-op');
    const goals: GoalRow[] = [
      {
        figure: 'broker answer, cache hit, in process (p50)',
        measured: summarize(inProcess.answers).p50,
        floor: summarize(inProcess.floor).p50,
        floorIs: 'a map hit and its JSON',
        goal: 0.5,
        unit: 'ms',
        bound: '<',
      },
      {
        figure: 'broker answer, cache hit, bare Go client (p50)',
        measured: brokerAnswers.p50,
        floor: floorAnswers.p50,
        floorIs: 'Node HTTP on a socket, fixed answer',
        goal: 0.5,
        unit: 'ms',
        bound: '<',
      },
      {
        figure: 'native shim, cache hit, whole process / Go no-op (p50)',
        measured: p50Of('kubecred-shim (native), cache hit') / noopP50,
        floor: 1,
        floorIs: `the Go no-op, ${noopP50.toFixed(2)} ms`,
        goal: 1.5,
        unit: 'x',
        bound: '<=',
      },
      {
        figure: 'kubectl through Kubecred / token inline (p50)',
        measured: ratio.p50,
        floor: 1 + noopP50 / inlineStats!.p50,
        floorIs: 'plus one Go no-op',
        goal: 1.04,
        unit: 'x',
        bound: '<=',
      },
      {
        figure: 'first call, no broker running (p50)',
        measured: cold.p50,
        floor: p50Of('node -e 0') + noopP50,
        floorIs: 'node -e 0 plus the Go no-op',
        goal: 300,
        unit: 'ms',
        bound: '<',
      },
      {
        figure: `broker RSS after ${sustained.requests * 2} requests, headless`,
        measured: sustained.after.rssMiB,
        floor: floorSustained.after.rssMiB,
        floorIs: 'the Node HTTP floor after as many',
        goal: 60,
        unit: 'MiB',
        bound: '<',
      },
      {
        figure: `the same, idle ${SETTLE_MS / 1000} s later`,
        measured: settled.rssMiB,
        floor: floorSettled.rssMiB,
        floorIs: 'the Node HTTP floor, as long idle',
        goal: 60,
        unit: 'MiB',
        bound: '<',
      },
    ];
    printTable(rows);
    process.stdout.write(`\n${goalTable(goals)}\n\n`);
    process.stdout.write(
      `first call with no broker: p50 ${cold.p50.toFixed(0)} ms, p99 ${cold.p99.toFixed(0)} ms over ${cold.runs} runs; bare client p99 ${brokerAnswers.p99.toFixed(3)} ms\n`,
    );
    process.stdout.write(
      `${stampede.callers} native shims at once on a cold cache: ${stampede.providerCalls} plugin run(s) (must be ${BOUNDS.stampedeProviderCalls}), ${stampede.failures} failed, p50 ${stampede.p50.toFixed(0)} ms, p99 ${stampede.p99.toFixed(0)} ms (the plugin alone takes 300 ms)\n`,
    );
    const proxy = await execProxyBench(kubectl, KUBECTL_RUNS);
    process.stdout.write(
      `kubectl through kubecred-proxy (RSA-2048 on SoftHSM2, real kube-apiserver): p50 ${proxy.viaProxy.p50.toFixed(1)} ms vs ${proxy.direct.p50.toFixed(1)} ms doing mTLS itself with a key file = ${proxy.ratioP50.toFixed(3)}x (target <= 1.2x); proxy RSS ${proxy.proxyIdleRssMiB.toFixed(1)} MiB (target < 20)\n`,
    );
    // Issue 33: a token profile through the proxy, its guard deciding each request.
    const guarded = await guardedProxyBench(kubectl, KUBECTL_RUNS);
    const guardedGoal: GoalRow = {
      figure: 'kubectl, token profile through kubecred-proxy (guard on) / token inline (p50)',
      measured: guarded.ratioP50,
      floor: 1 + noopP50 / guarded.inline.p50,
      floorIs: 'plus one Go no-op',
      goal: 1.15,
      unit: 'x',
      bound: '<=',
    };
    goals.push(guardedGoal);
    process.stdout.write(
      `\n${goalTable([guardedGoal])}\n(p50 ${guarded.viaProxy.p50.toFixed(1)} ms through the proxy vs ${guarded.inline.p50.toFixed(1)} ms inline)\n\n`,
    );
    const { load } = proxy;
    process.stdout.write(
      `kubecred-proxy under load: ${load.requests} requests (${load.newConnections} on new connections) and ${load.execSessions} exec sessions in ${load.seconds.toFixed(1)} s, ${load.failures} failed; goroutines ${load.before.goroutines} -> ${load.after.goroutines} (bound +${BOUNDS.proxyGoroutineGrowth}), open files ${load.before.openFiles} -> ${load.after.openFiles} (bound +${BOUNDS.proxyOpenFileGrowth})\n`,
    );
    const rssGrowth = sustained.after.rssMiB - sustained.afterWarmup.rssMiB;
    const descriptorGrowth = sustained.after.descriptors - sustained.before.descriptors;
    process.stdout.write(
      `sustained: ${sustained.requests} cache hits at concurrency ${sustained.concurrency} in ${sustained.seconds.toFixed(1)} s = ${sustained.requestsPerSecond.toFixed(0)} req/s, ${sustained.failures} failed; broker RSS ${sustained.before.rssMiB.toFixed(1)} -> ${sustained.afterWarmup.rssMiB.toFixed(1)} (warm) -> ${sustained.after.rssMiB.toFixed(1)} MiB (bound +${BOUNDS.rssGrowthMiB}), descriptors ${sustained.before.descriptors} -> ${sustained.after.descriptors} (bound +${BOUNDS.descriptorGrowth})\n`,
    );
    const broken = [
      stampede.providerCalls !== BOUNDS.stampedeProviderCalls &&
        `the plugin ran ${stampede.providerCalls} times for one cold cache`,
      stampede.failures > 0 && `${stampede.failures} stampede callers failed`,
      sustained.failures > 0 && `${sustained.failures} sustained requests failed`,
      rssGrowth > BOUNDS.rssGrowthMiB &&
        `broker RSS grew ${rssGrowth.toFixed(1)} MiB over ${sustained.requests} requests`,
      descriptorGrowth > BOUNDS.descriptorGrowth && `broker descriptors grew by ${descriptorGrowth}`,
      proxy.proxyIdleRssMiB >= 20 && `kubecred-proxy uses ${proxy.proxyIdleRssMiB.toFixed(1)} MiB`,
      proxy.ratioP50 > 1.2 && `kubectl through kubecred-proxy is ${proxy.ratioP50.toFixed(2)}x kubectl with a key file`,
      load.failures > 0 && `${load.failures} requests or exec sessions through kubecred-proxy failed`,
      load.after.goroutines - load.before.goroutines > BOUNDS.proxyGoroutineGrowth &&
        `kubecred-proxy's goroutines grew by ${load.after.goroutines - load.before.goroutines}`,
      load.after.openFiles - load.before.openFiles > BOUNDS.proxyOpenFileGrowth &&
        `kubecred-proxy's open files grew by ${load.after.openFiles - load.before.openFiles}`,
    ].filter((b): b is string => typeof b === 'string');
    const out = path.join(REPO_ROOT, 'test-results');
    await mkdir(out, { recursive: true });
    await writeFile(
      path.join(out, 'bench.json'),
      `${JSON.stringify({ date: new Date().toISOString(), runs: { shim: SHIM_RUNS, kubectl: KUBECTL_RUNS, aws: AWS_RUNS, answers: ANSWER_RUNS, cold: COLD_RUNS }, rows, goals, kubectlRatio: ratio, execProxy: proxy, stampede, sustained, settled, bounds: BOUNDS, broken }, null, 2)}\n`,
    );
    process.stdout.write(`written: ${path.join(out, 'bench.json')}\n`);
    if (broken.length > 0) {
      process.stderr.write(`bench: bounds broken:\n${broken.map((b) => `  - ${b}`).join('\n')}\n`);
      process.exitCode = 1;
    }
  } finally {
    await api.stop();
    await broker.stop();
    await home.cleanup();
  }
}

/** `aws eks get-token` with throwaway keys: it signs locally, so no network is needed. */
function awsSubject(dir: string): Subject | undefined {
  if (spawnSync('sh', ['-c', 'command -v aws']).status !== 0) return undefined;
  return {
    name: 'aws eks get-token',
    command: 'aws',
    args: ['eks', 'get-token', '--cluster-name', 'bench', '--region', 'us-east-1', '--output', 'json'],
    env: {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: path.join(dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'aws-credentials'),
    },
  };
}

function printTable(rows: Array<{ name: string } & Stats>): void {
  const width = Math.max(...rows.map((r) => r.name.length));
  process.stdout.write(
    `${'subject'.padEnd(width)}  ${['runs', 'p50 ms', 'p99 ms', 'mean ms', 'min ms'].map((h) => h.padStart(8)).join('')}\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.name.padEnd(width)}  ${[r.runs, r.p50, r.p99, r.mean, r.min].map((v, i) => (i === 0 ? String(v) : v.toFixed(2)).padStart(8)).join('')}\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
