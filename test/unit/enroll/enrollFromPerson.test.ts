import { describe, expect, it } from 'vitest';
import type { EnrollRequest } from '../../../src/shared/api/webUiApi.js';
import { HttpFailure } from '../../../src/main/webui/httpFailure.js';
import type { LinkOrigin } from '../../../src/main/webui/sessionKeeper.js';
import { uiHandlers, type HandlerDeps, type UiCall } from '../../../src/main/webui/uiHandlers.js';

// D8: while the token's PIN is kept, an enrollment asks the person nothing: it makes a key and
// sends a request with the subject the page gave. So only the person's own pages (the tray's
// windows, a page the broker opened) start one; a session any program could mint over the
// socket is refused, as it is for an Allow.

const REQUEST: EnrollRequest = {
  profile: 'mallory',
  context: 'real-apiserver',
  token: 'hsm',
  user: 'cluster-ops',
  groups: ['platform-admins'],
  keyType: 'ec-p256',
};

function handlersWith(started: EnrollRequest[]) {
  const deps = {
    ports: { enrollProfile: async (request: EnrollRequest) => void started.push(request) },
    stream: { changed: () => {} },
    log: () => {},
  } as unknown as HandlerDeps;
  return uiHandlers(deps);
}

const call = (origin: LinkOrigin) =>
  ({ params: {}, body: REQUEST, origin, authorization: 'Bearer x', proof: {} }) as unknown as UiCall<'enrollProfile'>;

describe('who may start an enrollment from the web UI', () => {
  it('a session minted over the socket is refused with 403, saying where to enroll instead', async () => {
    const started: EnrollRequest[] = [];
    const refusal = await handlersWith(started)
      .enrollProfile(call({ label: 'a client of the socket (pid 4242)', overSocket: true }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refusal).toBeInstanceOf(HttpFailure);
    const failure = refusal as HttpFailure;
    expect(failure.status).toBe(403);
    expect(failure.message).toBe(
      'a page opened through the socket (kubecred ui, or any other program) cannot start an enrollment: any program of yours could have opened it',
    );
    expect(failure.hint).toContain('run kubecred enroll in a terminal');
    expect(started).toEqual([]);
  });

  it('the tray window or a page the broker opened starts it', async () => {
    const started: EnrollRequest[] = [];
    const answer = await handlersWith(started).enrollProfile(call({ label: 'the tray' }));
    expect(answer).toMatchObject({ status: 202, body: { started: true } });
    expect(started).toEqual([REQUEST]);
  });
});
