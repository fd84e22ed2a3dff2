/**
 * What Node runs the headless broker with, before the CLI's path. The broker serves tiny
 * requests for days: V8's default young generation (16 MiB semi-spaces) grows to some 50 MiB
 * of short-lived request garbage under a burst of kubectl calls and keeps it. With 1 MiB
 * semi-spaces the broker held 81 MiB after 20,000 requests instead of 105, at no measurable
 * cost to an answer (issue 32; `npm run bench`). The native shim starts the broker with the
 * same flags (src/shim/daemon_unix.go).
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];
