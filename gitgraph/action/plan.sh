#!/usr/bin/env bash
# gitgraph action, step 1: check the inputs and decide which steps run (as step outputs).
# Inputs arrive as environment variables, never interpolated into this script.
set -euo pipefail

fail() { echo "::error title=gitgraph::$1"; exit 1; }
out() { echo "$1=$2" >> "$GITHUB_OUTPUT"; }

case "$MODE" in comment | claude-md | both) ;; *)
  fail "input mode must be comment, claude-md or both, not '$MODE'" ;;
esac
case "$COMMIT" in none | push | artifact | comment) ;; *)
  fail "input claude-md-commit must be none, push, artifact or comment, not '$COMMIT'" ;;
esac
case "$COMMENT" in true | false) ;; *)
  fail "input comment must be true or false, not '$COMMENT'" ;;
esac
if [ -n "$BUDGET" ] && ! [[ "$BUDGET" =~ ^[1-9][0-9]*$ ]]; then
  fail "input budget must be a positive whole number of tokens, not '$BUDGET'"
fi
if [ "${RUNNER_OS:-Linux}" = Windows ]; then
  fail "gitgraph's action runs on Linux and macOS runners"
fi

work="$RUNNER_TEMP/gitgraph"
mkdir -p "$work"
out work "$work"
out pip-cache "$RUNNER_TEMP/gitgraph-pip"
# setup-python's own pip cache cannot key on this action's files (they live outside the
# workspace, where hashFiles() does not look), so the key is computed here.
out pip-key "$(git hash-object "$GITHUB_ACTION_PATH/pyproject.toml" | cut -c1-16)"

if [ -n "$COMMENT_FILE" ]; then
  # The workflow_run half of the fork-safe pair: post what an earlier job rendered.
  out post true
  out analyse false
  exit 0
fi
out post false
out analyse true
cd "${GITHUB_WORKSPACE:-.}"
if ! git rev-parse --git-dir > /dev/null 2>&1; then
  fail "no git repository in $PWD: run actions/checkout before gitgraph"
fi
out blob-cache "$(git rev-parse --path-format=absolute --git-common-dir)/gitgraph/cache"
if [ "$MODE" != claude-md ]; then
  if [ -z "$BASE" ] || [ -z "$HEAD" ]; then
    fail "no base and head commits: run on pull_request (they come from the event) or set the base and head inputs"
  fi
  out comment true
  out upload-comment "$([ "$COMMENT" = false ] && echo true || echo false)"
else
  out comment false
  out upload-comment false
fi
out claude-md "$([ "$MODE" != comment ] && echo true || echo false)"
