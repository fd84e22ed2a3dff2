#!/bin/sh
# Takes the PATH links away again, only where they are still ours.
for name in kubecred docker-credential-kubecred; do
  if [ "$(readlink "/usr/bin/$name" 2>/dev/null)" = "/opt/Kubecred/resources/bin/$name" ]; then
    rm -f "/usr/bin/$name"
  fi
done
