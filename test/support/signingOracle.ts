// Builds and runs test/clients/signingoracle: the attack of security review 3, C3 (ii), a
// program on kubecred-proxy's borrowed control channel asking the broker to sign its own
// handshakes (see its main.go).
import { join } from 'node:path';
import { findGo } from './clientGo.js';
import { REPO_ROOT } from './repo.js';
import { run } from './run.js';

export interface OracleResult {
  /** What the server answered, when the handshake got through. */
  readonly status?: number;
  readonly body?: string;
  readonly error?: string;
  /** The broker's words when it refused to sign. */
  readonly refusal?: string;
}

export interface OracleAttack {
  readonly pid: number;
  readonly profile: string;
  /** The token's certificate: public, read off the token without a PIN. */
  readonly certFile: string;
  /** The CA of the server at `url`. */
  readonly caFile: string;
  readonly url: string;
  readonly tls12?: boolean;
  /** The profile's cluster and its CA: take a genuine handshake from it to lie with. */
  readonly evidenceFrom?: { readonly url: string; readonly caFile: string };
}

/** Builds the oracle into `dir` and returns a way to run it. */
export async function buildSigningOracle(dir: string): Promise<(attack: OracleAttack) => Promise<OracleResult>> {
  const binary = join(dir, 'signingoracle');
  const built = await run(findGo(), ['build', '-o', binary, '.'], {
    cwd: join(REPO_ROOT, 'test', 'clients', 'signingoracle'),
    timeoutMs: 180_000,
  });
  if (built.code !== 0) throw new Error(`go build of the signing oracle: ${built.stderr}`);
  return async (attack) => {
    const args = ['-pid', String(attack.pid), '-profile', attack.profile, '-cert', attack.certFile];
    args.push('-ca', attack.caFile, '-url', attack.url);
    if (attack.tls12) args.push('-tls12');
    if (attack.evidenceFrom)
      args.push('-evidence-from', attack.evidenceFrom.url, '-evidence-ca', attack.evidenceFrom.caFile);
    let ran;
    try {
      ran = await run(binary, args);
    } finally {
      // An oracle killed while it held the proxy stopped would wedge every later test.
      try {
        process.kill(attack.pid, 'SIGCONT');
      } catch {
        // the proxy is gone
      }
    }
    if (ran.code !== 0) throw new Error(`signingoracle exited ${ran.code}: ${ran.stderr}`);
    const result = JSON.parse(ran.stdout) as OracleResult;
    return result.error ? { ...result, error: `${result.error}\n${ran.stderr}` } : result;
  };
}
