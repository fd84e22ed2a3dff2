#!/bin/bash
# The deb's after-install script. electron-builder renders it as a template (${...} are its
# macros) in place of its own, so it does what electron-builder's would, in Kubecred's way:
#
# - /usr/bin/kubecred is the CLI (people type kubecred; docker looks up
#   docker-credential-kubecred), not the Electron binary electron-builder would link there;
#   links, so an upgrade in place keeps them pointing at the new files;
# - chrome-sandbox is setuid root only where the kernel has no usable user namespaces, the
#   sandbox's other way in;
# - the AppArmor profile electron-builder ships in resources/ is installed where AppArmor
#   runs (Ubuntu 24.04 and later refuse unprivileged user namespaces to programs without one,
#   and Electron then aborts at start), if this AppArmor can parse it;
# - the desktop and MIME databases learn of the new entry.
set -e
app='/opt/${sanitizedProductName}'

for name in kubecred docker-credential-kubecred; do
  ln -sf "$app/resources/bin/$name" "/usr/bin/$name"
done

if [[ -L /proc/self/ns/user ]] && unshare --user true 2>/dev/null; then
  chmod 0755 "$app/chrome-sandbox" || true
else
  chmod 4755 "$app/chrome-sandbox" || true
fi

if apparmor_status --enabled >/dev/null 2>&1; then
  profile="$app/resources/apparmor-profile"
  installed='/etc/apparmor.d/${executable}'
  # A parse that loads nothing: Ubuntu 22.04's AppArmor cannot read the abi/4.0 profile, and
  # the app runs there without one.
  if apparmor_parser --skip-kernel-load --debug "$profile" >/dev/null 2>&1; then
    cp -f "$profile" "$installed"
    # In a chroot (an image being built) there is no running policy to replace.
    if ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; }; then
      apparmor_parser --replace --write-cache --skip-read-cache "$installed" || true
    fi
  else
    echo "Kubecred: this AppArmor cannot read the bundled profile; none installed" >&2
  fi
fi

if command -v update-mime-database >/dev/null; then update-mime-database /usr/share/mime || true; fi
if command -v update-desktop-database >/dev/null; then update-desktop-database /usr/share/applications || true; fi
