#!/usr/bin/env bash
# What only the tests need, on top of scripts/setup.sh (which made the demo ready): run first by
# `npm test` (scripts/test-all.mjs), and safe to run again: each part is found at once once made.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

# softhsm2 + opensc: a real PKCS#11 token and pkcs11-tool for the token tests; patch checks the
# import diff (GNU patch as the oracle) and bsdutils brings `script` (a pty for kubectl in tests).
# faketime: runs the aws CLI at a fixed instant to compare EKS tokens byte for byte.
# docker-registry + skopeo + apache2-utils (htpasswd): a real registry and client for the
# registry credential tests. wine + wine64 run the Windows builds (node.exe,
# kubecred-shim.exe, kubectl.exe) for npm run test:windows; mingw-w64 builds the one DLL Wine
# 8.0 lacks (scripts/wine-world.mjs). tinyproxy: a real corporate proxy (CONNECT, Basic auth)
# for the tests of Kubecred behind one.
APT_PACKAGES=(softhsm2 opensc patch bsdutils faketime docker-registry skopeo apache2-utils wine wine64 gcc-mingw-w64-x86-64-win32 tinyproxy)
source scripts/apt-install.sh
apt_install setup-tests "${APT_PACKAGES[@]}"

# The aws CLI (the oracle of the EKS tokens) and moto's server mode (STS and IAM on loopback
# for the role, MFA and credential_process tests), from PyPI, at the versions the tests were
# written against. A machine image may bring them already.
if ! python3 -c 'import awscli, moto.server, flask' 2>/dev/null; then
  echo "setup-tests: installing awscli and moto[server] from PyPI" >&2
  python3 -m pip install --quiet --disable-pip-version-check 'awscli==1.45.11' 'moto[server]==5.2.1'
  if command -v pyenv >/dev/null; then pyenv rehash; fi
fi

# mitmproxy: a real TLS-inspecting proxy (it re-signs what it passes with its own CA) for the tests
# of Kubecred behind one. In a venv of its own under the cache: its pins (cryptography, Flask)
# differ from moto's, and installed beside them it would change what the STS tests run on.
# 11.0.2 is the last release for Python 3.11.
MITMPROXY_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/kubecred/mitmproxy"
if ! "$MITMPROXY_VENV/bin/python" -c 'import mitmproxy.version as v; assert v.VERSION == "11.0.2"' 2>/dev/null; then
  echo "setup-tests: installing mitmproxy into $MITMPROXY_VENV from PyPI" >&2
  rm -rf "$MITMPROXY_VENV"
  python3 -m venv "$MITMPROXY_VENV"
  "$MITMPROXY_VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'mitmproxy==11.0.2'
fi

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then export PATH="/usr/local/go/bin:$PATH"; fi

# The node end of kubectl exec/attach/port-forward/logs for the tests (test/kubelet).
go build -C test/kubelet -trimpath -o "$PWD/dist/test/test-kubelet" . 2> >(grep --line-buffered -v '^go: downloading' >&2)

# The kube-controller-manager beside the API server, for the CSR signer tests (the same module and
# Go build cache as the API server setup.sh built: about 3 minutes more on 2 cores the first time).
node scripts/build-kube-apiserver.mjs --controller-manager 2> >(grep --line-buffered -v '^go: downloading' >&2)

# What npm run test:windows runs on (a Wine prefix, node.exe, the Windows native packages,
# kubectl.exe), made once into ~/.cache/kubecred/wine (about 8 minutes the first time, most of it
# kubectl.exe). Not fatal here: npm test then counts the Windows step as failed and says why.
node scripts/wine-world.mjs 2> >(grep --line-buffered -v '^go: downloading' >&2) >/dev/null ||
  echo "setup-tests: the Wine world could not be made; npm run test:windows will say why" >&2

elapsed=$((SECONDS - started))
echo "setup-tests: done in $((elapsed / 60)) min $((elapsed % 60)) s" >&2
