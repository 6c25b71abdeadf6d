#!/usr/bin/env bash
# gitgraph action: make sure the base and head commits, and a merge base between them, are
# in the clone. actions/checkout fetches a single commit by default, and on pull_request
# that commit is a test merge whose parents are not there.
set -euo pipefail

fail() { echo "::error title=gitgraph::$1"; exit 1; }
have() { git cat-file -e "$1^{commit}" 2> /dev/null; }
fetch() { git fetch --no-tags --quiet origin "$@"; }
hint="check out with actions/checkout and fetch-depth: 0, or set the base and head inputs"

cd "${GITHUB_WORKSPACE:-.}"
for sha in "$BASE" "$HEAD"; do
  if ! have "$sha"; then
    echo "gitgraph: fetching $sha from origin"
    fetch --depth=50 "$sha" || fail "cannot fetch commit $sha from origin ($hint)"
  fi
done
depth=50
until git merge-base "$BASE" "$HEAD" > /dev/null 2>&1; do
  if [ "$(git rev-parse --is-shallow-repository)" != true ]; then
    fail "commits $BASE and $HEAD have no common ancestor (unrelated histories?)"
  fi
  if [ "$depth" -ge 3200 ]; then
    echo "gitgraph: fetching the whole history to find the merge base"
    fetch --unshallow "$BASE" "$HEAD" || fail "cannot fetch the history of $BASE and $HEAD ($hint)"
  else
    depth=$((depth * 4))
    echo "gitgraph: deepening the shallow clone by $depth commits to find the merge base"
    fetch --deepen="$depth" "$BASE" "$HEAD" || fail "cannot deepen the clone ($hint)"
  fi
done
