# Sourced by setup.sh and setup-tests.sh: apt_install TAG PACKAGE... installs the Debian
# packages that are not installed yet (as root, or through sudo), saying which.
apt_install() {
  local tag=$1
  shift
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then sudo=(sudo); else
      echo "$tag: please install these Debian packages: ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "$tag: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
