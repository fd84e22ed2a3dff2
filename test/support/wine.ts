import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './repo.js';

/** What scripts/wine-world.mjs made: a Windows 10 prefix, node.exe, kubectl.exe. */
export interface WineWorld {
  readonly prefix: string;
  readonly nodeExe: string;
  readonly kubectl: string;
}

export interface WineResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Makes the world, or finds it made (seconds once cached). */
export function wineWorld(): WineWorld {
  const made = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'wine-world.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (made.status !== 0) throw new Error('scripts/wine-world.mjs failed (its reason is above)');
  return JSON.parse(made.stdout) as WineWorld;
}

/** How a Windows program sees a path of this machine: Wine's Z: drive is the Linux root. */
export function windowsPath(linuxPath: string): string {
  return `Z:${path.resolve(linuxPath).replace(/\//g, '\\')}`;
}

/**
 * Runs Windows programs under Wine. Their standard streams are files, not pipes: node.exe under
 * Wine cannot write to a Linux pipe (EBADF), so each run gets files in `scratch`.
 */
export class WineRunner {
  private runs = 0;

  constructor(
    private readonly world: WineWorld,
    private readonly scratch: string,
    /** The Windows environment every program gets (PATH through WINEPATH). */
    private readonly env: Record<string, string>,
  ) {}

  /** Runs `exe` with `args` to its end; `input` becomes its stdin (a file). */
  run(
    exe: string,
    args: readonly string[],
    options: { input?: string; env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
  ): Promise<WineResult> {
    const child = this.start(exe, args, options);
    const timer = setTimeout(() => child.process.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    return new Promise((resolve, reject) => {
      child.process.once('error', reject);
      child.process.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: child.stdout(), stderr: child.stderr() });
      });
    });
  }

  /** Starts `exe` and leaves it running (a broker); its output so far is read from its files. */
  start(
    exe: string,
    args: readonly string[],
    options: { input?: string; env?: Record<string, string>; cwd?: string } = {},
  ): { process: ChildProcess; stdout(): string; stderr(): string } {
    const id = ++this.runs;
    const files = ['in', 'out', 'err'].map((stream) => path.join(this.scratch, `run-${id}.${stream}`)) as [
      string,
      string,
      string,
    ];
    writeFileSync(files[0], options.input ?? '');
    const descriptors = [openSync(files[0], 'r'), openSync(files[1], 'w'), openSync(files[2], 'w')];
    const child = spawn('wine', [exe, ...args], {
      env: {
        ...(process.env as Record<string, string>),
        WINEPREFIX: this.world.prefix,
        WINEDEBUG: '-all',
        DISPLAY: '',
        ...this.env,
        ...options.env,
      },
      stdio: descriptors,
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    for (const descriptor of descriptors) closeSync(descriptor);
    return {
      process: child,
      stdout: () => readFileSync(files[1], 'utf8'),
      stderr: () => readFileSync(files[2], 'utf8'),
    };
  }

  /** Stops every Windows process of the prefix (wineserver -k), as a logout would. */
  static stopAll(world: WineWorld): void {
    spawnSync('wineserver', ['-k'], { env: { ...process.env, WINEPREFIX: world.prefix } });
  }
}

/**
 * Ends a test's Windows world: the prefix is kept between runs, so its Credential Manager is left
 * as it was found (the profiles' tokens removed), the broker stopped, then every Windows process.
 */
export async function endWindowsWorld(parts: {
  readonly world: WineWorld | undefined;
  readonly kubecred: ((args: string[]) => Promise<WineResult>) | undefined;
  readonly profiles: readonly string[];
  readonly stopAlso: ReadonlyArray<(() => Promise<void>) | undefined>;
}): Promise<void> {
  const { world, kubecred } = parts;
  if (kubecred) {
    for (const profile of parts.profiles) await kubecred(['secret', 'rm', profile, 'token']).catch(() => undefined);
    await kubecred(['stop']).catch(() => undefined);
  }
  if (world) WineRunner.stopAll(world);
  for (const stop of parts.stopAlso) await stop?.();
}
