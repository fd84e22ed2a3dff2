import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BROKER_OPERATIONS,
  brokerPath,
  type BrokerOperation,
  type BrokerParams,
} from '../../../src/shared/api/routes.js';
import { operationRoute } from '../../../src/main/server/route.js';

const SRC = path.join(import.meta.dirname, '..', '..', '..', 'src');
const OPERATIONS = Object.keys(BROKER_OPERATIONS) as BrokerOperation[];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && /\.tsx?$/.test(e.name)).map((e) => path.join(e.parentPath, e.name));
}

/** The groups the server's route of the operation takes from a path, decoded; undefined when it does not match. */
function matched(operation: BrokerOperation, sent: string): string[] | undefined {
  return operationRoute(operation, async () => {})
    .pattern.exec(sent)
    ?.slice(1)
    .map(decodeURIComponent);
}

describe("the broker API's paths: one source", () => {
  it('each builder makes a path its server pattern matches, names decoded back as given', () => {
    const name = 'team a/b%';
    for (const operation of ['storeSecret', 'deleteSecret'] as const)
      expect(matched(operation, brokerPath(operation, { profile: name, field: 'token' }))).toEqual([name, 'token']);
    expect(matched('listSecrets', brokerPath('listSecrets', { profile: name }))).toEqual([name]);
    for (const operation of ['login', 'logout', 'refresh', 'mfaCode', 'loginSecret'] as const)
      expect(matched(operation, brokerPath(operation, { profile: name }))).toEqual([name]);
    for (const operation of ['tokenLogin', 'tokenLogout'] as const)
      expect(matched(operation, brokerPath(operation, { token: name }))).toEqual([name]);
    for (const fixed of ['unlock', 'lock', 'tokens', 'stop', 'webUiLink'] as const)
      expect(matched(fixed, brokerPath(fixed, {}))).toEqual([]);
  });

  it("every operation's method and path are its own: no other operation's route takes its filled-in path", () => {
    for (const operation of OPERATIONS) {
      const { method, path: template } = BROKER_OPERATIONS[operation];
      const params = Object.fromEntries([...template.matchAll(/:([a-z]+)/g)].map(([, name]) => [name!, 'x']));
      const filled = brokerPath(operation, params as BrokerParams<typeof operation>);
      const takers = OPERATIONS.filter(
        (other) => BROKER_OPERATIONS[other].method === method && matched(other, filled) !== undefined,
      );
      expect(takers).toEqual([operation]);
    }
  });

  it('no other file of src spells a /v1 path', async () => {
    const spelled: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      if (file.endsWith(path.join('shared', 'api', 'routes.ts'))) continue;
      const text = await readFile(file, 'utf8');
      // Quoted, templated or in a regular expression; comments may name a route.
      const code = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
      if (/['"`]\/v1\/|\\\/v1\\\//.test(code)) spelled.push(path.relative(SRC, file));
    }
    expect(spelled).toEqual([]);
  });
});
