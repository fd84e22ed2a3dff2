import type { Credential } from '../../../shared/credential.js';
import type { ExecProfileConfig } from '../../../shared/config/schema.js';
import { parseDuration } from '../../../shared/duration.js';
import { commandFailure } from '../../platform/commandFailure.js';
import { runBoundedCommand } from '../../platform/boundedCommand.js';
import type { Clock } from '../../core/clock.js';
import type { CredentialContext, Provider } from '../provider.js';
import { parsePluginOutput } from './pluginOutput.js';
import { redactForeignText } from '../../core/quoteStderr.js';
import { printable } from '../../../shared/printable.js';

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
    /**
     * Shows what the plugin says while it runs, until `until` aborts. A plugin wrapped here
     * runs without the user's terminal: kubelogin's or az's "open this page and enter code X"
     * would otherwise be lost, and the login with it.
     */
    private readonly showMessage?: (text: string, until: AbortSignal) => void,
  ) {}

  async getCredential(context: CredentialContext): Promise<Credential> {
    const { command, args, env, apiVersion } = this.profile;
    const execInfo = {
      apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, ...(context.cluster ? { cluster: context.cluster } : {}) },
    };
    const timeoutMs = parseDuration(this.profile.timeout) ?? 60_000;
    const running = new AbortController();
    const result = await runBoundedCommand({
      command,
      args,
      env: { ...Object.fromEntries(env.map((e) => [e.name, e.value])), KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) },
      timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal: context.signal,
      ...(this.showMessage
        ? {
            onStderrLine: (line: string) => this.showMessage?.(printable(redactForeignText(line), 400), running.signal),
          }
        : {}),
    }).finally(() => running.abort());
    const name = `exec plugin ${JSON.stringify(command)} of profile "${context.profile}"`;
    const failure = commandFailure(result, name, {
      timeout: this.profile.timeout,
      commandField: "the profile's command",
      maxOutputBytes: MAX_OUTPUT_BYTES,
    });
    if (failure) throw failure;
    const ttlMs = parseDuration(this.profile.ttl) ?? 300_000;
    return parsePluginOutput(result.stdout, { name, apiVersion, now: this.clock.now(), ttlMs });
  }
}
