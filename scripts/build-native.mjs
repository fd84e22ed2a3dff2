#!/usr/bin/env node
// Builds Kubecred's one native piece, the peer-credentials addon (src/main/platform/native),
// into dist/native/<platform>-<arch>/peer_credentials.node for this machine. It uses Node-API
// only, so the same file loads in Node and in Electron. No C compiler: the broker still runs and
// says in prompts that the caller's pid is unverified.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const source = join(root, 'src', 'main', 'platform', 'native', 'peer_credentials.c');
const outDir = join(root, 'dist', 'native', `${process.platform}-${process.arch}`);
const out = join(outDir, 'peer_credentials.node');

const headers = createRequire(import.meta.url).resolve('node-api-headers/package.json');
const include = join(dirname(headers), 'include');

// Windows' addon (the caller of a named pipe), cross-built with mingw-w64 wherever it is
// installed: it looks Node-API up in the host process, so one build serves node.exe and Electron.
const mingw = 'x86_64-w64-mingw32-gcc';
if (spawnSync(mingw, ['--version']).status === 0) {
  const windowsDir = join(root, 'dist', 'native', 'win32-x64');
  mkdirSync(windowsDir, { recursive: true });
  const built = spawnSync(
    mingw,
    [
      '-O2',
      '-Wall',
      '-Werror',
      '-shared',
      '-s',
      '-DNAPI_VERSION=8',
      `-I${include}`,
      '-o',
      join(windowsDir, 'pipe_client.node'),
      join(root, 'src', 'main', 'platform', 'native', 'pipe_client_windows.c'),
      '-ladvapi32',
    ],
    { stdio: 'inherit' },
  );
  if (built.status !== 0) {
    console.error(`build-native: ${mingw} failed to build the Windows pipe-caller addon (exit ${built.status})`);
    process.exit(1);
  }
}

if (process.platform !== 'linux' && process.platform !== 'darwin') {
  console.error(`build-native: no peer-credentials addon for ${process.platform}; callers stay unverified there`);
  process.exit(0);
}
const compiler = process.env.CC || 'cc';
// Node-API symbols come from the host process at load time.
const linkFlags = process.platform === 'darwin' ? ['-bundle', '-undefined', 'dynamic_lookup'] : ['-shared'];
mkdirSync(outDir, { recursive: true });
rmSync(out, { force: true });
const result = spawnSync(
  compiler,
  ['-O2', '-fPIC', '-Wall', '-Werror', '-DNAPI_VERSION=8', `-I${include}`, ...linkFlags, '-o', out, source],
  { stdio: 'inherit' },
);
if (result.error || result.status !== 0) {
  console.error(
    `build-native: ${compiler} failed (${result.error?.message ?? `exit ${result.status}`}); install a C compiler (Debian: gcc)`,
  );
  process.exit(1);
}
