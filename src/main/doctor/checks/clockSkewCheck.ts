import type { Clock } from '../../core/clock.js';
import { ok, warn, type Check, type Finding } from '../finding.js';

export interface IssuerToProbe {
  readonly issuer: string;
  readonly caFile?: string;
  /** The profiles that use it, to name in the finding. */
  readonly profiles: readonly string[];
}

/** The issuer's HTTP Date header, or undefined when it sends none; throws when unreachable. */
export type DateOfIssuer = (url: string, caFile: string | undefined) => Promise<string | undefined>;

/** Beyond this an ID token can be "not yet valid" or already expired to the API server. */
export const MAX_SKEW_MS = 30_000;

/** The local clock against each OIDC issuer's, from the Date header of its discovery document. */
export function clockSkewCheck(issuers: readonly IssuerToProbe[], dateOf: DateOfIssuer, clock: Clock): Check {
  return {
    name: 'clock',
    onTimeout: {
      status: 'warn',
      fix: 'an OIDC issuer did not answer: check the network (VPN, proxy) and the issuer URL',
    },
    async run() {
      if (issuers.length === 0) return [ok('clock', 'no OIDC profile to compare against')];
      return Promise.all(issuers.map((issuer) => compare(issuer, dateOf, clock)));
    },
  };
}

async function compare(
  { issuer, caFile, profiles }: IssuerToProbe,
  dateOf: DateOfIssuer,
  clock: Clock,
): Promise<Finding> {
  const url = discoveryUrl(issuer);
  const title = `issuer ${issuer} (${profiles.join(', ')})`;
  let header: string | undefined;
  try {
    header = await dateOf(url, caFile);
  } catch (error) {
    return warn(
      title,
      `unreachable: ${url}: ${(error as Error).message}`,
      `check the network (VPN, proxy), the issuer URL${caFile ? ` and caFile ${caFile}` : ''}; logins to it will fail until it answers`,
    );
  }
  const theirs = header === undefined ? Number.NaN : Date.parse(header);
  if (Number.isNaN(theirs))
    return ok(title, 'reachable; it sends no usable Date header, so the clocks were not compared');
  const skewMs = clock.now() - theirs;
  const seconds = Math.round(Math.abs(skewMs) / 1000);
  if (Math.abs(skewMs) <= MAX_SKEW_MS) return ok(title, `reachable; clocks agree within ${Math.max(seconds, 1)} s`);
  const direction = skewMs > 0 ? 'ahead of' : 'behind';
  return warn(
    title,
    `this machine's clock is ${seconds} s ${direction} the issuer's; ID tokens may be rejected as expired or not yet valid`,
    'sync the clock with NTP (timedatectl set-ntp true, or the OS date and time settings)',
  );
}

export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}
