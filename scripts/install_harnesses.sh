#!/usr/bin/env bash
# Why: the harness replay tests (and `ratchet demo --harness ...`) run the real Claude Code and
# Codex CLIs, and a replay is only comparable to its golden when the same harness version made
# both. Install exactly the versions scripts/harness/package-lock.json pins, with `npm ci`, into
# var/harness (git-ignored); skip when var/harness already holds them (a stamp file with the
# lock's hash, and both binaries answering with the pinned versions). Prints the two versions.
#
# `--ignore-scripts`: no package's install script runs, except the one named below, Claude
# Code's install.cjs, which only links its native binary (from the pinned platform package,
# integrity-checked by the lock) over the stub `claude` that would otherwise refuse to start.
# npm's EBADENGINE warning (claude-code declares node >= 22) is harmless: `claude` is that
# native binary and never runs on this node; only Codex's small launcher does (node >= 16).
# Needs npm and the npm registry; RATCHET_HARNESS_DIR installs elsewhere (the tests use it).
#
# Other releases, for the version tests (ratchet/harness/versions.py, docs/harnesses.md "Versions"):
#   --latest DIR                      the newest release of each that the registry serves (its `latest` tag)
#   --release DIR CLAUDE_CODE CODEX   these exact releases (`latest` for the newest)
# install unlocked (`npm install` of exact versions) into DIR, skipped when DIR already holds them.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/scripts/harness"
DIR="${RATCHET_HARNESS_DIR:-$ROOT/var/harness}"
USAGE="usage: install_harnesses.sh [--latest DIR | --release DIR CLAUDE_CODE_VERSION CODEX_VERSION]"

die() { printf '%s\n' "$@" >&2; exit 1; }

RELEASE=""
case "${1:-}" in
  "") ;;
  --latest) [ $# -eq 2 ] || die "$USAGE"; RELEASE=1; DIR="$2"; CLAUDE=latest; CODEX=latest ;;
  --release) [ $# -eq 4 ] || die "$USAGE"; RELEASE=1; DIR="$2"; CLAUDE="$3"; CODEX="$4" ;;
  *) die "$USAGE" ;;
esac
BIN="$DIR/node_modules/.bin"
STAMP="$DIR/.installed"

if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  die "install_harnesses.sh: npm is not on PATH; install Node.js with npm (e.g. \`apt-get install nodejs npm\`)," \
      "  then run scripts/install_harnesses.sh again"
fi

pinned() { node -p 'require(process.argv[1]).dependencies[process.argv[2]]' "$SRC/package.json" "$1"; }
# `latest`: what the registry's `latest` tag names now (what `npm install -g` or an auto-update gives).
newest() {
  npm view "$1" version 2>/dev/null \
    || die "install_harnesses.sh: \`npm view $1 version\` failed (registry $(npm config get registry))"
}
if [ -z "$RELEASE" ]; then
  CLAUDE="$(pinned @anthropic-ai/claude-code)"
  CODEX="$(pinned @openai/codex)"
  WANT="$(sha256sum <"$SRC/package-lock.json" | cut -d' ' -f1)"
else
  [ "$CLAUDE" != latest ] || CLAUDE="$(newest @anthropic-ai/claude-code)"
  [ "$CODEX" != latest ] || CODEX="$(newest @openai/codex)"
  WANT="release claude-code $CLAUDE codex $CODEX"
fi

# `--version` under a scratch HOME: Codex otherwise writes helper files into ~/.codex.
SCRATCH_HOME="$(mktemp -d)"
trap 'rm -rf "$SCRATCH_HOME"' EXIT
version_of() {
  [ -x "$BIN/$1" ] || return 0
  env -i PATH="$PATH" HOME="$SCRATCH_HOME" "$BIN/$1" --version 2>/dev/null \
    | grep -oE '[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?' | head -n 1 || true
}
pinned_ones_installed() { [ "$(version_of claude)" = "$CLAUDE" ] && [ "$(version_of codex)" = "$CODEX" ]; }

mkdir -p "$DIR"
# Two checks started at once must not run `npm ci` over each other's node_modules.
exec 9>"$DIR/.lock"
if command -v flock >/dev/null; then flock 9; fi

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && pinned_ones_installed; then
  echo "harnesses already installed in $DIR ($([ -n "$RELEASE" ] && echo "the releases asked for" || echo "lock unchanged"))"
elif [ -n "$RELEASE" ]; then
  rm -f "$STAMP" "$DIR/package-lock.json"
  printf '{"name": "ratchet-harnesses-release", "private": true, "dependencies": {"@anthropic-ai/claude-code": "%s", "@openai/codex": "%s"}}\n' \
    "$CLAUDE" "$CODEX" >"$DIR/package.json"
  if ! (cd "$DIR" && npm install --ignore-scripts --no-audit --no-fund --no-package-lock); then
    die "install_harnesses.sh: \`npm install\` of claude-code $CLAUDE and codex $CODEX failed in $DIR"
  fi
  node "$DIR/node_modules/@anthropic-ai/claude-code/install.cjs" \
    || die "install_harnesses.sh: Claude Code's install.cjs could not place its native binary (see above)"
  pinned_ones_installed || die "install_harnesses.sh: expected claude-code $CLAUDE and codex $CODEX in $BIN," \
    "  found claude-code '$(version_of claude)' and codex '$(version_of codex)'"
  echo "$WANT" >"$STAMP"
  echo "harnesses installed in $DIR"
else
  rm -f "$STAMP"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
  if ! (cd "$DIR" && npm ci --ignore-scripts --no-audit --no-fund); then
    die "install_harnesses.sh: \`npm ci\` failed in $DIR (registry $(cd "$DIR" && npm config get registry));" \
        "  check the network or the npm registry setting (npm config get registry), then run it again"
  fi
  if ! node "$DIR/node_modules/@anthropic-ai/claude-code/install.cjs"; then
    die "install_harnesses.sh: Claude Code's install.cjs could not place its native binary (see above)"
  fi
  if ! pinned_ones_installed; then
    die "install_harnesses.sh: expected claude-code $CLAUDE and codex $CODEX in $BIN," \
        "  found claude-code '$(version_of claude)' and codex '$(version_of codex)'" \
        "  (is there a native package for $(node -p 'process.platform + "-" + process.arch')?)"
  fi
  echo "$WANT" >"$STAMP"
  echo "harnesses installed in $DIR"
fi
echo "claude-code $(version_of claude)"
echo "codex $(version_of codex)"
