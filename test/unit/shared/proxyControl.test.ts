import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  BROKER_REQUESTS,
  PROXY_EVENTS,
  PROXY_REQUESTS,
  eventEnvelope,
  replyEnvelope,
  requestEnvelope,
} from '../../../src/shared/api/proxyControl.js';
import { REPO_ROOT } from '../../support/repo.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'proxy-control');

/** The schema an example is held to, by its name: <direction>.<type>.<request|reply>[.<variant>]. */
function schemaOf(name: string): z.ZodType | undefined {
  const [direction, type, part] = name.split('.');
  if (direction === 'envelope')
    return { request: requestEnvelope, reply: replyEnvelope, event: eventEnvelope }[type!] as z.ZodType | undefined;
  if (direction === 'event') return PROXY_EVENTS[type as keyof typeof PROXY_EVENTS];
  const table: Record<string, { request: z.ZodType; reply: z.ZodType }> =
    direction === 'broker' ? BROKER_REQUESTS : direction === 'proxy' ? PROXY_REQUESTS : {};
  const exchange = table[type!];
  return exchange && (part === 'request' || part === 'reply') ? exchange[part] : undefined;
}

/** Every key path of a JSON value: a.b, a.list[].c; a record's keys count as fields too. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keyPaths(item, `${prefix}[]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [`${prefix}${key}`, ...keyPaths(inner, `${prefix}${key}.`)]);
}

const examples = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

// Issue 41, item 4: the messages between the broker and kubecred-proxy are declared once
// (src/shared/api/proxyControl.ts), and the Go side is held to the same examples
// (channelmessages_test.go). A field the broker's schema does not know fails here.
describe("kubecred-proxy's control channel: one table, held to the shared examples", () => {
  it('has an example of every message and reply, and a message for every example', () => {
    const declared = [
      ...Object.keys(BROKER_REQUESTS).flatMap((type) => [`broker.${type}.request`, `broker.${type}.reply`]),
      ...Object.keys(PROXY_REQUESTS).flatMap((type) => [`proxy.${type}.request`, `proxy.${type}.reply`]),
      ...Object.keys(PROXY_EVENTS).map((type) => `event.${type}`),
      'envelope.request',
      'envelope.reply',
      'envelope.event',
    ].sort();
    // A variant (broker.init.request.new-ca) covers its message too.
    const covered = new Set(
      examples.map((name) => {
        const parts = name.split('.');
        return parts.slice(0, parts[0] === 'event' || parts[0] === 'envelope' ? 2 : 3).join('.');
      }),
    );
    expect(declared.filter((name) => !covered.has(name))).toEqual([]);
    expect(examples.filter((name) => schemaOf(name) === undefined)).toEqual([]);
  });

  it.each(examples)('%s parses, and the schema keeps every field of it', (name) => {
    const example: unknown = JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8'));
    const parsed = schemaOf(name)!.safeParse(example);
    expect(parsed.error?.issues ?? []).toEqual([]);
    // z.object drops what it does not declare: a key lost here is a field the broker never reads.
    expect(keyPaths(parsed.data).sort()).toEqual(keyPaths(example).sort());
  });
});
