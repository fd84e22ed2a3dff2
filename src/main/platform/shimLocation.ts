import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installLayout, layoutProxy, layoutShim, type InstallLayout } from './installLayout.js';

/** This install's layout, worked out once from where this module sits (a fact, not a service). */
const LAYOUT: InstallLayout = installLayout({
  moduleDir: path.dirname(fileURLToPath(import.meta.url)),
  resourcesPath: (process as NodeJS.Process & { resourcesPath?: string }).resourcesPath,
});

export function currentLayout(): InstallLayout {
  return LAYOUT;
}

/** The native shim built for this platform, or undefined where there is none. */
export function nativeShimPath(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string | undefined {
  return layoutShim(LAYOUT, platform, arch);
}

/** The exec proxy built for this platform, or undefined where there is none. */
export function proxyPath(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string | undefined {
  return layoutProxy(LAYOUT, platform, arch);
}

/** The kubecred CLI as a program kubectl can run, the fallback where no native shim exists. */
export function nodeCliPath(): string {
  return LAYOUT.cliCommand;
}
