# shellcheck shell=bash
# Sourced by scripts/install_<package>.sh: install one Debian package at a pinned version from the
# configured mirror (the only package source CI can reach), or skip when it is already there.
#
#   install_pinned PACKAGE VERSION BINARY VERSION_VARIABLE [WITH...]
#
# WITH: packages pinned to the same version and installed together (chromium-common with chromium).
# Runs as root (CI) or through sudo. Prints the installed version; exits 1 with the fix otherwise.

installed_version() { dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null | sed -n 's/^install ok installed //p'; }

install_pinned() {
  local package=$1 pinned=$2 binary=$3 variable=$4
  shift 4
  local script="install_${package}.sh"
  if [ "$(installed_version "$package")" = "$pinned" ] && [ -x "$binary" ]; then
    echo "$package $pinned already installed"
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "$script: run as root (or install sudo)" >&2; exit 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  if ! apt-cache madison "$package" | awk '{print $3}' | grep -qxF "$pinned"; then
    echo "$script: $package $pinned is not offered by the configured mirror;" >&2
    echo "  apt-cache policy $package shows what is, set $variable to it" >&2
    exit 1
  fi
  local with=("$package=$pinned")
  for other in "$@"; do with+=("$other=$pinned"); done
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${with[@]}"
  local got
  got="$(installed_version "$package")"
  if [ "$got" != "$pinned" ] || [ ! -x "$binary" ]; then
    echo "$script: expected $package $pinned at $binary, found '${got:-nothing}'" >&2
    exit 1
  fi
  echo "$package $got installed"
}
