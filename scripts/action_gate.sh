#!/usr/bin/env bash
# The run steps of Ratchet's GitHub Action (action.yml), one phase per step:
#
#   action_gate.sh base      refuse unsupported inputs, find the PR's merge base, set RATCHET_HOME
#   action_gate.sh check     ratchet check --base <merge base>: verdict.json, comment.md, junit.xml
#   action_gate.sh comment   ratchet ci comment: create or update the one sticky PR comment
#   action_gate.sh decide    exit 1 on BLOCK, 3 on an infrastructure error, 2 on bad input or a
#                            budget stop (exit 2 with the verdict written: the cap stopped pairs)
#
# Why a script and not inline `run:` blocks: tests/ci/test_action_gate.py runs these same steps
# with the environment a runner sets, against a fake GitHub API. Why phases: the job must fail
# only after the comment is posted and the outputs are uploaded (action.yml uploads between
# `comment` and `decide`), so `check` and `comment` record their exit codes instead of failing.
#
# Inputs arrive as environment variables (never interpolated into this text, so a branch name
# cannot inject shell): INPUT_CONFIG, INPUT_BUDGET, INPUT_HARNESS, INPUT_ON_ERROR, INPUT_BASE,
# INPUT_COMMENT, BASE_REF, RATCHET_OUT, and for `decide` CHECK_EXIT and COMMENT_EXIT.
set -euo pipefail

RATCHET=${RATCHET:-ratchet}
OUT=${RATCHET_OUT:-${RUNNER_TEMP:-/tmp}/ratchet-outputs}

output() { # name value -> the step's output (GITHUB_OUTPUT), or stdout outside a runner
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1=$2" >> "$GITHUB_OUTPUT"; else echo "$1=$2"; fi
}

phase_base() {
  case "${INPUT_HARNESS:-minimal}" in
    minimal) ;;
    *) echo "::error::harness '${INPUT_HARNESS}' is not supported yet; use harness: minimal (the only one today)"
       exit 2 ;;
  esac
  case "${INPUT_ON_ERROR:-}" in
    ""|warn|block) ;;
    *) echo "::error::on-error must be warn, block or empty, not '${INPUT_ON_ERROR}'"; exit 2 ;;
  esac
  local base
  local before=${EVENT_BEFORE:-}
  if [ "$before" = "0000000000000000000000000000000000000000" ]; then before=""; fi
  if [ -n "${INPUT_BASE:-}" ] || { [ -z "${BASE_REF:-}" ] && [ -n "$before" ]; }; then
    # An explicit base, or a push (the default branch's run that saves the cache): the pushed range.
    base=$(git rev-parse --verify --quiet "${INPUT_BASE:-$before}^{commit}") || {
      echo "::error::base revision '${INPUT_BASE:-$before}' is not in the checkout; check out with fetch-depth: 0"
      exit 2; }
  else
    if [ -z "${BASE_REF:-}" ]; then
      echo "::error::no base branch: run on pull_request (github.base_ref) or pass the base input"; exit 2
    fi
    git fetch --no-tags --quiet origin "+refs/heads/${BASE_REF}:refs/remotes/origin/${BASE_REF}"
    if ! base=$(git merge-base "origin/${BASE_REF}" HEAD 2>/dev/null); then
      # A shallow checkout (fetch-depth: 1) has no common ancestor yet: fetch the whole history.
      if [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
        git fetch --no-tags --quiet --unshallow origin "+refs/heads/${BASE_REF}:refs/remotes/origin/${BASE_REF}"
      fi
      base=$(git merge-base "origin/${BASE_REF}" HEAD) || {
        echo "::error::no merge base between origin/${BASE_REF} and HEAD; check out with fetch-depth: 0"; exit 2; }
    fi
  fi
  echo "merge base: ${base}"
  output sha "$base"
  if [ -n "${GITHUB_ENV:-}" ]; then
    # Always this folder: it is the one action.yml's cache steps restore and save.
    echo "RATCHET_HOME=${RUNNER_TEMP:-/tmp}/ratchet-home" >> "$GITHUB_ENV"
    echo "RATCHET_OUT=${OUT}" >> "$GITHUB_ENV"
  fi
}

