#!/usr/bin/env bash
# gitgraph action, step 2: install gitgraph from this action's own checkout into a venv.
set -euo pipefail

fail() { echo "::error title=gitgraph::$1"; exit 1; }

if [ -n "$GIVEN_PYTHON" ]; then
  "$GIVEN_PYTHON" -c 'import gitgraph' 2> /dev/null ||
    fail "input gitgraph-python: $GIVEN_PYTHON cannot import gitgraph"
  echo "python=$GIVEN_PYTHON" >> "$GITHUB_OUTPUT"
  exit 0
fi
if [ -z "$SETUP_PYTHON" ]; then
  fail "actions/setup-python gave no interpreter (input python-version: a version it knows?)"
fi
venv="$RUNNER_TEMP/gitgraph-venv"
"$SETUP_PYTHON" -m venv "$venv"
PIP_CACHE_DIR="$PIP_CACHE" "$venv/bin/python" -m pip install --quiet \
  --disable-pip-version-check "$GITHUB_ACTION_PATH" ||
  fail "cannot install gitgraph from $GITHUB_ACTION_PATH (see the pip output above)"
echo "python=$venv/bin/python" >> "$GITHUB_OUTPUT"
