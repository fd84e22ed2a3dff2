import type { TestIssuer } from './localIssuer.js';

/** config.yaml of the demo home: a static profile, and an OIDC profile on the local issuer. */
export function demoConfig(issuer: TestIssuer | undefined): string {
  const sso = issuer
    ? `  - name: sso
    provider: oidc
    description: the demo's local OIDC issuer
    issuer: ${issuer.issuer}
    clientId: ${issuer.clientId}
    caFile: ${issuer.caFile}
`
    : '';
  return `# Written by \`kubecred demo\`.
profiles:
  - name: demo
    provider: static
    description: the demo API stand-in's token, kept in the keychain
${sso}`;
}
