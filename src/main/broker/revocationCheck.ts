import type { ClusterInfo } from '../../shared/execCredential.js';
import type { Clock } from '../core/clock.js';
import type { ClusterProbe } from '../core/ports.js';
import { RepeatAsks } from './repeatAsks.js';

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
  private readonly asks: RepeatAsks;

  constructor(
    private readonly probe: ClusterProbe,
    clock: Clock,
  ) {
    this.asks = new RepeatAsks(clock);
  }

  /** Called for every answer; only one from the cache can be stale. `drop` forgets the profile's cached credentials. */
  afterServe(
    answer: {
      profile: string;
      callerPid: number | undefined;
      cluster: ClusterInfo | undefined;
      token: string | undefined;
      fromCache: boolean;
    },
    drop: () => void,
  ): void {
    const { profile, callerPid, cluster, token, fromCache } = answer;
    if (callerPid === undefined || !cluster?.server || token === undefined) return;
    if (!this.asks.due({ profile, callerPid, fromCache })) return;
    void this.probe.rejects(cluster, token).then(
      (rejected) => rejected && drop(),
      () => undefined,
    );
  }
}
