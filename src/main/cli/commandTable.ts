import type { Command } from './io.js';

export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  /** Loaded on use: `kubecred credential` must not pay for the daemon's modules. */
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'credential',
    summary: 'the kubectl exec plugin: print an ExecCredential for a profile',
    load: async () => (await import('./commands/credential.js')).credentialCommand,
  },
  {
    name: 'daemon',
    summary: 'run the broker in the foreground until SIGINT or SIGTERM (--ui: with the web UI)',
    load: async () => (await import('./commands/daemon.js')).daemonCommand,
  },
  {
    name: 'status',
    summary: 'is the broker up, its socket, and each profile with its state and expiry',
    load: async () => (await import('./commands/status.js')).statusCommand,
  },
  {
    name: 'secret',
    summary: "store, remove or list a profile's secrets (values on stdin, never argv)",
    load: async () => (await import('./commands/secret.js')).secretCommand,
  },
  {
    name: 'login',
    summary: 'log in to a profile now (OIDC in the browser or with a device code, Keystone)',
    load: async () => (await import('./commands/login.js')).loginCommand,
  },
  {
    name: 'logout',
    summary: "forget a profile's cached credentials and refresh token",
    load: async () => (await import('./commands/login.js')).logoutCommand,
  },
  {
    name: 'refresh',
    summary: 'a new credential for a profile now, keeping its login (when the cluster revoked the old one)',
    load: async () => (await import('./commands/login.js')).refreshCommand,
  },
  {
    name: 'guard',
    summary: "lift a proxied profile's guard for a while (it comes back by itself), put it back, or show it",
    load: async () => (await import('./commands/guard.js')).guardCommand,
  },
  {
    name: 'enroll',
    summary: 'a key made on a hardware token, its certificate from the cluster, kubectl through the exec proxy',
    load: async () => (await import('./commands/enroll.js')).enrollCommand,
  },
  {
    name: 'token',
    summary: 'PKCS#11 tokens: list them, log in with the PIN, log out',
    load: async () => (await import('./commands/token.js')).tokenCommand,
  },
  {
    name: 'unlock',
    summary: 'unlock the encrypted secret file with its passphrase',
    load: async () => (await import('./commands/lock.js')).unlockCommand,
  },
  {
    name: 'lock',
    summary: 'forget cached credentials, PINs and keys now',
    load: async () => (await import('./commands/lock.js')).lockCommand,
  },
  {
    name: 'stop',
    summary: 'stop the running broker cleanly (the next kubectl call starts a fresh one)',
    load: async () => (await import('./commands/stop.js')).stopCommand,
  },
  {
    name: 'restart',
    summary: 'stop the running broker and start a fresh one from this shell',
    load: async () => (await import('./commands/stop.js')).restartCommand,
  },
  {
    name: 'ui',
    summary: 'open the web UI of the running broker (a one-time link)',
    load: async () => (await import('./commands/ui.js')).uiCommand,
  },
  {
    name: 'demo',
    summary:
      'a broker, a real kube-apiserver (or a stand-in where none is built), an OIDC issuer and a kubeconfig: try Kubecred end to end',
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
  {
    name: 'install',
    summary: 'point a kubeconfig user at a Kubecred profile (the exec block)',
    load: async () => (await import('./commands/install.js')).installCommand,
  },
  {
    name: 'import',
    summary: "move a kubeconfig's plaintext credentials into Kubecred profiles (--dry-run: show the diff)",
    load: async () => (await import('./commands/import.js')).importCommand,
  },
  {
    name: 'doctor',
    summary: 'check the broker, secret stores, shim and kubeconfig, and say how to fix what is broken',
    load: async () => (await import('./commands/doctor.js')).doctorCommand,
  },
  {
    name: 'registry',
    summary: 'image registry logins: the kubelet credential provider, the docker credential helper, registry login',
    load: async () => (await import('./commands/registry.js')).registryCommand,
  },
  {
    name: 'proxy',
    summary:
      'kubecred-proxy, the mTLS proxy for keys that never leave a token: print its local CA (ca), what it runs (status)',
    load: async () => (await import('./commands/proxy.js')).proxyCommand,
  },
  {
    name: 'profile',
    summary: 'list, add, change (set) and remove (rm) the profiles of config.yaml',
    load: async () => (await import('./commands/profile.js')).profileCommand,
  },
  {
    name: 'completion',
    summary: 'print a completion script for bash, zsh or fish (commands, subcommands, flags and profile names)',
    load: async () => (await import('./commands/completion.js')).completionCommandFor(COMMANDS),
  },
];
