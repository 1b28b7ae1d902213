#!/usr/bin/env bash
# Why: `ratchet diff` (and every check) reads a shell script an edit adds or changes under a skill
# folder with ShellCheck, the field's own analyser (docs/diff.md); a missing ShellCheck is named
# on the diff, never skipped silently, so CI must have it. The only source CI can reach is the
# Debian mirror: install Debian's own `shellcheck` package at the version pinned here, so every
# run reads scripts with the same rules; skip when it is already there.
# Run as root (CI) or through sudo; needs only the Debian mirror. Prints the installed version.
set -euo pipefail
# shellcheck source=scripts/lib/debian_pinned.sh
source "$(dirname "$0")/lib/debian_pinned.sh"
install_pinned shellcheck "${RATCHET_SHELLCHECK_VERSION:-0.9.0-1}" /usr/bin/shellcheck RATCHET_SHELLCHECK_VERSION
