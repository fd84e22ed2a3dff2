import type { Command } from './io.js';

export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  /** Loaded on use: `kubecred credential` must not pay for the daemon's modules. */
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'credential', summary: 'the kubectl exec plugin: print an ExecCredential for a profile', load: async () => (await import('./commands/credential.js')).credentialCommand },
  { name: 'daemon', summary: 'run the broker headless in the foreground until SIGINT or SIGTERM', load: async () => (await import('./commands/daemon.js')).daemonCommand },
  { name: 'status', summary: 'is the broker up, its socket, and each profile with its state and expiry', load: async () => (await import('./commands/status.js')).statusCommand },
  { name: 'secret', summary: 'store or remove a profile secret in the keychain (value on stdin)', load: async () => (await import('./commands/secret.js')).secretCommand },
  { name: 'demo', summary: 'a broker, a local API stand-in and a kubeconfig: try Kubecred end to end', load: async () => (await import('./commands/demo.js')).demoCommand },
  { name: 'profile', summary: 'list the profiles of config.yaml', load: async () => (await import('./commands/profile.js')).profileCommand },
];
