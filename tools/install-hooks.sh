#!/usr/bin/env bash
# npm install (and npm ci) run this as the `prepare` script: the project's git hooks
# (tools/git-hooks/) become the clone's. Outside a git work tree (an npm pack, a tarball) it does nothing.
set -euo pipefail
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git config core.hooksPath tools/git-hooks
fi
