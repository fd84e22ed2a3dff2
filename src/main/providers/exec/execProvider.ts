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
    /** The proxy variables config.yaml's network sets, over the environment's; undefined: none set there. */
    private readonly proxyVariables?: () => Readonly<Record<string, string>> | undefined,
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
    const relay = this.showMessage ? new StderrRelay((line) => this.showMessage?.(line, running.signal)) : undefined;
    const result = await runBoundedCommand({
      command,
      args,
      env: {
        ...this.proxyVariables?.(),
        ...Object.fromEntries(env.map((e) => [e.name, e.value])),
        KUBERNETES_EXEC_INFO: JSON.stringify(execInfo),
      },
      timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal: context.signal,
      ...(relay ? { onStderrLine: (line: string) => relay.line(printable(redactForeignText(line), 400)) } : {}),
    }).finally(() => {
      relay?.end();
      running.abort();
    });
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

/** How long a plugin runs before what it says is relayed as it says it. */
const RELAY_AFTER_MS = 500;

/**
 * A plugin that fails at once has its words quoted in the failure kubectl prints: relayed as
 * well, they reached the terminal twice. So lines are held for the first moment and relayed only
 * once the plugin is still running after it: what waits on the person ("open this page and enter
 * code X") still arrives within a second.
 */
class StderrRelay {
  private held: string[] = [];
  private live = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly show: (line: string) => void) {
    this.timer = setTimeout(() => {
      this.live = true;
      for (const line of this.held.splice(0)) this.show(line);
    }, RELAY_AFTER_MS);
    this.timer.unref();
  }

  line(text: string): void {
    if (this.live) this.show(text);
    else this.held.push(text);
  }

  end(): void {
    clearTimeout(this.timer);
    this.held = [];
  }
}
