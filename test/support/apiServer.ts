// The Kubernetes API stand-in ships with the demo (src/main/demo); tests use the same one.
export * from '../../src/main/demo/apiStandIn.js';
