#!/bin/sh
# Puts the CLI and the docker credential helper on PATH: kubectl finds the shim by the path a
# kubeconfig names, but people type kubecred, and docker looks up docker-credential-kubecred.
# Links, so an upgrade in place keeps them pointing at the new files.
set -e
for name in kubecred docker-credential-kubecred; do
  ln -sf "/opt/Kubecred/resources/bin/$name" "/usr/bin/$name"
done
