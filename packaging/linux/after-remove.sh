#!/bin/bash
# The deb's after-remove script, rendered by electron-builder like after-install.sh: takes the
# PATH links away, only where they are still ours, and the AppArmor profile (unloaded first,
# so it is not enforced until the next boot).
for name in kubecred docker-credential-kubecred; do
  if [ "$(readlink "/usr/bin/$name" 2>/dev/null)" = "/opt/${sanitizedProductName}/resources/bin/$name" ]; then
    rm -f "/usr/bin/$name"
  fi
done

installed='/etc/apparmor.d/${executable}'
if [ -f "$installed" ]; then
  if apparmor_status --enabled >/dev/null 2>&1 && ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; }; then
    apparmor_parser --remove "$installed" || true
  fi
  rm -f "$installed"
fi
