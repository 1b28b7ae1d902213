#!/usr/bin/env bash
# Why: an editable install finds anything through the source tree, a user's wheel does not.
# Build a wheel, install it into a fresh venv outside the source tree and, from an unrelated
# directory, run the demo, gate two demo edits with the default (judged) config and measure noise,
# all without the `bench` extra (none of numpy, scipy, scikit-learn, matplotlib installed); then
# see `ratchet bench` ask for the extra, install it and run the bench selftest. A config, prompt or
# demo file missing from the package, or a gate path that imports a bench-only dependency, fails here.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
PY="$SRC/.venv/bin/python"
PIP=("$PY" -m pip --disable-pip-version-check -q)
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ratchet-wheel.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

# Nothing from the caller may point back at the source tree or change the outcome.
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV
while IFS= read -r var; do unset "$var"; done < <(env | sed -n 's/^\(GIT_[A-Z_]*\)=.*/\1/p')
export RATCHET_HOME="$TMP/home" RATCHET_UPSTREAM=sim

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%6.1fs", b - a }'; }
START=$(now)
step() {  # step NAME COMMAND...: run it, print how long it took
  local name=$1 t0
  shift
  t0=$(now)
  "$@"
  printf '  %-44s %s\n' "$name" "$(since "$t0")"
}
expect_exit() {  # expect_exit CODE LOG COMMAND...: run, keep the output in LOG, fail on another exit code
  local want=$1 log=$2 got=0
  shift 2
  "$@" >"$log" 2>&1 || got=$?
  if [ "$got" != "$want" ]; then
    cat "$log"
    echo "wheel check: '$*' exited $got, expected $want" >&2
    exit 1
  fi
}
expect_text() {  # expect_text LOG REGEX
  if ! grep -Eq "$2" "$1"; then
    cat "$1"
    echo "wheel check: no line matching '$2' in the output above" >&2
    exit 1
  fi
}

# Build from a copy of the files git knows (tracked or new, not ignored): no build/ left in the
# tree, and no stale build/lib file from an earlier build can slip into the wheel.
copy_sources() {
  mkdir "$TMP/src"
  git -C "$SRC" ls-files -z --cached --others --exclude-standard \
    | (cd "$SRC" && tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -C "$TMP/src" -xf -
}
step "copy the sources" copy_sources
step "build the wheel" expect_exit 0 "$TMP/build.log" "${PIP[@]}" wheel --no-deps -w "$TMP/dist" "$TMP/src"
WHEEL=$(ls "$TMP"/dist/ratchet-*.whl)
step "fresh venv" "$PY" -m venv --without-pip "$TMP/venv"
# --no-compile: byte-compiling all of litellm costs more than the rest of the check; what runs
# compiles on first import.
step "install the wheel (deps from the index)" \
  expect_exit 0 "$TMP/install.log" "${PIP[@]}" --python "$TMP/venv/bin/python" install --no-compile "$WHEEL"
RATCHET="$TMP/venv/bin/ratchet"

mkdir "$TMP/elsewhere"
cd "$TMP/elsewhere"
where=$("$TMP/venv/bin/python" -c 'import ratchet; print(ratchet.__file__)')
case "$where" in
  "$TMP/venv/"*) ;;
  *) echo "wheel check: ratchet imported from $where, not the fresh venv" >&2; exit 1 ;;
esac

# The plain install is the gate's: the benchmark's dependencies are the `bench` extra's.
"$TMP/venv/bin/python" -c '
import importlib.util, sys
present = [m for m in ("numpy", "scipy", "sklearn", "matplotlib") if importlib.util.find_spec(m) is not None]
sys.exit(f"wheel check: {present} installed without the bench extra" if present else 0)'

step "ratchet demo" expect_exit 0 "$TMP/demo.log" "$RATCHET" demo
step "ratchet demo --dir D" expect_exit 0 "$TMP/demo-dir.log" "$RATCHET" demo --dir "$TMP/demo"
cd "$TMP/demo"
step "check edit/changed-argument (BLOCK)" \
  expect_exit 1 "$TMP/block.log" "$RATCHET" check --base main --head edit/changed-argument
expect_text "$TMP/block.log" "^BLOCK "
expect_text "$TMP/block.log" "^decided by: .*super"
step "check edit/cosmetic (PASS)" expect_exit 0 "$TMP/pass.log" "$RATCHET" check --base main --head edit/cosmetic
expect_text "$TMP/pass.log" "^PASS "
step "ratchet noise --repeats 2" expect_exit 0 "$TMP/noise.log" "$RATCHET" noise --repeats 2
expect_text "$TMP/noise.log" "^wrote 23 noise record"
cd "$TMP/elsewhere"
step "ratchet bench selftest (no extra: exit 2)" expect_exit 2 "$TMP/no-extra.log" "$RATCHET" bench selftest
expect_text "$TMP/no-extra.log" "^error: .*install ratchet\[bench\]"
step "install the bench extra" \
  expect_exit 0 "$TMP/install-bench.log" "${PIP[@]}" --python "$TMP/venv/bin/python" install --no-compile "$WHEEL[bench]"
step "ratchet bench selftest" expect_exit 0 "$TMP/selftest.log" "$RATCHET" bench selftest
expect_text "$TMP/selftest.log" "selftest passed"
printf '  %-44s %s\n' "wheel check total" "$(since "$START")"
