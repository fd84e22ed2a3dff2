import { describe, expect, it } from 'vitest';
import {
  readWindowsRoots,
  WINDOWS_LISTING_SCRIPT,
  windowsPowerShell,
} from '../../../src/main/platform/windowsTrustStore.js';
import type { BoundedResult } from '../../../src/main/platform/boundedCommand.js';
import { commonNames, ranWith, recordedOutput } from '../../support/recordedTrustStore.js';

const ENV = { SystemRoot: 'D:\\Windows' };

function answering(result: BoundedResult) {
  const calls: { command: string; args: readonly string[] }[] = [];
  return {
    calls,
    run: async (command: string, args: readonly string[]) => {
      calls.push({ command, args });
      return result;
    },
  };
}

describe("Windows' trusted roots, listed by PowerShell's certificate drive (recorded output, never real Windows)", () => {
  it('trusts the Root stores less what a Disallowed store lists, each root once', async () => {
    const reading = await readWindowsRoots(
      answering(ranWith(recordedOutput('windows', 'powershell-listing.txt'))).run,
      ENV,
    );
    if (!('roots' in reading)) throw new Error(reading.failure);
    expect(commonNames(reading.roots)).toEqual([
      'Ada Dev Root',
      'Apple Root CA Fixture',
      'Example Corp TLS Inspection Root',
    ]);
  });

  it("runs the system's own PowerShell by its full path, the script encoded so no quoting can change it", async () => {
    const { run, calls } = answering(ranWith(recordedOutput('windows', 'powershell-listing.txt')));
    await readWindowsRoots(run, ENV);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.command).toBe('D:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe');
    expect(windowsPowerShell({})).toBe('C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe');
    const args = calls[0]!.args;
    expect(args.slice(0, -1)).toEqual(['-NoLogo', '-NoProfile', '-NonInteractive', '-EncodedCommand']);
    const script = Buffer.from(args[args.length - 1]!, 'base64').toString('utf16le');
    expect(script).toBe(WINDOWS_LISTING_SCRIPT);
    expect(script).toContain('Cert:\\$location\\$store');
    expect(script).not.toContain('AuthRoot');
  });

  it('fails, saying why, on a listing cut short, one with no readable root, or PowerShell failing, missing or hanging', async () => {
    const recorded = recordedOutput('windows', 'powershell-listing.txt');
    const cases: [BoundedResult, string][] = [
      [
        ranWith(recorded.split('kubecred-trust-store-listed')[0]!),
        'PowerShell did not finish listing the certificate stores',
      ],
      [
        ranWith('Root !!!not-base64!!!\r\nRoot TUlJQg==\r\nkubecred-trust-store-listed\r\n'),
        'PowerShell listed no certificate in the Root stores',
      ],
      [
        ranWith('', { exitCode: 1, stderr: 'powershell.exe : The term is not recognized\r\nmore' }),
        'PowerShell failed (exit 1): powershell.exe : The term is not recognized',
      ],
      [ranWith('', { notFound: true, exitCode: undefined }), 'PowerShell was not found'],
      [
        ranWith('Root MII', { timedOut: true, exitCode: undefined, signal: 'SIGKILL' }),
        'PowerShell did not answer in time',
      ],
    ];
    for (const [result, failure] of cases)
      expect(await readWindowsRoots(answering(result).run, ENV)).toEqual({ failure });
  });
});
