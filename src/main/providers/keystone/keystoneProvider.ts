import { readFile } from 'node:fs/promises';
import type { ProxySettings } from '../../platform/proxyEnvironment.js';
import { homedir } from 'node:os';
import type { KeystoneProfileConfig } from '../../../shared/config/schema.js';
import type { Credential } from '../../../shared/credential.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Clock } from '../../core/clock.js';
import type { FormField, LoginUiPort } from '../../core/uiPorts.js';
import type { SecretStore } from '../../core/secretStore.js';
import type { CredentialContext, Provider, Validity } from '../provider.js';
import { authRequestBody } from './authRequest.js';
import { refusal, transportError, type Attempt } from './keystoneErrors.js';
import { resolveKeystoneSettings } from './keystoneSettings.js';
import { applyAnswers, missingFields, SECRET_FIELD } from './loginForm.js';
import { fetchHttp, nodeHttp, type KeystoneHttp } from './postJson.js';
import { validateKeystoneToken } from './tokenValidation.js';
import { readToken } from './tokenAnswer.js';
import { UserDeclined } from '../../core/userDeclined.js';

export interface KeystoneProviderDeps {
  /** The profile's secret store (password, application-credential-secret). */
  readonly store: () => Promise<SecretStore>;
  readonly ui: LoginUiPort;
  readonly clock: Clock;
  /** Replaces the HTTP transport; never used for a profile with caFile, as fetch cannot take a CA. */
  readonly fetch?: typeof fetch;
  /** The person's proxy and the machine's trusted roots (used where the profile names no caFile). */
  readonly network?: { readonly proxies: ProxySettings; readonly roots: readonly string[] };
  /** Secrets typed in a terminal for a profile's next login (the CLI asks when no window can). */
  readonly typedSecrets?: { take(profile: string): string | undefined };
}

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * OpenStack Keystone v3 tokens (the client-keystone-auth use case): password or
 * application credential, scoped as the profile says. A refused secret is never retried:
 * Keystone may lock the account after a few failures.
 */
export class KeystoneProvider implements Provider {
  readonly kind = 'keystone';
  /** Where the last token came from (the login form may name the URL), so tokens are validated there. */
  private issuer: { readonly authUrl: string; readonly caFile: string | undefined } | undefined;

  constructor(
    private readonly profile: KeystoneProfileConfig,
    private readonly deps: KeystoneProviderDeps,
  ) {}

  getCredential(context: CredentialContext): Promise<Credential> {
    return this.logIn(context, false);
  }

  /** Asks the Keystone this provider last logged in to whether it still honours the token. */
  async validate(credential: Credential, signal: AbortSignal): Promise<Validity> {
    const issuer = this.issuer;
    if (issuer === undefined || credential.token === undefined) return 'unknown';
    const http = await this.transport(issuer.caFile, this.profile.name).catch(() => undefined);
    return http ? validateKeystoneToken(http, issuer.authUrl, credential.token, signal) : 'unknown';
  }

  /** `kubecred login`: asks for the secret even when one is stored, so a changed password can be typed and remembered. */
  login(context: CredentialContext): Promise<Credential> {
    return this.logIn(context, true);
  }

