#!/usr/bin/env bash
# Why: the review page's browser tests (tests/review/) drive a real headless Chromium through
# Playwright's client, and the only browser source CI can reach is the Debian mirror (no
# `playwright install`, no download from a CDN). Install Debian's own `chromium` package at the
# version pinned here, so every run tests against the same browser; skip when it is already there.
# Run as root (CI) or through sudo; needs only the Debian mirror. Prints the installed version.
set -euo pipefail
PINNED="${RATCHET_CHROMIUM_VERSION:-150.0.7871.100-1~deb12u1}"

installed() { dpkg-query -W -f='${Status} ${Version}\n' chromium 2>/dev/null | sed -n 's/^install ok installed //p'; }

if [ "$(installed)" = "$PINNED" ] && [ -x /usr/bin/chromium ]; then
  echo "chromium $PINNED already installed"
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install_chromium.sh: run as root (or install sudo)" >&2; exit 1; }
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
if ! apt-cache madison chromium | awk '{print $3}' | grep -qxF "$PINNED"; then
  echo "install_chromium.sh: chromium $PINNED is not offered by the configured mirror;" >&2
  echo "  apt-cache policy chromium shows what is, set RATCHET_CHROMIUM_VERSION to it" >&2
  exit 1
fi
# chromium-common is pinned with it: once bookworm-security offers a newer build, apt would
# otherwise pick that newer chromium-common, which the pinned chromium refuses.
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "chromium=$PINNED" "chromium-common=$PINNED"
got="$(installed)"
if [ "$got" != "$PINNED" ] || [ ! -x /usr/bin/chromium ]; then
  echo "install_chromium.sh: expected chromium $PINNED at /usr/bin/chromium, found '${got:-nothing}'" >&2
  exit 1
fi
echo "chromium $got installed"
