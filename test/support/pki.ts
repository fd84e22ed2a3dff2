// The demo's throw-away PKI (src/main/demo); tests use the same one.
export * from '../../src/main/demo/demoPki.js';
