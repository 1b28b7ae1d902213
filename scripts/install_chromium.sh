#!/usr/bin/env bash
# Why: the review page's browser tests (tests/review/) drive a real headless Chromium through
# Playwright's client, and the only browser source CI can reach is the Debian mirror (no
# `playwright install`, no download from a CDN). Install Debian's own `chromium` package at the
# version pinned here, so every run tests against the same browser; skip when it is already there.
# Run as root (CI) or through sudo; needs only the Debian mirror. Prints the installed version.
set -euo pipefail
# shellcheck source=scripts/lib/debian_pinned.sh
source "$(dirname "$0")/lib/debian_pinned.sh"
# chromium-common is pinned with it: once bookworm-security offers a newer build, apt would
# otherwise pick that newer chromium-common, which the pinned chromium refuses.
install_pinned chromium "${RATCHET_CHROMIUM_VERSION:-150.0.7871.100-1~deb12u1}" /usr/bin/chromium \
  RATCHET_CHROMIUM_VERSION chromium-common