phase_check() {
  mkdir -p "$OUT"
  local args=(check --base "${BASE_SHA:?set BASE_SHA to the sha output of the base step}" --config "${INPUT_CONFIG:-cascade}")
  if [ -n "${INPUT_BUDGET:-}" ]; then args+=(--budget "$INPUT_BUDGET"); fi
  if [ -n "${INPUT_ON_ERROR:-}" ]; then args+=(--on-error "$INPUT_ON_ERROR"); fi
  rm -f "$OUT/verdict.json" "$OUT/comment.md" "$OUT/junit.xml"
  local code=0
  # The table goes to the log; the files are written on BLOCK and on exit 3 too.
  "$RATCHET" "${args[@]}" --output "json=$OUT/verdict.json" --output "markdown=$OUT/comment.md" \
    --output "junit=$OUT/junit.xml" 2> "$OUT/check.stderr" || code=$?
  cat "$OUT/check.stderr" >&2
  local decision=none
  if [ -s "$OUT/verdict.json" ]; then
    decision=$(python -c 'import json,sys; print(json.load(open(sys.argv[1]))["decision"])' "$OUT/verdict.json")
  fi
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$OUT/comment.md" ]; then
    cat "$OUT/comment.md" >> "$GITHUB_STEP_SUMMARY"
  fi
  echo "ratchet check: ${decision} (exit ${code})"
  output exit-code "$code"
  output decision "$decision"
  output dir "$OUT"
}

phase_comment() {
  if [ "${INPUT_COMMENT:-true}" != "true" ]; then
    echo "comment: off"; output exit-code 0; return 0
  fi
  case "${GITHUB_EVENT_NAME:-pull_request}" in
    pull_request|pull_request_target) ;;
    *) echo "comment: none on a ${GITHUB_EVENT_NAME} event (only a pull request has one)"
       output exit-code 0; return 0 ;;
  esac
  if [ -z "${CHECK_EXIT:-}" ]; then
    echo "comment: none, the check did not run (an earlier step failed)"; output exit-code 0; return 0
  fi
  local args=(ci comment --verdict "$OUT/verdict.json" --key "${INPUT_CONFIG:-cascade}"
              --check-exit "$CHECK_EXIT" --check-stderr "$OUT/check.stderr")
  if [ -s "$OUT/comment.md" ]; then args+=(--markdown "$OUT/comment.md"); fi
  local code=0
  "$RATCHET" "${args[@]}" || code=$?
  if [ "$code" -ne 0 ]; then echo "::error::the PR comment was not posted (exit ${code}); see the line above"; fi
  output exit-code "$code"
}

phase_decide() {
  local check=${CHECK_EXIT:-} comment=${COMMENT_EXIT:-0}
  if [ -z "$check" ]; then
    echo "::error::Ratchet did not check the edit: an earlier step failed (see above)"; exit 1
  fi
  case "$check" in
    0) ;;
    1) echo "::error::Ratchet: BLOCK (a regression); see the PR comment and the ratchet-outputs artifact" ;;
    2) if [ -s "$OUT/verdict.json" ]; then
         # Bad input stops the check before any verdict; only a --budget stop exits 2 after writing one.
         echo "::error::Ratchet: the --budget cap stopped pairs before they were checked (exit 2); the verdict so" \
           "far is in the PR comment and the ratchet-outputs artifact: raise the budget input, or set on-error: warn" \
           "to let unchecked pairs through as WARN"
       else
         echo "::error::Ratchet: bad input (exit 2); see the check step's log"
       fi ;;
    *) echo "::error::Ratchet: infrastructure error (exit ${check}); see the check step's log" ;;
  esac
  if [ "$check" -ne 0 ]; then exit "$check"; fi
  exit "$comment"
}

case "${1:-}" in
  base) phase_base ;;
  check) phase_check ;;
  comment) phase_comment ;;
  decide) phase_decide ;;
  *) echo "usage: $0 base|check|comment|decide" >&2; exit 2 ;;
esac
