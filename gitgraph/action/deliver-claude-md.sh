#!/usr/bin/env bash
# gitgraph action: deliver an updated CLAUDE.md as asked by input claude-md-commit.
#   push      commit it to the branch (a fork's branch cannot be pushed to: upload instead)
#   artifact  upload it (the next step, when this one says upload=true)
#   comment   propose the new block in a sticky comment on the pull request
#   none      leave it in the work tree for the workflow's own steps
set -euo pipefail

fail() { echo "::error title=gitgraph::$1"; exit 1; }
upload() { echo "upload=true" >> "$GITHUB_OUTPUT"; }

cd "${GITHUB_WORKSPACE:-.}"
case "$COMMIT" in
  none) ;;
  artifact) upload ;;
  comment)
    GITGRAPH_POST_CLAUDE_MD="$FILE" "$GITGRAPH_PYTHON" -c \
      'import sys; from gitgraph.commands.comment import post_from_action; sys.exit(post_from_action())'
    ;;
  push)
    if [ -n "$PR_HEAD_REPO" ] && [ "$PR_HEAD_REPO" != "$GITHUB_REPOSITORY" ]; then
      echo "::warning title=gitgraph::$FILE is out of date, but this pull request comes from the fork $PR_HEAD_REPO, which a workflow cannot push to: uploading it as the gitgraph-claude-md artifact instead"
      upload
      exit 0
    fi
    branch="${PR_HEAD_REF:-}"
    if [ -z "$branch" ]; then
      case "$GITHUB_REF" in
        refs/heads/*) branch="${GITHUB_REF#refs/heads/}" ;;
        *) fail "claude-md-commit: push needs a branch to push to (run on pull_request or push)" ;;
      esac
    fi
    expected="${PR_HEAD_SHA:-$GITHUB_SHA}"
    if [ "$(git rev-parse HEAD)" != "$expected" ]; then
      fail "claude-md-commit: push needs the branch itself checked out, not a merge commit: use actions/checkout with ref: \${{ github.head_ref }}"
    fi
    git add -- "$FILE"
    git -c user.name='github-actions[bot]' \
      -c user.email='41898282+github-actions[bot]@users.noreply.github.com' \
      commit --quiet -m "Update the gitgraph code map in $FILE" -- "$FILE"
    git push --quiet origin "HEAD:refs/heads/$branch" ||
      fail "cannot push to $branch (did it move on meanwhile? does the job have contents: write?)"
    echo "pushed=true" >> "$GITHUB_OUTPUT"
    echo "gitgraph: pushed the updated $FILE to $branch"
    ;;
esac
