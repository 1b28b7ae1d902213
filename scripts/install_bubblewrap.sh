#!/usr/bin/env bash
# Why: every harness replay runs under bubblewrap on Linux (docs/adr/0031-bubblewrap-sandbox.md): its own
# PID and network namespaces, the scratch folder as the only writable path. Without bwrap a replay falls back
# to the process group and says so on the verdict; CI must test the sandbox itself, so it must have it.
# The only source CI can reach is the Debian mirror: install Debian's own `bubblewrap` package at the
# version pinned here, and check that `bwrap --version` is that release; skip when it is already there.
# Run as root (CI) or through sudo; needs only the Debian mirror. Prints the installed version.
set -euo pipefail
# shellcheck source=scripts/lib/debian_pinned.sh
source "$(dirname "$0")/lib/debian_pinned.sh"
pinned="${RATCHET_BUBBLEWRAP_VERSION:-0.8.0-2+deb12u1}"
install_pinned bubblewrap "$pinned" /usr/bin/bwrap RATCHET_BUBBLEWRAP_VERSION
# The upstream release the Debian version packages: "0.8.0-2+deb12u1" -> "bubblewrap 0.8.0".
expected="bubblewrap ${pinned%%-*}"
got="$(/usr/bin/bwrap --version)"
if [ "$got" != "$expected" ]; then
  echo "install_bubblewrap.sh: /usr/bin/bwrap --version says '$got', expected '$expected'" >&2
  exit 1
fi
