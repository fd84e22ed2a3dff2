// The scripted chromium ships with the demo (src/main/demo, for `kubecred demo --once`); tests use the same one.
export * from '../../src/main/demo/scriptedBrowser.js';
