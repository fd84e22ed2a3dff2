import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { BrokerServices } from '../../../src/main/broker/brokerServices.js';
import type { GuardAsker } from '../../../src/main/broker/guardControl.js';
import type { PeerCredentialReader } from '../../../src/main/platform/peerCredentials.js';
import type { PipeCallerVerifier } from '../../../src/main/platform/pipeCaller.js';
import { guardHandler, type GuardCallerSources } from '../../../src/main/server/guardHandler.js';

const NODE = '/usr/bin/node';
const socket = {} as Socket;

/** The handler on a fake socket whose peer is `pid` (or none), and a GuardControl that records who asked. */
function handlerFor(peer: { pid: number; path: string; inTerminal: boolean } | undefined) {
  const askers: [string, GuardAsker][] = [];
  const guards = {
    off: async (_profile: string, _ms: number, asker: GuardAsker) => (
      askers.push(['off', asker]),
      { profile: 'prod', rules: 1, offUntil: null }
    ),
    on: async (_profile: string, asker: GuardAsker) => (
      askers.push(['on', asker]),
      { profile: 'prod', rules: 1, offUntil: null }
    ),
  } as unknown as BrokerServices['guards'];
  const peers = {
    available: true,
    of: () => (peer ? { pid: peer.pid, uid: 1000 } : undefined),
    lineageAtConnect: () => (peer ? { parentPid: 1, startTime: '777' } : undefined),
  } as unknown as PeerCredentialReader;
  const terminalsAsked: [number, string | undefined][] = [];
  const sources: GuardCallerSources = {
    witnesses: { peers, pipes: { available: false } as unknown as PipeCallerVerifier },
    callers: { describe: async (pid) => ({ pid, name: peer!.path.split('/').pop()!, path: peer!.path }) },
    inTerminal: (pid, startTime) => (terminalsAsked.push([pid, startTime]), peer?.inTerminal ?? false),
    cliRuntime: NODE,
  };
  const handler = guardHandler(guards, sources, { logins: { list: () => [], onChange: () => () => undefined } });
  const call = async (body: { off: true; forSeconds: number } | { off: false }) => {
    const response = {
      setHeader: () => undefined,
      end: () => undefined,
      headersSent: false,
    } as unknown as ServerResponse;
    await handler({ params: { profile: 'prod' }, body, request: { socket, headers: {} } as IncomingMessage, response });
  };
  return { askers, call, terminalsAsked };
}

// Issue 41 item 2: over the socket, only Kubecred's CLI in the foreground of a terminal (as the
// kernel says, at connect) lifts at once; everyone else is the person's to allow.
describe('who lifts a guard over the socket', () => {
  it("Kubecred's CLI in the foreground of a terminal lifts as the person, named by the kernel", async () => {
    const { askers, call, terminalsAsked } = handlerFor({ pid: 4242, path: NODE, inTerminal: true });
    await call({ off: true, forSeconds: 900 });
    expect(askers).toEqual([
      ['off', { caller: { pid: 4242, name: 'node', path: NODE }, client: 'cli-terminal', byThePerson: true }],
    ]);
    // The start time read at connect, so a reused pid vouches for nothing.
    expect(terminalsAsked).toEqual([[4242, '777']]);
  });

  it.each([
    ['a program with no terminal', { pid: 666, path: NODE, inTerminal: false }],
    [
      'another program in a terminal (curl, an ssh forwarding the socket)',
      { pid: 667, path: '/usr/bin/ssh', inTerminal: true },
    ],
  ])('%s is not the person: the person is asked', async (_case, peer) => {
    const { askers, call } = handlerFor(peer);
    await call({ off: true, forSeconds: 900 });
    expect(askers).toEqual([['off', expect.objectContaining({ client: 'socket', byThePerson: false })]]);
    expect(askers[0]![1].caller).toMatchObject({ pid: peer.pid, path: peer.path });
  });

  it('a peer the kernel cannot name is not the person either', async () => {
    const { askers, call } = handlerFor(undefined);
    await call({ off: true, forSeconds: 900 });
    expect(askers).toEqual([['off', { caller: {}, client: 'socket', byThePerson: false }]]);
  });

  it('putting a guard back goes through for anyone, named all the same', async () => {
    const { askers, call } = handlerFor({ pid: 666, path: '/usr/bin/curl', inTerminal: false });
    await call({ off: false });
    expect(askers).toEqual([['on', expect.objectContaining({ caller: expect.objectContaining({ pid: 666 }) })]]);
  });
});
