import type { Credential } from '../../../shared/credential.js';
import type { ExecProfileConfig } from '../../../shared/config/schema.js';
import { parseDuration } from '../../../shared/duration.js';
import { commandFailure } from '../../broker/commandFailure.js';
import { runBoundedCommand } from '../../broker/boundedCommand.js';
import type { Clock } from '../../broker/clock.js';
import type { CredentialContext, Provider } from '../provider.js';
import { parsePluginOutput } from './pluginOutput.js';

const MAX_OUTPUT_BYTES = 1024 * 1024;

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
    const result = await runBoundedCommand({
      command,
      args,
      env: { ...Object.fromEntries(env.map((e) => [e.name, e.value])), KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) },
      timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal: context.signal,
    });
    const name = `exec plugin ${JSON.stringify(command)} of profile "${context.profile}"`;
    const failure = commandFailure(result, name, { timeout: this.profile.timeout, commandField: 'the profile\'s command', maxOutputBytes: MAX_OUTPUT_BYTES });
    if (failure) throw failure;
    const ttlMs = parseDuration(this.profile.ttl) ?? 300_000;
    return parsePluginOutput(result.stdout, { name, apiVersion, now: this.clock.now(), ttlMs });
  }
}
