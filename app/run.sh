#!/usr/bin/env bash
# Install Embedding Lab into .venv and serve it on http://localhost:8501 (PORT=8600 bash app/run.sh for another
# port); the last line printed names the address to open. Extra arguments go to `streamlit run`.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8501}"
echo "Installing Embedding Lab and its dependencies into .venv (minutes the first time, seconds after) ..."
python3 -m venv .venv
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install -qq --upgrade pip
.venv/bin/python -m pip install -qq -e ".[app]"
echo "Starting the server ..."
.venv/bin/python -m streamlit run app/streamlit_app.py --server.port "$PORT" --server.address 0.0.0.0 \
  --logger.hideWelcomeMessage true "$@" &
server=$!
trap 'kill "$server" 2>/dev/null' INT TERM EXIT
# The address is printed once the server answers, so it is the last line before the page's own messages.
.venv/bin/python - "$PORT" "$server" <<'PY'
import os, sys, time, urllib.request
port, pid = sys.argv[1], int(sys.argv[2])
while True:
    try:
        with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=1):
            break
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            sys.exit("The server stopped before it answered; see the messages above.")
        time.sleep(0.2)
print(f"Embedding Lab is running: open http://localhost:{port} in your browser (Ctrl+C stops it).", flush=True)
PY
wait "$server"
