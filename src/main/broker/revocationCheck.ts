import type { ClusterInfo } from '../../shared/execCredential.js';
import type { Clock } from './clock.js';

/** Asks the cluster whether it still accepts a bearer token: true only on a clear 401. */
export interface ClusterProbe {
  rejects(cluster: ClusterInfo, token: string): Promise<boolean>;
}

/** A repeat ask within this window is what client-go does after a 401 (and, in kubectl 1.33, on every command). */
const REPEAT_WINDOW_MS = 10_000;
/** However often it is asked, a profile's credential is probed at most this often. */
const PROBE_INTERVAL_MS = 5_000;

/**
 * Finds cached tokens the cluster no longer accepts (revoked at the issuer, Keystone or the
 * plugin's backend) without the user logging out. client-go tells a plugin nothing about a
 * 401; it only runs it again. So when the same process asks again for a credential it was just
 * served, the cluster is asked, in the background, whether it accepts that token (one
 * GET /version, at most every few seconds per profile); a 401 drops the cached credential, so
 * client-go's own retry, or the next command, gets a fresh one. A first ask is never probed,
 * and no request waits on a probe.
 */
export class RevocationCheck {
  private readonly served = new Map<string, number>();
  private readonly probed = new Map<string, number>();

  constructor(
    private readonly probe: ClusterProbe,
    private readonly clock: Clock,
  ) {}

  /** Called for every answer; only one from the cache can be stale. `drop` forgets the profile's cached credentials. */
  afterServe(answer: { profile: string; callerPid: number | undefined; cluster: ClusterInfo | undefined; token: string | undefined; fromCache: boolean }, drop: () => void): void {
    const { profile, callerPid, cluster, token } = answer;
    const now = this.clock.now();
    this.prune(now);
    if (callerPid === undefined || !cluster?.server || token === undefined) return;
    const key = `${profile}\u0000${callerPid}`;
    const repeat = this.served.has(key);
    this.served.set(key, now);
    if (!answer.fromCache || !repeat || now - (this.probed.get(profile) ?? -Infinity) < PROBE_INTERVAL_MS) return;
    this.probed.set(profile, now);
    void this.probe.rejects(cluster, token).then(
      (rejected) => rejected && drop(),
      () => undefined,
    );
  }

  private prune(now: number): void {
    for (const [key, at] of this.served) if (now - at > REPEAT_WINDOW_MS) this.served.delete(key);
  }
}
