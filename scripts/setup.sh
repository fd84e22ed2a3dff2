#!/usr/bin/env bash
# Makes a fresh machine ready to run Kubecred's demo: the system packages it needs, npm
# dependencies, the Go toolchain check, the build and a real kube-apiserver. Safe to run again.
# What only the tests need (a CSR signer, the Wine world, the test node, more packages) is
# scripts/setup-tests.sh, which `npm test` runs first.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

# gnome-keyring + dbus: a real Secret Service for the keychain. g++, make and python3 build
# pkcs11js (node-gyp); gcc builds the peer-credentials addon. chromium: the browser the demo's
# --once run signs in with. etcd-server: the store of the demo's real kube-apiserver.
APT_PACKAGES=(gnome-keyring dbus-daemon dbus-bin openssl gcc g++ make python3 chromium etcd-server)
source scripts/apt-install.sh
apt_install setup "${APT_PACKAGES[@]}"

if ! command -v go >/dev/null; then
  if [[ -x /usr/local/go/bin/go ]]; then export PATH="/usr/local/go/bin:$PATH"; else
    echo "setup: installing Go from Debian (golang-go)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null
  fi
fi

# The demo's real kube-apiserver, built once per version into ~/.cache/kubecred (several minutes
# and 2 GB of Go build cache the first time on 2 cores; found at once after). It needs only Go
# and node, so it builds while npm installs and Kubecred builds: the longest step, started first.
# Its progress lines pass at once (line-buffered), with the module downloads left out.
node scripts/build-kube-apiserver.mjs 2> >(grep --line-buffered -v '^go: downloading' >&2) &
apiserver_build=$!
# A step below that fails ends setup: the build is not left running behind it.
trap 'kill "$apiserver_build" 2>/dev/null || true' EXIT

# npm ci when the lock file changed since the last install.
stamp=node_modules/.kubecred-lock-stamp
if [[ ! -f $stamp ]] || ! cmp -s package-lock.json "$stamp"; then
  echo "setup: installing the npm dependencies" >&2
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi

# This machine's shim and proxy only: npm test (and a release) builds all six targets.
echo "setup: building Kubecred" >&2
KUBECRED_SHIM_TARGETS=host npm run --silent build

if ! wait "$apiserver_build"; then
  echo "setup: building kube-apiserver failed (its lines above say why); run bash scripts/setup.sh again" >&2
  exit 1
fi

elapsed=$((SECONDS - started))
echo "setup: done in $((elapsed / 60)) min $((elapsed % 60)) s; next: npm run demo (or npm test, which sets up its own parts first)" >&2
