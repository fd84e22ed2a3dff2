/**
 * The variables of the user's session that the broker and the programs it runs may use: where
 * to find programs and the desktop (PATH, HOME, D-Bus, display, locale, proxies, trust
 * stores) and Kubecred's own settings. Everything else (AWS_PROFILE, KUBECONFIG, a secret
 * someone exported in the shell that happened to start the broker) stays out: the broker
 * serves every shell alike, and a wrapped plugin sees its profile's `env`, nothing ambient.
 */
const SESSION_VARIABLES: readonly RegExp[] = [
  /^(PATH|HOME|USER|LOGNAME|SHELL|TZ|TMPDIR|LANG|LANGUAGE)$/,
  /^LC_[A-Z]+$/,
  /^(DBUS_SESSION_BUS_ADDRESS|DISPLAY|WAYLAND_DISPLAY|XAUTHORITY)$/,
  /^XDG_[A-Z_]+$/,
  /^KUBECRED_[A-Z0-9_]+$/,
  // Reaching issuers and clusters behind a company proxy or a private CA.
  /^(HTTPS?_PROXY|NO_PROXY|ALL_PROXY|https?_proxy|no_proxy|all_proxy)$/,
  /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR)$/,
  // PKCS#11 modules read their configuration from here.
  /^(SOFTHSM2_CONF|OPENSC_CONF)$/,
  // Windows cannot start programs without these.
  /^(SYSTEMROOT|SystemRoot|WINDIR|windir|COMSPEC|ComSpec|PATHEXT|APPDATA|LOCALAPPDATA|USERPROFILE|PROGRAMDATA|ProgramData)$/,
];

export function sessionEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && SESSION_VARIABLES.some((pattern) => pattern.test(name))) kept[name] = value;
  }
  return kept;
}
