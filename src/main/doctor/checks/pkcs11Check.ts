import type { TokenConfig } from '../../../shared/config/schema.js';
import { fail, ok, warn, type Check, type Finding } from '../finding.js';
import type { ProbeOutcome } from '../probes/probeOutcome.js';

export interface Pkcs11CheckDeps {
  readonly tokens: readonly TokenConfig[];
  readonly exists: (file: string) => Promise<boolean>;
  readonly probe: (token: TokenConfig) => Promise<ProbeOutcome>;
  /** Which tokens the running broker sees, by name; undefined when none runs. */
  readonly brokerSees?: () => Promise<ReadonlyMap<string, boolean> | undefined>;
}

/**
 * Each configured token's module exists, loads and starts (C_Initialize). A token that is
 * simply not plugged in is a warning: that is how hardware tokens spend most of their day.
 */
export function pkcs11Check(deps: Pkcs11CheckDeps): Check {
  return {
    name: 'pkcs11',
    async run() {
      if (deps.tokens.length === 0) return [ok('PKCS#11 tokens', 'none configured')];
      const findings: Finding[] = [];
      let brokerSees: ReadonlyMap<string, boolean> | undefined | null = null;
      for (const token of deps.tokens) {
        const finding = await checkToken(token, deps);
        findings.push(finding);
        if (finding.status !== 'ok') continue;
        brokerSees ??= (await deps.brokerSees?.()) ?? undefined;
        if (brokerSees?.get(token.name) === false) findings.push(unseenByBroker(token));
      }
      return findings;
    },
  };
}

/** This shell sees the token and the broker does not: it was started with another module configuration. */
function unseenByBroker(token: TokenConfig): Finding {
  return fail(
    `token "${token.name}"`,
    'this shell sees it, but the running broker does not (it says: not present); the broker was most likely started with another SOFTHSM2_CONF or OPENSC_CONF than this shell',
    'restart the broker from this shell so it gets the same: kubecred restart',
  );
}

async function checkToken(token: TokenConfig, deps: Pkcs11CheckDeps): Promise<Finding> {
  const title = `token "${token.name}"`;
  const fixModule = `install the token's middleware (OpenSC, the vendor's driver, SoftHSM), or fix tokens[].module for "${token.name}" in config.yaml`;
  if (!(await deps.exists(token.module)))
    return fail(title, `the PKCS#11 module ${token.module} does not exist`, fixModule);
  const outcome = await deps.probe(token);
  if (!outcome.ok) return fail(title, outcome.detail, outcome.fix ?? fixModule);
  if (outcome.tokenPresent === false) {
    const wanted = token.label !== undefined ? `label "${token.label}"` : `serial ${token.serial ?? ''}`;
    return warn(
      title,
      `${outcome.detail}, but no token with ${wanted} is present`,
      'plug the token in (or check label/serial in config.yaml against kubecred token list)',
    );
  }
  return ok(title, `${token.module}: ${outcome.detail}`);
}
