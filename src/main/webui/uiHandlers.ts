import type { ServerResponse } from 'node:http';
import type { WebUiState } from '../../shared/api/webUiApi.js';
import type { UiOperation, UiParams, UiRequest, UiResponse } from '../../shared/api/uiContract.js';
import type { EventStream } from './eventStream.js';
import { proofOf } from '../../shared/api/sessionProof.js';
import { UserDeclined } from '../core/userDeclined.js';
import { HttpFailure } from './httpFailure.js';
import { SECURITY_HEADERS } from './requestGuard.js';
import type { LinkOrigin, SessionKeeper } from './sessionKeeper.js';
import type { WebUiPorts } from './webUiPorts.js';
import { ACT_WORDS, pageAsker, socketPageRefusal } from './pageGuardAsker.js';
import { profileChangeRefusal } from './profileChangeGate.js';
import type { GuardAct } from '../broker/guardControl.js';

/** One admitted call: its path parameters, its body (already checked by the operation's schema), who holds the session. */
export interface UiCall<O extends UiOperation> {
  readonly params: UiParams<O>;
  readonly body: UiRequest<O>;
  /** Who opened the session; undefined only for openSession, which needs none. */
  readonly origin: LinkOrigin | undefined;
  readonly authorization: string | undefined;
  /** The session's key and the page's challenge, for the event stream's proof (sessionProof.ts). */
  readonly proof: { readonly key: string | undefined; readonly challenge: string | undefined };
  readonly response: ServerResponse;
}

/** What a handler answers: a status and the body its operation promises, or STREAMED when it wrote the answer itself. */
export type UiAnswer<O extends UiOperation> =
  { readonly status: number; readonly body: UiResponse<O> } | typeof STREAMED;
export const STREAMED = Symbol('streamed');

/** A handler for every operation of the contract: a missing one does not compile. */
export type UiHandlers = { readonly [O in UiOperation]: (call: UiCall<O>) => Promise<UiAnswer<O>> };

export interface HandlerDeps {
  readonly ports: WebUiPorts;
  readonly sessions: SessionKeeper;
  readonly stream: EventStream;
  readonly snapshot: () => Promise<WebUiState>;
  /** The last failure of a login started from a page, by profile. */
  readonly loginErrors: Map<string, string>;
  readonly log: (line: string) => void;
}

const ok = <T>(body: T, status = 200) => ({ status, body });

