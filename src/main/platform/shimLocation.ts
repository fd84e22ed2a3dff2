import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const GOOS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const GOARCH: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/** dist/ of this install: dist/main/platform/shimLocation.js sits two levels below it. */
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The native shim built for this platform, or undefined where there is none. */
export function nativeShimPath(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  const goos = GOOS[platform];
  const goarch = GOARCH[arch];
  if (!goos || !goarch) return undefined;
  const file = path.join(DIST, 'shim', `${goos}-${goarch}`, goos === 'windows' ? 'kubecred-shim.exe' : 'kubecred-shim');
  return existsSync(file) ? file : undefined;
}

/** The Node CLI (bin/kubecred), the fallback where no native shim exists. */
export function nodeCliPath(): string {
  return path.join(DIST, '..', 'bin', 'kubecred');
}
