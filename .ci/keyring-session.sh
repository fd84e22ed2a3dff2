#!/bin/sh
# Runs a command inside a fresh, private D-Bus session bus in which
# gnome-keyring-daemon provides the Secret Service (org.freedesktop.secrets),
# unlocked, with a default 'login' collection: a real Linux keychain for
# @napi-rs/keyring, with no display, no stdin, as root, under CI=true.
#
#   .ci/keyring-session.sh COMMAND [ARG...]     exit status is COMMAND's
#   .ci/keyring-session.sh --start-daemon       (inside such a session) start another
#                                               daemon on the same keyring, print its pid
#
# This script installs nothing. The CI install step needs these Debian packages:
#   apt-get install -y --no-install-recommends gnome-keyring dbus-daemon dbus-bin
# (dbus-daemon brings dbus-run-session, dbus-bin brings dbus-send; both are usually
# there already). Optional for debugging by hand: libsecret-tools (secret-tool).
#
# Inside the session COMMAND sees:
#   DBUS_SESSION_BUS_ADDRESS        the private bus
#   KUBECRED_TEST_KEYRING_PID       pid of gnome-keyring-daemon: kill it to simulate
#                                   "keychain unavailable"
#   KUBECRED_TEST_KEYRING_DIR       temp dir holding the bus config, the keyring files
#                                   (data/keyrings/login.keyring) and the control socket
#
# The bus has no service directories, so D-Bus activation is off: once the daemon is
# killed, org.freedesktop.secrets stays gone (ServiceUnknown) instead of being
# restarted locked behind a prompt. `--start-daemon` brings it back, unlocked.
# Nothing outside the temp dir is touched (not ~/.local/share/keyrings); it is
# removed when COMMAND ends.
set -eu

# The keyring password: the keyring is a throwaway under a temp dir.
KEYRING_PASSWORD='kubecred-ci'

# Starts gnome-keyring-daemon on the current session bus, unlocking (creating on
# first use) the 'login' collection, waits until it owns org.freedesktop.secrets,
# and prints its pid.
start_daemon() {
  dir=$KUBECRED_TEST_KEYRING_DIR
  mkdir -p "$dir/data" "$dir/control"
  chmod 700 "$dir/control"
  # --foreground keeps the pid ours (no double fork); stdin is the password.
  printf '%s' "$KEYRING_PASSWORD" |
    XDG_DATA_HOME="$dir/data" gnome-keyring-daemon --foreground --unlock \
      --components=secrets --control-directory="$dir/control" \
      >"$dir/daemon.log" 2>&1 &
  pid=$!
  i=0
  while :; do
    if dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
      org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null |
      grep -q 'boolean true'; then
      break
    fi
    i=$((i + 1))
    if [ "$i" -ge 100 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "keyring-session: gnome-keyring-daemon did not come up; its log:" >&2
      cat "$dir/daemon.log" >&2 || true
      return 1
    fi
    sleep 0.1
  done
  # The 'login' collection must exist and be the default alias.
  if ! dbus-send --session --print-reply --dest=org.freedesktop.secrets \
    /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias string:default |
    grep -q '/org/freedesktop/secrets/collection/login'; then
    echo "keyring-session: no default 'login' collection" >&2
    return 1
  fi
  echo "$pid"
}

if [ "${1:-}" = "--start-daemon" ]; then
  if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] || [ -z "${KUBECRED_TEST_KEYRING_DIR:-}" ]; then
    echo "keyring-session: --start-daemon only works inside a keyring session" >&2
    exit 2
  fi
  start_daemon
  exit $?
fi

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

if [ -z "${KUBECRED_KEYRING_SESSION_INNER:-}" ]; then
  # Outer half: a temp dir, a bus config without activation, then the bus.
  KUBECRED_TEST_KEYRING_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kubecred-keyring.XXXXXX")
  export KUBECRED_TEST_KEYRING_DIR
  trap 'rm -rf "$KUBECRED_TEST_KEYRING_DIR"' EXIT
  # A stop signal reaches the whole group: stay alive (without ignoring it, which the command
  # would inherit) until the command has cleaned up, then clean up after it.
  trap : INT TERM HUP
  cat >"$KUBECRED_TEST_KEYRING_DIR/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=$KUBECRED_TEST_KEYRING_DIR</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
  status=0
  KUBECRED_KEYRING_SESSION_INNER=1 dbus-run-session \
    --config-file="$KUBECRED_TEST_KEYRING_DIR/bus.conf" -- /bin/sh "$0" "$@" || status=$?
  exit "$status"
fi

# Inner half: on the private bus.
unset KUBECRED_KEYRING_SESSION_INNER
KUBECRED_TEST_KEYRING_PID=$(start_daemon)
export KUBECRED_TEST_KEYRING_PID
trap : INT TERM HUP
status=0
"$@" || status=$?
if ! kill -0 "$KUBECRED_TEST_KEYRING_PID" 2>/dev/null && [ -s "$KUBECRED_TEST_KEYRING_DIR/daemon.log" ]; then
  echo "keyring-session: the first gnome-keyring-daemon ended during the run (tests may restart it); its log:" >&2
  tail -n 20 "$KUBECRED_TEST_KEYRING_DIR/daemon.log" >&2
fi
# Stop whichever daemon owns the name now (a test may have restarted it), then ours.
owner=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
  org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null |
  awk '/uint32/ { print $2 }') || true
for p in $owner $KUBECRED_TEST_KEYRING_PID; do
  kill "$p" 2>/dev/null || true
done
exit "$status"
