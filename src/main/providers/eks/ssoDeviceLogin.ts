import { setTimeout as wait } from 'node:timers/promises';
import { BrokerError } from '../../core/brokerError.js';
import type { Clock } from '../../core/clock.js';
import type { LoginPrompt } from '../../core/uiPorts.js';
import type { SsoClient } from './ssoClient.js';

export interface SsoSessionSettings {
  readonly startUrl: string;
  readonly region: string;
  readonly scopes: readonly string[];
}

export interface DeviceLoginDeps {
  readonly sso: SsoClient;
  readonly clock: Clock;
  /** Shows the code and page until the signal aborts; and opens the page when there is a browser. */
  readonly show: (prompt: LoginPrompt, signal: AbortSignal) => void;
  readonly openBrowser: (url: string) => Promise<boolean>;
}

export interface SsoAccessToken {
  readonly accessToken: string;
  readonly expiresAt: Date;
}

/**
 * `aws sso login` in the broker: a device authorization (RFC 8628) with IAM Identity Center,
 * the code and page shown where the caller sees them (kubectl's terminal, the window), the
 * page opened in the browser, then CreateToken polled at the pace the service asks.
 */
export async function ssoDeviceLogin(
  settings: SsoSessionSettings,
  profile: string,
  deps: DeviceLoginDeps,
  signal: AbortSignal,
): Promise<SsoAccessToken> {
  const client = await deps.sso.registerClient(settings.region, settings.scopes, signal);
  const device = await deps.sso.startDeviceAuthorization(settings.region, client, settings.startUrl, signal);
  const shown = new AbortController();
  const stopShowing = () => shown.abort();
  signal.addEventListener('abort', stopShowing, { once: true });
  try {
    deps.show(
      {
        profile,
        kind: 'device',
        userCode: device.userCode,
        verificationUri: device.verificationUri,
        ...(device.verificationUriComplete ? { verificationUriComplete: device.verificationUriComplete } : {}),
      },
      shown.signal,
    );
    void deps.openBrowser(device.verificationUriComplete ?? device.verificationUri).catch(() => false);
    const deadline = deps.clock.now() + device.expiresInSeconds * 1000;
    let interval = Math.max(1, device.intervalSeconds) * 1000;
    for (;;) {
      await wait(interval, undefined, { signal });
      const poll = await deps.sso.createToken(settings.region, client, device.deviceCode, signal);
      if (poll.kind === 'token')
        return { accessToken: poll.accessToken, expiresAt: new Date(deps.clock.now() + poll.expiresInSeconds * 1000) };
      if (poll.kind === 'slow-down') interval += 5000;
      if (deps.clock.now() >= deadline) {
        throw new BrokerError(
          'timed-out',
          `the IAM Identity Center login for ${settings.startUrl} was not approved in time (code ${device.userCode})`,
          `run kubecred login ${profile} and approve the code in the browser`,
        );
      }
    }
  } finally {
    signal.removeEventListener('abort', stopShowing);
    shown.abort();
  }
}