/** What the broker does for each operation of the UI contract. */
export function uiHandlers({ ports, sessions, stream, snapshot, loginErrors, log }: HandlerDeps): UiHandlers {
  const importer = () => {
    if (!ports.kubeconfigImport)
      throw new HttpFailure(
        404,
        'not-found',
        'this shell cannot import kubeconfigs',
        'run kubecred import in a terminal',
      );
    return ports.kubeconfigImport;
  };
  // A change made here shows on every page at once, not at the next poll.
  const changed = <T>(value: T): T => (stream.changed(), value);
  // A page that may not be the person is refused a guard's lift, change or removal; the attempt
  // is in the audit trail, naming the program that asked for the page's link.
  const refuseSocketPage = async (origin: LinkOrigin | undefined, profile: string, act: GuardAct) => {
    const refusal = socketPageRefusal(origin, profile, act);
    if (!refusal) return;
    log(
      `web UI: refused to ${ACT_WORDS[act]} ${profile} for a session opened from the link of ${origin?.label ?? 'nobody'}`,
    );
    await ports.guardRefused?.(profile, act, pageAsker(origin), refusal.message);
    throw refusal;
  };
  return {
    openSession: async ({ body }) => {
      const session = sessions.exchange(body.token);
      if (!session)
        throw new HttpFailure(
          401,
          'unauthorized',
          'this link was used already or has expired',
          'run kubecred ui for a new link',
        );
      log(`web UI: a session opened from the link of ${session.origin.label}`);
      return ok({
        session: session.secret,
        proofKey: session.proofKey,
        sessionId: session.id,
        mayAllow: !session.origin.overSocket,
      });
    },
    proveSession: async ({ body }) => {
      const key = sessions.proofKeyOf(body.sessionId);
      if (!key)
        throw new HttpFailure(401, 'unauthorized', "this page's session has ended", 'run kubecred ui for a new link');
      return ok({ proof: await proofOf(key, body.challenge) });
    },
    endSession: async ({ authorization }) => (sessions.end(authorization), ok({})),
    state: async () => ok(await snapshot()),
    events: async ({ response, authorization, proof, origin }) => {
      // A page that sent no challenge (a tray window: its shell holds the session) gets no proof.
      const first = proof.key && proof.challenge ? await proofOf(proof.key, proof.challenge) : undefined;
      const lives = () => sessions.admit(authorization) !== undefined;
      stream.add(response, SECURITY_HEADERS, lives, first, !origin?.overSocket);
      return STREAMED;
    },
    login: async ({ params: { profile } }) => {
      // A login can wait minutes on the user's browser; the page follows it on the stream,
      // and its failure goes there too: a click that ends in silence looks like a broken button.
      loginErrors.delete(profile);
      Promise.resolve()
        .then(() => ports.login(profile))
        .then(
          () => stream.changed(),
          (error: Error & { hint?: string }) => {
            log(`web UI: login of ${profile} failed: ${error.message}`);
            // A Cancel is the person's own act: the profile shows signed out, with Log in beside it.
            if (!(error instanceof UserDeclined))
              loginErrors.set(profile, error.hint ? `${error.message}: ${error.hint}` : error.message);
            stream.changed();
          },
        );
      return changed(ok({}, 202));
    },
    logout: async ({ params: { profile } }) => (await ports.logout(profile), changed(ok({}))),
    // The login's own failure (cancelled) reaches the page on the stream, like any outcome.
    cancelLogin: async ({ params: { profile } }) => (await ports.cancelLogin(profile), changed(ok({}))),
    answer: async ({ params: { prompt: id }, body: answer, origin }) => {
      if (answer.kind === 'approval' && answer.allow && origin?.overSocket)
        throw new HttpFailure(
          403,
          'denied',
          'a page opened through the socket (kubecred ui, or any other program) can deny an approval but not allow it: any program of yours could have opened it',
          'allow it in the page Kubecred opened in your browser for this approval, or in its tray window',
        );
      if (!ports.prompts.answer(id, answer))
        throw new HttpFailure(404, 'not-found', 'that question was answered or timed out');
      if (answer.kind === 'approval')
        log(
          `web UI: approval ${answer.allow ? 'given' : 'refused'} in a session opened from the link of ${origin?.label ?? 'nobody'}`,
        );
      return ok({});
    },
    addProfile: async ({ body }) => (await ports.addProfile(body), changed(ok({}, 201))),
    removeProfile: async ({ params: { profile } }) => (await ports.removeProfile(profile), changed(ok({}))),
    profileConfig: async ({ params: { profile } }) => ok({ profile: await ports.profileConfig(profile) }),
    turnOnProxy: async ({ params: { profile } }) => {
      if (!ports.turnOnProxy) throw new HttpFailure(404, 'not-found', 'this broker cannot run the exec proxy');
      const turnedOn = await ports.turnOnProxy(profile);
      log(`web UI: exec proxy turned on for ${profile}`);
      return changed(ok(turnedOn));
    },
    installProfile: async ({ params: { profile }, body: { context } }) => {
      const installed = await ports.installProfile(profile, context);
      log(`web UI: user ${installed.user} of context ${context} now calls profile ${profile}`);
      return changed(ok(installed));
    },
    guard: async ({ params: { profile }, body, origin }) => {
      if (!ports.guard) throw new HttpFailure(404, 'not-found', 'this broker runs no exec proxy, so no guard');
      // Putting it back only tightens; a lift is the person's, like an approval's Allow.
      if (body.off) await refuseSocketPage(origin, profile, 'lift');
      const state = await ports.guard(profile, body, pageAsker(origin));
      log(
        body.off
          ? `web UI: guard of ${profile} lifted for ${body.forSeconds} s`
          : `web UI: guard of ${profile} put back`,
      );
      return changed(ok(state));
    },
    // New rules may loosen a guard and null takes it away: the person's act, as a lift is.
    setGuard: async ({ params: { profile }, body: { rules }, origin }) => {
      if (!ports.setGuard) throw new HttpFailure(404, 'not-found', 'this broker runs no exec proxy, so no guard');
      await refuseSocketPage(origin, profile, rules ? 'change' : 'remove');
      await ports.setGuard(profile, rules ? { rules } : null, pageAsker(origin));
      log(
        rules
          ? `web UI: guard of ${profile} set to ${rules.length} rule${rules.length === 1 ? '' : 's'}`
          : `web UI: guard of ${profile} removed`,
      );
      return changed(ok({}));
    },
    profileCertificate: async ({ params: { profile } }) =>
      ok({ certificate: (await ports.profileCertificate?.(profile)) ?? null }),
    updateProfile: async ({ params: { profile }, body, origin }) => {
      // What approval asks now decides whether a page opened through the socket lowers it.
      const approval = 'approval' in body ? String((await ports.profileConfig(profile)).approval ?? 'never') : 'never';
      const refusal = profileChangeRefusal(origin, { name: profile, approval }, body);
      if (refusal) {
        log(
          `web UI: refused a change of ${profile} (${Object.keys(body).join(', ')}) from the link of ${origin?.label ?? 'nobody'}`,
        );
        throw refusal;
      }
      await ports.updateProfile(profile, body);
      return changed(ok({}));
    },
    storeSecret: async ({ params: { profile, field }, body }) => {
      await ports.storeSecret(profile, field, body.value);
      log(`web UI: stored ${profile}/${field}`);
      return changed(ok({}));
    },
    auditLog: async () => ok({ records: await ports.auditLog() }),
    registryLogin: async ({ body }) => {
      if (!ports.registryLogin) throw new HttpFailure(404, 'not-found', 'this broker serves no image registries');
      const { registry } = await ports.registryLogin(body);
      log(`web UI: stored a login for registry ${registry}`);
      return changed(ok({}));
    },
    tokens: async () => ok({ tokens: await ports.tokens() }),
    updateToken: async ({ params: { token }, body }) => (await ports.updateToken(token, body), ok({})),
    preferences: async () => ok(await ports.preferences()),
    setStartAtLogin: async ({ body }) => (await ports.setStartAtLogin(body.enabled), ok({})),
    importPreview: async () => ok(await importer().preview()),
    importKubeconfig: async ({ body }) => changed(ok(await importer().apply(body))),
    undoImport: async () => changed(ok(await importer().undo())),
    kubeconfigContexts: async () => ok({ contexts: (await ports.kubeconfigContexts?.()) ?? [] }),
    // Like a login, it waits minutes on someone (the PIN, the admin): the page follows it on the stream.
    enrollProfile: async ({ body, origin }) => {
      if (!ports.enrollProfile)
        throw new HttpFailure(
          404,
          'not-found',
          'this shell cannot enroll a hardware key',
          'run kubecred enroll in a terminal',
        );
      // While the PIN is kept, an enrollment asks nothing: it makes a key and sends a request
      // with the subject given. Only the person's own page may start one, as with an Allow.
      if (origin?.overSocket)
        throw new HttpFailure(
          403,
          'denied',
          'a page opened through the socket (kubecred ui, or any other program) cannot start an enrollment: any program of yours could have opened it',
          'enroll in the tray window or the page Kubecred opened itself, or run kubecred enroll in a terminal',
        );
      await ports.enrollProfile(body);
      log(`web UI: enrollment of ${body.profile} started`);
      return changed(ok({ started: true as const }, 202));
    },
  };
}
