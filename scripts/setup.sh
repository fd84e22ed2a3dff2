#!/usr/bin/env bash
# Makes a fresh machine ready to run Kubecred's demo and tests: system packages, npm
# dependencies, the Go toolchain check, and the build. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# gnome-keyring + dbus: a real Secret Service for the keychain (demo and tests).
# softhsm2 + opensc: a real PKCS#11 token and pkcs11-tool for the token tests; g++, make and
# python3 build pkcs11js (node-gyp); gcc builds the peer-credentials addon; patch checks the
# import diff (GNU patch as the oracle) and bsdutils brings `script` (a pty for kubectl in tests).
# chromium: the real browser of the OIDC tests (driven by playwright-core; never downloaded by it);
# faketime: runs the aws CLI at a fixed instant to compare EKS tokens byte for byte.
# docker-registry + skopeo + apache2-utils (htpasswd): a real registry and client for the
# registry credential tests.
# etcd-server: the store of the real kube-apiserver the end-to-end tests run against.
# wine + wine64 run the Windows builds (node.exe, kubecred-shim.exe, kubectl.exe) for
# npm run test:windows; mingw-w64 builds the one DLL Wine 8.0 lacks (scripts/wine-world.mjs).
APT_PACKAGES=(gnome-keyring dbus-daemon dbus-bin openssl softhsm2 opensc gcc g++ make python3 chromium faketime docker-registry skopeo apache2-utils patch bsdutils etcd-server wine wine64 gcc-mingw-w64-x86-64-win32)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then SUDO=(); elif command -v sudo >/dev/null; then SUDO=(sudo); else
    echo "setup: please install these Debian packages: ${missing[*]}" >&2; exit 1; fi
  echo "setup: installing ${missing[*]}" >&2
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The aws CLI (the oracle of the EKS tokens) and moto's server mode (STS and IAM on loopback
# for the role, MFA and credential_process tests), from PyPI, at the versions the tests were
# written against. A machine image may bring them already.
if ! python3 -c 'import awscli, moto.server, flask' 2>/dev/null; then
  echo "setup: installing awscli and moto[server] from PyPI" >&2
  python3 -m pip install --quiet --disable-pip-version-check 'awscli==1.45.11' 'moto[server]==5.2.1'
  if command -v pyenv >/dev/null; then pyenv rehash; fi
fi

if ! command -v go >/dev/null; then
  if [[ -x /usr/local/go/bin/go ]]; then export PATH="/usr/local/go/bin:$PATH"; else
    echo "setup: installing Go from Debian (golang-go)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null
  fi
fi

# npm ci when the lock file changed since the last install.
stamp=node_modules/.kubecred-lock-stamp
if [[ ! -f $stamp ]] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi

npm run --silent build

# The node end of kubectl exec/attach/port-forward/logs for the tests (test/kubelet).
go build -C test/kubelet -trimpath -o "$PWD/dist/test/test-kubelet" . 2> >(grep -v '^go: downloading' >&2)

# A real kube-apiserver for the end-to-end tests, built once per version into ~/.cache/kubecred
# (about 4 minutes and 2 GB of Go build cache the first time on 2 cores; found at once after).
node scripts/build-kube-apiserver.mjs 2> >(grep -v '^go: downloading' >&2)
# Its kube-controller-manager beside it, for the CSR signer tests (same module and Go build cache:
# about 1 minute more on 2 cores once the API server is built).
node scripts/build-kube-apiserver.mjs --controller-manager 2> >(grep -v '^go: downloading' >&2)

# What npm run test:windows runs on (a Wine prefix, node.exe, the Windows native packages,
# kubectl.exe), made once into ~/.cache/kubecred/wine (about 2 minutes the first time).
# Not fatal here: npm test then counts the Windows step as failed and says why.
node scripts/wine-world.mjs 2> >(grep -v '^go: downloading' >&2) >/dev/null ||
  echo "setup: the Wine world could not be made; npm run test:windows will say why" >&2
