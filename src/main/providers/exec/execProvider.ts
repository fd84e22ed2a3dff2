import { execa } from 'execa';
import type { Credential } from '../../../shared/credential.js';
import type { ExecProfileConfig } from '../../../shared/config/schema.js';
import { parseDuration } from '../../../shared/duration.js';
import { BrokerError } from '../../broker/brokerError.js';
import type { Clock } from '../../broker/clock.js';
import type { CredentialContext, Provider } from '../provider.js';
import { parsePluginOutput } from './pluginOutput.js';
import { quoteStderr } from './quoteStderr.js';

const MAX_OUTPUT_BYTES = 1024 * 1024;

function killProcessGroup(subprocess: { pid?: number | undefined; kill(signal?: NodeJS.Signals): boolean }): void {
  try {
    if (subprocess.pid !== undefined && process.platform !== 'win32') process.kill(-subprocess.pid, 'SIGKILL');
    else subprocess.kill('SIGKILL');
  } catch {
    subprocess.kill('SIGKILL');
  }
}

/**
 * Wraps any client-go exec plugin (aws eks get-token, gke-gcloud-auth-plugin, ...) so its
 * answer is cached by the broker instead of being recomputed by every kubectl process.
 */
export class ExecProvider implements Provider {
  readonly kind = 'exec';

  constructor(
    private readonly profile: ExecProfileConfig,
    private readonly clock: Clock,
  ) {}

  async getCredential(context: CredentialContext): Promise<Credential> {
    const { command, args, env, apiVersion } = this.profile;
    const execInfo = {
      apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, ...(context.cluster ? { cluster: context.cluster } : {}) },
    };
    const timeoutMs = parseDuration(this.profile.timeout) ?? 60_000;
    const subprocess = execa(command, args, {
      env: { ...Object.fromEntries(env.map((e) => [e.name, e.value])), KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) },
      extendEnv: true,
      stdin: 'ignore',
      maxBuffer: MAX_OUTPUT_BYTES,
      reject: false,
      encoding: 'utf8',
      // Its own process group, so a timeout ends the plugin's children too: a shell script's
      // `sleep` would otherwise hold the output pipe open long after the script was killed.
      detached: process.platform !== 'win32',
      ...(context.signal ? { cancelSignal: context.signal } : {}),
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killProcessGroup(subprocess);
    }, timeoutMs);
    const result = await subprocess.finally(() => clearTimeout(timer));
    const name = `exec plugin ${JSON.stringify(command)} of profile "${context.profile}"`;
    if (timedOut) {
      throw new BrokerError('provider-failed', `${name} did not answer within ${this.profile.timeout}${quoteStderr(result.stderr)}`, 'check that it runs by hand, or raise the profile\'s timeout');
    }
    if (result.failed && (result as { code?: string }).code === 'ENOENT') {
      throw new BrokerError('provider-failed', `${name} was not found`, 'install it, or give its absolute path in the profile\'s command');
    }
    if (result.exitCode !== 0) {
      throw new BrokerError('provider-failed', `${name} failed (${result.exitCode === undefined ? result.signal ?? 'no exit code' : `exit ${result.exitCode}`})${quoteStderr(result.stderr)}`, 'run it by hand with the same arguments to see why');
    }
    const ttlMs = parseDuration(this.profile.ttl) ?? 300_000;
    return parsePluginOutput(String(result.stdout), { name, apiVersion, now: this.clock.now(), ttlMs });
  }
}
