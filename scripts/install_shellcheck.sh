#!/usr/bin/env bash
# Why: `ratchet diff` (and every check) reads a shell script an edit adds or changes under a skill
# folder with ShellCheck, the field's own analyser (docs/diff.md); a missing ShellCheck is named
# on the diff, never skipped silently, so CI must have it. The only source CI can reach is the
# Debian mirror: install Debian's own `shellcheck` package at the version pinned here, so every
# run reads scripts with the same rules; skip when it is already there.
# Run as root (CI) or through sudo; needs only the Debian mirror. Prints the installed version.
set -euo pipefail
PINNED="${RATCHET_SHELLCHECK_VERSION:-0.9.0-1}"

installed() { dpkg-query -W -f='${Status} ${Version}\n' shellcheck 2>/dev/null | sed -n 's/^install ok installed //p'; }

if [ "$(installed)" = "$PINNED" ] && [ -x /usr/bin/shellcheck ]; then
  echo "shellcheck $PINNED already installed"
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install_shellcheck.sh: run as root (or install sudo)" >&2; exit 1; }
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
if ! apt-cache madison shellcheck | awk '{print $3}' | grep -qxF "$PINNED"; then
  echo "install_shellcheck.sh: shellcheck $PINNED is not offered by the configured mirror;" >&2
  echo "  apt-cache policy shellcheck shows what is, set RATCHET_SHELLCHECK_VERSION to it" >&2
  exit 1
fi
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "shellcheck=$PINNED"
got="$(installed)"
if [ "$got" != "$PINNED" ] || [ ! -x /usr/bin/shellcheck ]; then
  echo "install_shellcheck.sh: expected shellcheck $PINNED at /usr/bin/shellcheck, found '${got:-nothing}'" >&2
  exit 1
fi
echo "shellcheck $got installed"
