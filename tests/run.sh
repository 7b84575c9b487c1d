#!/usr/bin/env bash
# Install everything the tests need and run the whole suite:
# Chromium from Debian's packages (for the browser tests), a virtual environment
# in .venv with the package and its dev and e2e extras, then pytest.
# Extra arguments go to pytest (e.g. `bash tests/run.sh tests/unit -x`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev,e2e]"
exec .venv/bin/python -m pytest "$@"
