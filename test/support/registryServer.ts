import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from './run.js';
import { freePort } from '../../src/main/platform/freePort.js';

export interface TestRegistry {
  /** host:port, as image references and credHelpers name it. */
  readonly host: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/**
 * Debian's docker-registry (the CNCF distribution registry) on loopback with htpasswd
 * (bcrypt) auth. The password goes to htpasswd on stdin: only its hash is written.
 */
export async function startTestRegistry(dir: string, user: string, password: string): Promise<TestRegistry> {
  await mkdir(dir, { recursive: true });
  const hashed = await run('htpasswd', ['-niB', user], { input: password });
  if (hashed.code !== 0) throw new Error(`htpasswd failed: ${hashed.stderr}`);
  await writeFile(path.join(dir, 'htpasswd'), hashed.stdout.trim() + '\n');
  const port = await freePort();
  const config = [
    'version: 0.1',
    'log: { level: warn }',
    `storage: { filesystem: { rootdirectory: ${path.join(dir, 'data')} } }`,
    `http: { addr: "127.0.0.1:${port}", secret: ${randomBytes(16).toString('hex')} }`,
    `auth: { htpasswd: { realm: kubecred-test, path: ${path.join(dir, 'htpasswd')} } }`,
  ].join('\n');
  await writeFile(path.join(dir, 'config.yml'), config);
  const child = spawn('docker-registry', ['serve', path.join(dir, 'config.yml')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`docker-registry did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    host: `127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A one-layer OCI image layout made by hand (oci-layout, index.json, blobs), for
 * `skopeo copy oci:<dir>:<tag>`. Returns the manifest digest.
 */
export async function writeOciLayout(dir: string, tag: string, scratch: string): Promise<string> {
  const blobs = path.join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  await mkdir(path.join(scratch, 'layer'), { recursive: true });
  await writeFile(path.join(scratch, 'layer', 'hello.txt'), 'hello from kubecred\n');
  const tarred = await run('tar', [
    '-C',
    path.join(scratch, 'layer'),
    '-cf',
    path.join(scratch, 'layer.tar'),
    'hello.txt',
  ]);
  if (tarred.code !== 0) throw new Error(`tar failed: ${tarred.stderr}`);
  const blob = async (bytes: Buffer) => {
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    await writeFile(path.join(blobs, digest.slice(7)), bytes);
    return { digest, size: bytes.length };
  };
  const layer = await blob(await readFile(path.join(scratch, 'layer.tar')));
  const config = await blob(
    Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: {},
        rootfs: { type: 'layers', diff_ids: [layer.digest] },
      }),
    ),
  );
  const manifest = await blob(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...layer }],
      }),
    ),
  );
  await writeFile(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          ...manifest,
          annotations: { 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
  return manifest.digest;
}

async function answers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/v2/`);
    return true;
  } catch {
    return false;
  }
}
