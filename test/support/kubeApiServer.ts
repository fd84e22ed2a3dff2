// A real kube-apiserver with etcd: it ships with the demo (src/main/demo); tests use the same one.
export * from '../../src/main/demo/realApiServer.js';
// And a real kube-controller-manager beside it that runs only the CSR signer.
export * from '../../src/main/demo/csrSigner.js';
