#!/usr/bin/env bash
# Install Embedding Lab into .venv and open it on http://localhost:8501
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[app]"
exec .venv/bin/python -m streamlit run app/streamlit_app.py --server.port 8501 --server.address 0.0.0.0 "$@"
