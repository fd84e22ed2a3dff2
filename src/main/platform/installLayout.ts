import { existsSync } from 'node:fs';
import path from 'node:path';

const GOOS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const GOARCH: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/**
 * Where this install keeps what it runs and serves. Three shapes:
 * - source: TypeScript run from src/ (tests, tsx); the built parts are in dist/ beside it;
 * - dist: the build (`npm run build`) run by Node or by Electron unpackaged;
 * - packaged: electron-builder's app, whose code is inside resources/app.asar, which kubectl
 *   cannot execute: the shims and the CLI launcher sit beside it in resources/.
 */
export interface InstallLayout {
  readonly kind: 'source' | 'dist' | 'packaged';
  /** shim/<goos>-<goarch>/kubecred-shim[.exe] (and kubecred-proxy) live here. */
  readonly shimDir: string;
  /** The built web UI (vite's output). */
  readonly rendererDir: string;
  /** Tray icons and other files the app ships. */
  readonly resourcesDir: string;
  /**
   * The kubecred CLI as a program another process can run (a kubeconfig's exec command, a login
   * item): bin/kubecred, or in the packaged app its launcher, which runs the app's own binary
   * with ELECTRON_RUN_AS_NODE=1.
   */
  readonly cliCommand: string;
}

export interface LayoutFacts {
  /** The directory of the module asking (src/main/platform or dist/main/platform, maybe inside app.asar). */
  readonly moduleDir: string;
  /** Electron's process.resourcesPath when packaged; undefined under plain Node. */
  readonly resourcesPath?: string | undefined;
  readonly platform?: NodeJS.Platform;
}

/** Works out the layout from where this module sits; no file needs to exist for that. */
export function installLayout({ moduleDir, resourcesPath, platform = process.platform }: LayoutFacts): InstallLayout {
  const parts = path.resolve(moduleDir).split(path.sep);
  const asar = parts.indexOf('app.asar');
  if (asar >= 0) {
    const resources = resourcesPath ?? parts.slice(0, asar).join(path.sep);
    const app = path.join(resources, 'app.asar');
    return {
      kind: 'packaged',
      shimDir: path.join(resources, 'shim'),
      rendererDir: path.join(app, 'dist', 'renderer'),
      resourcesDir: path.join(resources, 'resources'),
      cliCommand: path.join(resources, 'bin', platform === 'win32' ? 'kubecred.cmd' : 'kubecred'),
    };
  }
  // moduleDir is <root>/<src|dist>/main/platform.
  const top = path.resolve(moduleDir, '..', '..');
  const root = path.dirname(top);
  const dist = path.join(root, 'dist');
  return {
    kind: path.basename(top) === 'dist' ? 'dist' : 'source',
    shimDir: path.join(dist, 'shim'),
    rendererDir: path.join(dist, 'renderer'),
    resourcesDir: path.join(root, 'resources'),
    cliCommand: path.join(root, 'bin', 'kubecred'),
  };
}

/** The native shim this layout holds for a platform, or undefined where none was built. */
export function layoutShim(layout: InstallLayout, platform: NodeJS.Platform, arch: string): string | undefined {
  return layoutProgram(layout, 'kubecred-shim', platform, arch);
}

/** The exec proxy (kubecred-proxy) built beside the shim, or undefined where none was built. */
export function layoutProxy(layout: InstallLayout, platform: NodeJS.Platform, arch: string): string | undefined {
  return layoutProgram(layout, 'kubecred-proxy', platform, arch);
}

function layoutProgram(
  layout: InstallLayout,
  name: string,
  platform: NodeJS.Platform,
  arch: string,
): string | undefined {
  const goos = GOOS[platform];
  const goarch = GOARCH[arch];
  if (!goos || !goarch) return undefined;
  const file = path.join(layout.shimDir, `${goos}-${goarch}`, goos === 'windows' ? `${name}.exe` : name);
  return existsSync(file) ? file : undefined;
}
