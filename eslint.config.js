import tseslint from 'typescript-eslint';

// The house rules of DESIGN.md, enforced: electron only in src/main/electron; node:
// built-ins never in src/shared or src/renderer; and the layers of src/main below.
const NODE_BUILTINS = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'child_process',
  'crypto',
  'net',
  'http',
  'https',
  'url',
  'util',
  'stream',
  'events',
];
const ELECTRON_ONLY_THERE = { name: 'electron', message: 'electron is imported only in src/main/electron' };

// Each folder of src/main may import src/shared and the folders listed for it, nothing else.
// Listed from the inside out: a folder only names folders above it in this table. The hosts
// (src/main/*.ts, cli, electron, demo) sit on top and may import any of these.
const MAIN_LAYERS = {
  core: [], // errors, clock, logger, the ports and the UI ports: the words every layer shares
  platform: ['core'], // the OS: processes, files, paths, sockets, the browser
  cache: ['core'], // the credential cache and its keys
  config: ['core', 'platform'],
  state: ['core', 'platform'], // the audit log on disk
  secrets: ['core', 'platform', 'cache'], // keychain, encrypted file, PKCS#11 tokens
  providers: ['core', 'platform'], // how each kind of profile gets a credential
  registry: ['core', 'platform', 'cache'], // image registry logins
  proxy: ['core', 'platform', 'providers', 'secrets'], // kubecred-proxy's supervisor
  ui: ['core'], // where questions go without a window: the interaction board, the browser, the web UI's queue
  broker: ['core', 'platform', 'cache', 'config', 'state', 'secrets', 'providers', 'registry', 'proxy', 'ui'], // the use cases
  client: ['core', 'platform'], // the broker API's client (CLI, doctor, demo)
  http: ['core'], // what both HTTP servers share: the bounded JSON body
  kubeconfig: ['core', 'platform', 'config', 'broker'],
  server: ['core', 'platform', 'http', 'broker'], // the broker API on the socket
  webui: ['core', 'platform', 'http', 'ui', 'broker', 'kubeconfig'],
  doctor: ['core', 'platform', 'config', 'secrets', 'providers', 'kubeconfig', 'client'],
};
const HOSTS = ['cli', 'electron', 'demo'];
const HOST_FILES = ['composition', 'startBroker', 'trayBroker', 'webUiHost'];
const ALL_MAIN = [...Object.keys(MAIN_LAYERS), ...HOSTS];

function layerRule(folder, allowed) {
  const forbidden = ALL_MAIN.filter((other) => other !== folder && !allowed.includes(other));
  return {
    files: [`src/main/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [ELECTRON_ONLY_THERE],
          patterns: [
            {
              regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
              message: `src/main/${folder} may import only src/shared and ${allowed.map((name) => `src/main/${name}`).join(', ') || 'nothing else'} (the layers in eslint.config.js)`,
            },
            {
              regex: `^(\\.\\./)+(${HOST_FILES.join('|')})\\.js$`,
              message: 'the hosts wire the layers; no layer imports a host',
            },
            { regex: '^(\\.\\./)+renderer/', message: 'src/main never imports the renderer; share through src/shared' },
          ],
        },
      ],
    },
  };
}

// src/shared and src/renderer run in the browser too: no node: built-ins, and never src/main.
function outsideNode(files, forbidden, message) {
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [ELECTRON_ONLY_THERE],
          patterns: [
            { group: NODE_BUILTINS, message: 'src/shared and src/renderer run outside Node: no node: built-ins' },
            { regex: forbidden, message },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test-results/**', 'src/shim/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/main/electron/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [ELECTRON_ONLY_THERE] }],
    },
  },
  ...Object.entries(MAIN_LAYERS).map(([folder, allowed]) => layerRule(folder, allowed)),
  outsideNode(
    ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    '^(\\.\\./)+main/',
    'src/renderer never imports src/main; share through src/shared',
  ),
  outsideNode(
    ['src/shared/**/*.ts'],
    '^(\\.\\./)+(main|renderer)/',
    'src/shared is the bottom layer: it imports nothing of src/main or src/renderer',
  ),
);