  private async logIn(context: CredentialContext, askSecret: boolean): Promise<Credential> {
    const profile = context.profile;
    let settings = resolveKeystoneSettings(this.profile);
    const store = await this.deps.store();
    const field = SECRET_FIELD[settings.method];
    const typed = this.deps.typedSecrets?.take(profile);
    const stored = askSecret || typed !== undefined ? undefined : await store.get({ profile, field });
    const fromStore = stored !== undefined && stored !== '';
    let secret = typed ?? (fromStore ? stored : undefined);
    let remember = false;

    const fields = missingFields(settings, secret === undefined, store.name);
    if (fields.length > 0) {
      // A short title; where the login goes is a line of its own under it.
      const detail = settings.authUrl ? `at ${settings.authUrl}` : undefined;
      const answers = await this.askForm(
        { profile, title: 'Log in to Keystone', ...(detail ? { detail } : {}), fields },
        settings.method,
      );
      if (answers === null) {
        throw new UserDeclined(
          'locked',
          `the Keystone login for profile "${profile}" was cancelled`,
          `log in again when ready, or store the secret: kubecred secret set ${profile} ${field}`,
        );
      }
      const result = applyAnswers(profile, settings, fields, answers);
      settings = result.settings;
      if (result.secret !== undefined) {
        secret = result.secret;
        remember = result.remember;
      }
    }
    const authUrl = settings.authUrl;
    if (authUrl === undefined || secret === undefined)
      throw new BrokerError(
        'internal',
        `the Keystone login for profile "${profile}" lacks its URL or secret after the form`,
      );

    const attempt: Attempt = {
      profile,
      authUrl,
      settings,
      secretSource: fromStore ? 'store' : 'form',
      storeName: store.name,
      secret,
    };
    const http = await this.transport(settings.caFile, profile);
    const sentAt = this.deps.clock.now();
    // nocatalog: the service catalog can be hundreds of KB and Kubernetes needs none of it.
    const answer = await http
      .post(`${authUrl}/auth/tokens?nocatalog`, JSON.stringify(authRequestBody(settings, secret)), {
        signal: context.signal,
        timeoutMs: REQUEST_TIMEOUT_MS,
      })
      .catch((error: unknown) => {
        throw transportError(error, authUrl, settings.caFile);
      });
    if (answer.status < 200 || answer.status >= 300) throw refusal(answer, attempt);
    const token = readToken(answer, attempt, sentAt);
    // Only a secret Keystone accepted is remembered.
    if (remember) await store.set({ profile, field }, secret);
    this.issuer = { authUrl, caFile: settings.caFile };
    return { token: token.token, expiresAt: token.expiresAt, identity: `${authUrl} ${token.userId}` };
  }

  /**
   * The form, in a window when one can show it. With none, a form that only lacks the secret
   * can be asked in the caller's terminal: the error names the question, which the CLI asks
   * (hidden) and hands back. The rest (a URL, a user) belongs in config.yaml.
   */
  private async askForm(
    request: { profile: string; title: string; fields: FormField[] },
    method: keyof typeof SECRET_FIELD,
  ): Promise<Record<string, string> | null> {
    try {
      return await this.deps.ui.askForm(request);
    } catch (error) {
      if (!(error instanceof BrokerError) || error.code !== 'locked') throw error;
      const { profile, fields } = request;
      const what = method === 'password' ? 'password' : 'application credential secret';
      const onlySecret = fields.every((f) => f.name === SECRET_FIELD[method] || f.name === 'remember');
      if (onlySecret)
        throw new BrokerError(
          'locked',
          `profile "${profile}" needs its Keystone ${what} and there is no window to ask in`,
          `run the command in a terminal, or run: kubecred ui (a window to answer in), or store it: kubecred secret set ${profile} ${SECRET_FIELD[method]}`,
          { kind: 'login-secret', profile },
        );
      throw new BrokerError(
        'locked',
        `profile "${profile}" needs ${fields.map((f) => f.label).join(', ')} and there is no window to ask in`,
        `run: kubecred ui (a window to answer in), or set them under this profile in config.yaml`,
      );
    }
  }

  private async transport(caFile: string | undefined, profile: string): Promise<KeystoneHttp> {
    const { network } = this.deps;
    if (caFile === undefined)
      return this.deps.fetch ? fetchHttp(this.deps.fetch) : nodeHttp(network?.roots, network?.proxies);
    const path = caFile.startsWith('~/') ? `${homedir()}${caFile.slice(1)}` : caFile;
    try {
      return nodeHttp(await readFile(path, 'utf8'), network?.proxies);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable';
      throw new BrokerError(
        'config-invalid',
        `profile "${profile}": the CA bundle ${caFile} cannot be read (${code})`,
        'set caFile (or OS_CACERT) to a PEM file this user can read',
      );
    }
  }
}
