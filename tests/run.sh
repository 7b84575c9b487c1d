#!/usr/bin/env bash
# Install everything the tests need and run the whole suite:
# Chromium, node and nginx from Debian's packages (for the browser tests, the map's JS tests and the replicas behind
# a proxy), a virtual environment in .venv with the package and its dev and e2e extras, then pytest.
# Extra arguments go to pytest (e.g. `bash tests/run.sh tests/unit -x`).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
if [ ! -x /usr/bin/chromium ]; then
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium
fi
# node runs the map component's own logic tests (tests/js/, via tests/unit/test_map_js.py)
if ! command -v node >/dev/null 2>&1; then
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends nodejs
fi
# nginx runs in front of two servers in tests/e2e/test_replicas.py, from app/deploy/nginx.conf
# (Debian 12's nginx-light; a release without it has the plain nginx package)
if [ ! -x /usr/sbin/nginx ] && ! command -v nginx >/dev/null 2>&1; then
  $sudo apt-get update -q
  nginx_pkg=nginx
  if apt-cache show nginx-light >/dev/null 2>&1; then nginx_pkg=nginx-light; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$nginx_pkg"
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev,e2e]"
if [ "$#" -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
# The batch steps start Dask clusters inside the test process; in a worker that has run the app's
# tests before (Streamlit runtimes, server threads), a step could wait forever for its tasks.
# They run in a process of their own, after the rest.
BATCH=(tests/unit/test_batch.py tests/unit/test_sketch_files.py tests/unit/test_batch_runs.py embedcore/batch)
.venv/bin/python -m pytest $(printf -- '--ignore=%s ' "${BATCH[@]}")
exec .venv/bin/python -m pytest -n 0 "${BATCH[@]}"
