// The OIDC issuer ships with the demo (src/main/demo); tests use the same one.
export * from '../../src/main/demo/localIssuer.js';
