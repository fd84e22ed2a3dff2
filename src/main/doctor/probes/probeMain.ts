import type { ProbeOutcome } from './probeOutcome.js';

// The entry point of a probe child process (see probeProcess.ts). Native modules run here, not
// in doctor itself: a keychain or token driver that blocks forever then costs a killed child,
// not a hung `kubecred doctor`. Each probe loads only what it needs, to start fast.
async function probe([kind, argument]: string[]): Promise<ProbeOutcome> {
  if (kind === 'keychain') return (await import('./keychainProbe.js')).probeKeychain();
  if (kind === 'pkcs11') {
    const [{ tokenSchema }, { probePkcs11 }] = await Promise.all([
      import('../../../shared/config/schema.js'),
      import('./pkcs11Probe.js'),
    ]);
    return probePkcs11(tokenSchema.parse(JSON.parse(argument ?? '')));
  }
  throw new Error(`unknown probe "${kind}"`);
}

process.stdout.write(`${JSON.stringify(await probe(process.argv.slice(2)))}\n`);
